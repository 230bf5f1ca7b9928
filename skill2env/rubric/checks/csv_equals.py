"""A produced table equals the expected one, with the slack the task allows: column order, row
order or key columns, numeric tolerance, normalised dates / case / whitespace."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from operator import itemgetter
from pathlib import Path
from typing import Any

from .base import CheckResult, CheckSpecError, check, diff_lines, param, show, string_list
from .tables import EXPECTED_PARAMS, TABLE_PARAMS, Table, expected_table, read_table
from .values import (
    COMPARISON_PARAMS,
    Comparison,
    as_integer,
    as_number,
    comparison_from,
    normalized_text,
    values_equal,
)

GREEDY_LIMIT = 2000
"""Rows left unmatched by exact canonical form are paired greedily (within tolerance) up to this many."""
MAX_DIFF = 200


def canonical(value: Any, comparison: Comparison) -> Any:
    """A hashable form that equal values share when tolerance is zero (never one that unequal
    values share: an exact integer stays exact, and NaN or ±inf, equal to nothing, get a form of
    their own)."""
    if comparison.numbers:
        integer = as_integer(value)
        if integer is not None:
            return ("n", integer)
        number = as_number(value)
        if number is not None:
            return ("n", number) if math.isfinite(number) else ("x", object())
    if value is None:
        return ("s", "")
    return ("s", normalized_text(str(value), comparison))


def header_key(name: str, comparison: Comparison) -> str:
    name = " ".join(name.split()) if comparison.whitespace else name.strip()
    return name.casefold() if comparison.case else name


def _columns(
    expected: Table, actual: Table, params: Mapping[str, Any], comparison: Comparison, diff: list[str]
) -> tuple[list[str], list[int], list[int]]:
    """Which columns to compare, their indexes in expected and actual; problems go to `diff`."""
    chosen = string_list(params, "columns") or expected.columns
    expected_index = {header_key(c, comparison): i for i, c in reversed(list(enumerate(expected.columns)))}
    actual_index = {header_key(c, comparison): i for i, c in reversed(list(enumerate(actual.columns)))}
    names, left, right = [], [], []
    for name in chosen:
        key = header_key(name, comparison)
        if key not in expected_index:
            raise CheckSpecError(f"column {name!r} is not in the expected table {expected.columns}")
        if key not in actual_index:
            diff.append(f"missing column {name!r}")
            continue
        names.append(name)
        left.append(expected_index[key])
        right.append(actual_index[key])
    compared_keys = {header_key(c, comparison) for c in chosen}
    extra = [c for c in actual.columns if header_key(c, comparison) not in compared_keys]
    if extra and not param(params, "allow_extra_columns", bool, False) and not params.get("columns"):
        diff.append(f"unexpected column(s) {extra}")
    if not param(params, "ignore_column_order", bool, False) and right != sorted(right):
        in_order = [actual.columns[i] for i in sorted(right)]
        diff.append(f"column order: expected {names}, got {in_order}")
    duplicated = sorted(c for c, n in Counter(actual.columns).items() if n > 1)
    if duplicated:
        diff.append(f"duplicate column(s) {duplicated}")
    return names, left, right


def plainly_equal(left: Any, right: Any) -> bool:
    """Equal as they stand, without `values_equal`: the same type (1 == True == 1.0 in Python, but
    a boolean is no number) and no NaN or ±inf (which equal nothing, not even themselves)."""
    return type(left) is type(right) and left == right and not (isinstance(left, float) and not math.isfinite(left))


def _cells(
    names: Sequence[str], expected: Sequence[Any], actual: Sequence[Any], comparison: Comparison, where: str
) -> list[str]:
    problems = []
    for name, left, right in zip(names, expected, actual, strict=False):
        if not plainly_equal(left, right) and not values_equal(left, right, comparison):
            problems.append(f"{where} column {name!r}: expected {show(left)}, got {show(right)}")
    return problems


def _identical(expected: list[Sequence[Any]], actual: list[Sequence[Any]]) -> bool:
    """Cell for cell `plainly_equal` (the tuple comparison first: it is quick, and rules out most)."""
    return (
        len(expected) == len(actual)
        and all(tuple(a) == tuple(b) for a, b in zip(expected, actual, strict=True))
        and all(plainly_equal(x, y) for a, b in zip(expected, actual, strict=True) for x, y in zip(a, b, strict=False))
    )


def _project(rows: list[list[Any]], indexes: list[int]) -> list[Sequence[Any]]:
    """The rows restricted to `indexes`, in that order (short rows read as blank cells)."""
    if indexes and all(len(row) > max(indexes) for row in rows):
        if indexes == list(range(len(indexes))) and all(len(row) == len(indexes) for row in rows):
            return list(rows)
        if len(indexes) == 1:
            return [[row[indexes[0]]] for row in rows]
        pick = itemgetter(*indexes)
        return [pick(row) for row in rows]
    return [[row[i] if i < len(row) else "" for i in indexes] for row in rows]


def _by_position(
    names: list[str], expected: list[Sequence[Any]], actual: list[Sequence[Any]], comparison: Comparison, extra_ok: bool
) -> list[str]:
    diff = []
    for number, (left, right) in enumerate(zip(expected, actual, strict=False), start=1):
        diff += _cells(names, left, right, comparison, f"row {number}")
        if len(diff) > MAX_DIFF:
            return diff
    for number in range(len(actual) + 1, len(expected) + 1):
        diff.append(f"row {number} missing: expected {show(expected[number - 1])}")
    if not extra_ok:
        for number in range(len(expected) + 1, len(actual) + 1):
            diff.append(f"row {number} unexpected: {show(actual[number - 1])}")
    return diff


def _as_multiset(
    expected: list[Sequence[Any]], actual: list[Sequence[Any]], comparison: Comparison, extra_ok: bool
) -> list[str]:
    """Rows in any order: exact canonical matches first, then within tolerance, greedily."""
    buckets: dict[tuple[Any, ...], list[int]] = defaultdict(list)
    for index, row in enumerate(actual):
        buckets[tuple(canonical(v, comparison) for v in row)].append(index)
    unmatched_expected = []
    used = [False] * len(actual)
    for row in expected:
        bucket = buckets.get(tuple(canonical(v, comparison) for v in row))
        if bucket:
            used[bucket.pop()] = True
        else:
            unmatched_expected.append(row)
    leftovers = [i for i, taken in enumerate(used) if not taken]
    still_missing = []
    if len(unmatched_expected) <= GREEDY_LIMIT and len(leftovers) <= GREEDY_LIMIT:
        for row in unmatched_expected:
            for position, index in enumerate(leftovers):
                if all(values_equal(a, b, comparison) for a, b in zip(row, actual[index], strict=False)):
                    del leftovers[position]
                    break
            else:
                still_missing.append(row)
    else:
        still_missing = unmatched_expected
    diff = [f"expected row not found: {show(row)}" for row in still_missing]
    if not extra_ok:
        diff += [f"unexpected row: {show(actual[index])}" for index in leftovers]
    return diff


def _by_key(
    names: list[str],
    positions: list[int],
    expected: list[Sequence[Any]],
    actual: list[Sequence[Any]],
    comparison: Comparison,
    extra_ok: bool,
) -> list[str]:
    keys = [names[p] for p in positions]

    def key_of(row: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(canonical(row[p], comparison) for p in positions)

    def shown(row: Sequence[Any]) -> str:
        return ", ".join(f"{k}={row[p]}" for k, p in zip(keys, positions, strict=False))

    actual_by_key: dict[tuple[Any, ...], Sequence[Any]] = {}
    diff = []
    for row in actual:
        key = key_of(row)
        if key in actual_by_key:
            diff.append(f"duplicate key ({shown(row)})")
        actual_by_key.setdefault(key, row)
    seen = set()
    for row in expected:
        key = key_of(row)
        seen.add(key)
        match = actual_by_key.get(key)
        if match is None:
            diff.append(f"missing row ({shown(row)})")
            continue
        diff += _cells(names, row, match, comparison, f"row ({shown(row)})")
        if len(diff) > MAX_DIFF:
            return diff
    if not extra_ok:
        diff += [f"unexpected row ({shown(row)})" for key, row in actual_by_key.items() if key not in seen]
    return diff


@check(
    "csv_equals",
    "A CSV / TSV / XLSX deliverable equals the expected table (column order, row order or key columns, "
    "numeric tolerance and date / case / whitespace normalisation as the task allows).",
    required=("path",),
    optional=(
        *EXPECTED_PARAMS,
        *TABLE_PARAMS,
        *COMPARISON_PARAMS,
        "columns",
        "key_columns",
        "ignore_column_order",
        "ignore_row_order",
        "allow_extra_columns",
        "allow_extra_rows",
    ),
    uses_tests_dir=True,
)
def csv_equals(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
    comparison = comparison_from(params)
    expected = expected_table(params)
    actual = read_table(workspace, params)
    diff: list[str] = []
    names, left, right = _columns(expected, actual, params, comparison, diff)
    keys = string_list(params, "key_columns")
    chosen_keys = [header_key(c, comparison) for c in string_list(params, "columns") or expected.columns]
    if any(header_key(k, comparison) not in chosen_keys for k in keys):
        raise CheckSpecError(f"key columns {keys} must be among the compared columns of the expected table")
    name_keys = [header_key(n, comparison) for n in names]
    missing_keys = [k for k in keys if header_key(k, comparison) not in name_keys]
    expected_rows, actual_rows = _project(expected.rows, left), _project(actual.rows, right)
    extra_ok = param(params, "allow_extra_rows", bool, False)
    if missing_keys:
        diff.append(f"cannot match rows: key column(s) {missing_keys} missing")
    elif _identical(expected_rows, actual_rows):
        pass  # cell for cell the same: equal under any option, no matching needed
    elif keys:
        positions = [name_keys.index(header_key(k, comparison)) for k in keys]
        diff += _by_key(names, positions, expected_rows, actual_rows, comparison, extra_ok)
    elif param(params, "ignore_row_order", bool, False):
        diff += _as_multiset(expected_rows, actual_rows, comparison, extra_ok)
    else:
        diff += _by_position(names, expected_rows, actual_rows, comparison, extra_ok)
    options = {
        k: params[k]
        for k in ("key_columns", "ignore_column_order", "ignore_row_order", "tolerance", "normalize", "columns")
        if k in params
    }
    summary = (
        f"equal: {len(expected.rows)} rows × {len(names)} columns"
        if not diff
        else f"{len(diff)}{'+' if len(diff) > MAX_DIFF else ''} difference(s)"
    )
    return CheckResult(
        not diff,
        {
            "summary": summary,
            "compared": {
                "actual": f"{params['path']} ({len(actual.rows)} rows, columns {actual.columns})",
                "expected": f"{len(expected.rows)} rows, columns {expected.columns}",
                "options": options,
            },
            **diff_lines(diff, len(diff)),
        },
    )
