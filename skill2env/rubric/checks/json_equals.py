"""JSON deliverables: the whole document equals the expected one, or values at JSONPaths do —
numbers within tolerance, strings optionally normalised, list order optionally ignored."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import jsonpath
from .base import (
    CheckFailed,
    CheckResult,
    CheckSpecError,
    check,
    diff_lines,
    max_bytes_param,
    param,
    read_text,
    show,
    tests_file,
)
from .values import COMPARISON_PARAMS, Comparison, comparison_from, values_equal

MAX_DIFF = 200
STRUCTURE_PARAMS = ("ignore_list_order", "allow_extra_keys")
MAX_DEPTH = 100
"""A JSON deliverable nesting deeper fails: comparing and showing it recurses once per level."""
UNORDERED_BUDGET = 1_000_000
"""Item comparisons one list compared in any order may cost after exact matches are paired."""


def load_json(workspace: Path, path: str, max_bytes: int) -> Any:
    """A workspace JSON document, or CheckFailed: not JSON, an integer of more digits than Python
    converts, nesting past MAX_DEPTH, or a string holding a lone surrogate (not Unicode text)."""
    text = read_text(workspace, path, max_bytes)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CheckFailed(
            f"{path} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", path=path
        ) from exc
    except ValueError as exc:  # json raises a plain ValueError for an over-long integer
        raise CheckFailed(f"{path} is not readable JSON: {exc}", path=path) from exc
    except RecursionError as exc:
        raise CheckFailed(f"{path} nests too deeply to read", path=path, max_depth=MAX_DEPTH) from exc
    _check_shape(document, path)
    return document


def _check_shape(document: Any, path: str) -> None:
    stack = [(document, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth >= MAX_DEPTH:
                raise CheckFailed(f"{path} nests deeper than {MAX_DEPTH} levels", path=path, max_depth=MAX_DEPTH)
            if isinstance(value, dict):
                for key, item in value.items():
                    _check_text(key, path)
                    stack.append((item, depth + 1))
            else:
                stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, str):
            _check_text(value, path)


def _check_text(text: str, path: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise CheckFailed(
            f"{path} holds a string with a lone surrogate (\\u{ord(text[exc.start]):04x}), not Unicode text", path=path
        ) from exc


class Differ:
    """Structural comparison of two JSON values, collecting `path: expected …, got …` lines."""

    def __init__(
        self,
        comparison: Comparison,
        *,
        ignore_list_order: bool,
        allow_extra_keys: bool,
        budget: list[int] | None = None,
    ) -> None:
        self.comparison = comparison
        self.ignore_list_order = ignore_list_order
        self.allow_extra_keys = allow_extra_keys
        self.diff: list[str] = []
        self.probing = budget is not None
        self.budget = budget if budget is not None else [UNORDERED_BUDGET]
        """Comparisons left to the probes pairing list items in any order, shared by all of them."""

    def equal(self, expected: Any, actual: Any) -> bool:
        probe = Differ(
            self.comparison,
            ignore_list_order=self.ignore_list_order,
            allow_extra_keys=self.allow_extra_keys,
            budget=self.budget,
        )
        probe.compare(expected, actual, "$")
        return not probe.diff

    def full(self) -> bool:
        return len(self.diff) > MAX_DIFF

    def compare(self, expected: Any, actual: Any, where: str) -> None:
        if self.full():
            return
        if self.probing:
            self.budget[0] -= 1
            if self.budget[0] < 0:
                self.diff.append(f"{where}: not compared (out of budget)")
                return
        if type(expected) is type(actual) and isinstance(expected, (str, int, type(None))) and expected == actual:
            return  # equal as they stand (a float is compared by values_equal: NaN and ±inf equal nothing)
        if isinstance(expected, dict):
            if not isinstance(actual, dict):
                self.diff.append(f"{where}: expected an object, got {show(actual)}")
                return
            for key, value in expected.items():
                if self.full():
                    return
                if key not in actual:
                    self.diff.append(f"{where}.{key}: missing (expected {show(value)})")
                else:
                    self.compare(value, actual[key], f"{where}.{key}")
            if not self.allow_extra_keys:
                for key in actual:
                    if self.full():
                        return
                    if key not in expected:
                        self.diff.append(f"{where}.{key}: unexpected key ({show(actual[key])})")
        elif isinstance(expected, list):
            if not isinstance(actual, list):
                self.diff.append(f"{where}: expected a list, got {show(actual)}")
            elif self.ignore_list_order:
                self._unordered(expected, actual, where)
            else:
                for index, (left, right) in enumerate(zip(expected, actual, strict=False)):
                    if self.full():
                        return
                    self.compare(left, right, f"{where}[{index}]")
                if len(expected) != len(actual):
                    self.diff.append(f"{where}: expected {len(expected)} items, got {len(actual)}")
        elif isinstance(actual, (dict, list)) or not values_equal(expected, actual, self.comparison):
            self.diff.append(f"{where}: expected {show(expected)}, got {show(actual)}")

    def _unordered(self, expected: list[Any], actual: list[Any], where: str) -> None:
        """Items paired in any order: identical ones first, then greedily within the comparison,
        for at most UNORDERED_BUDGET comparisons in all (past it, what is left unpaired fails)."""
        by_form: dict[str, list[int]] = defaultdict(list)
        for index, item in enumerate(actual):
            form = _exact_form(item)
            if form is not None:
                by_form[form].append(index)
        taken = [False] * len(actual)
        unpaired = []
        for item in expected:
            form = _exact_form(item)
            bucket = by_form.get(form) if form is not None else None
            if bucket:
                taken[bucket.pop()] = True
            else:
                unpaired.append(item)
        left = [index for index, used in enumerate(taken) if not used]
        for item in unpaired:
            if self.full():
                return
            hit = None
            for position, index in enumerate(left):
                if self.budget[0] <= 0:
                    break
                if self.equal(item, actual[index]):
                    hit = position
                    break
            if hit is not None:
                del left[hit]
            elif self.budget[0] <= 0:
                self.diff.append(f"{where}: too many items to pair in any order; none paired with {show(item)}")
            else:
                self.diff.append(f"{where}: no item equal to {show(item)}")
        for index in left:
            if self.full():
                return
            self.diff.append(f"{where}[{index}]: unexpected item {show(actual[index])}")


def _exact_form(value: Any) -> str | None:
    """A text two values share only when they are identical JSON (so equal under any comparison);
    None for what has no such form (NaN, ±inf, non-JSON values)."""
    try:
        return json.dumps(value, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None


def _differ(params: Mapping[str, Any]) -> Differ:
    return Differ(
        comparison_from(params),
        ignore_list_order=param(params, "ignore_list_order", bool, False),
        allow_extra_keys=param(params, "allow_extra_keys", bool, False),
    )


@check(
    "json_equals",
    "A JSON deliverable equals the expected document (numeric tolerance, string normalisation, "
    "list order and extra keys as the task allows).",
    required=("path",),
    optional=("expected", "expected_file", "max_bytes", *COMPARISON_PARAMS, *STRUCTURE_PARAMS),
    uses_tests_dir=True,
)
def json_equals(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
    path = param(params, "path", str)
    if ("expected" in params) == ("expected_file" in params):
        raise CheckSpecError("give exactly one of `expected` and `expected_file`")
    if "expected_file" in params:
        shipped = tests_file(params, "expected_file")
        try:
            expected = json.loads(shipped.read_text(encoding="utf-8"))
        except (ValueError, RecursionError) as exc:
            raise CheckSpecError(f"the expected file {shipped.name} is not JSON: {exc}") from exc
    else:
        expected = params["expected"]
    actual = load_json(workspace, path, max_bytes_param(params))
    differ = _differ(params)
    differ.compare(expected, actual, "$")
    diff = differ.diff
    return CheckResult(
        not diff,
        {
            "summary": "equal" if not diff else f"{len(diff)}{'+' if len(diff) > MAX_DIFF else ''} difference(s)",
            "compared": {"actual": path, "expected": show(expected, 300)},
            **diff_lines(diff, len(diff)),
        },
    )


@check(
    "json_path_equals",
    "Values at JSONPaths of a JSON deliverable equal the expected ones (`json_path` + `expected`, or "
    "`values` {path: expected}); a wildcard path compares the list of what it selects.",
    required=("path",),
    optional=("json_path", "expected", "values", "max_bytes", *COMPARISON_PARAMS, *STRUCTURE_PARAMS),
)
def json_path_equals(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
    path = param(params, "path", str)
    wanted = dict(param(params, "values", dict, {}))
    if "json_path" in params:
        if "expected" not in params:
            raise CheckSpecError("`json_path` needs `expected`")
        wanted[param(params, "json_path", str)] = params["expected"]
    if not wanted:
        raise CheckSpecError("give `json_path` + `expected`, or `values` {json_path: expected}")
    for expression in wanted:
        jsonpath.parse(expression)
    document = load_json(workspace, path, max_bytes_param(params))
    differ = _differ(params)
    compared = []
    for expression, expected in wanted.items():
        found = jsonpath.find(document, expression)
        before = len(differ.diff)
        if jsonpath.has_wildcard(expression):
            actual: Any = [value for _, value in found]
            differ.compare(expected, actual, expression)
        elif not found:
            actual = None
            differ.diff.append(f"{expression}: no value there (expected {show(expected)})")
        else:
            actual = found[0][1]
            differ.compare(expected, actual, expression)
        compared.append(
            {"json_path": expression, "expected": expected, "actual": actual, "equal": len(differ.diff) == before}
        )
    diff = differ.diff
    return CheckResult(
        not diff,
        {
            "summary": f"{len(wanted) - sum(1 for c in compared if not c['equal'])} of {len(wanted)} value(s) equal",
            "compared": {"actual": path, "values": compared},
            **diff_lines(diff, len(diff)),
        },
    )
