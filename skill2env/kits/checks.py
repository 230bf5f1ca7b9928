"""The deterministic checks kit rubrics use, as `CheckSpec`s of the check library
(`skill2env.rubric.checks`), built in one place so each library parameter is spelled once.

* `csv_equals` — rows keyed by `key_columns`, only the listed `columns` compared (in any column order);
  `exact_keys` decides whether rows the expectation does not list are allowed (`allow_extra_rows`).
* `json_path_equals` — one value at a JSONPath, numbers within `tolerance`, lists optionally unordered.
* `text_contains` / `text_matches` — phrases (case ignored) and regular expressions (case ignored).
* `cross_file_consistent` — row counts of a CSV under a filter all equal an expected number.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from skill2env.rubric import CheckSpec

MONEY_TOLERANCE = 0.005


def csv_rows(
    path: str,
    key: Sequence[str],
    columns: Sequence[str],
    rows: Sequence[Mapping[str, Any]],
    *,
    exact_keys: bool = False,
    tolerance: float = MONEY_TOLERANCE,
) -> CheckSpec:
    names = [*key, *(c for c in columns if c not in key)]
    return CheckSpec(
        check="csv_equals",
        params={
            "path": path,
            "expected": {"columns": names, "rows": [[row[c] for c in names] for row in rows]},
            "columns": names,
            "key_columns": list(key),
            "ignore_column_order": True,
            "allow_extra_rows": not exact_keys,
            "tolerance": tolerance,
        },
    )


def json_value(
    path: str, json_path: str, expected: Any, *, tolerance: float = MONEY_TOLERANCE, unordered: bool = False
) -> CheckSpec:
    params: dict[str, Any] = {"path": path, "json_path": json_path, "expected": expected, "tolerance": tolerance}
    if unordered:
        params["ignore_list_order"] = True
    return CheckSpec(check="json_path_equals", params=params)


def text_contains(path: str, needles: Sequence[str]) -> CheckSpec:
    return CheckSpec(check="text_contains", params={"path": path, "contains": list(needles), "ignore_case": True})


def text_matches(path: str, pattern: str) -> CheckSpec:
    re.compile(pattern)
    return CheckSpec(check="text_matches", params={"path": path, "pattern": pattern, "flags": ["IGNORECASE"]})


def labelled_number(label: str, value: float, *, decimals: int = 2) -> str:
    """A regex for `Label: value` in prose, tolerant of case, markup, a currency word and thousands separators."""
    text = f"{abs(value):,.{decimals}f}" if decimals else f"{abs(int(value)):,d}"
    number = re.escape(text).replace(",", ",?")
    sign = r"-\s?" if value < 0 else ""
    return rf"{re.escape(label)}\**\s*[:=]?\s*\**\s*(?:EUR|USD|€)?\s*{sign}{number}(?![0-9])"


def csv_count(path: str, where: Mapping[str, str]) -> dict[str, Any]:
    """A `cross_file_consistent` source: the number of rows of a CSV matching `where`."""
    return {"path": path, "csv_column": next(iter(where)), "aggregate": "count", "where": dict(where)}


def counts_equal(sources: Sequence[Mapping[str, Any]], expected: int) -> CheckSpec:
    """Every source (see `csv_count`) reads `expected`."""
    return CheckSpec(
        check="cross_file_consistent", params={"sources": [dict(s) for s in sources], "expected": expected}
    )
