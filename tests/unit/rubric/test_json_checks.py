"""json_equals / json_path_equals and the small JSONPath they use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rubric_helpers import Run

from skill2env.rubric.checks import jsonpath
from skill2env.rubric.checks.base import CheckSpecError

SUMMARY = {"total": 81.0, "regions": ["east", "north", "south"], "top": {"name": "South", "revenue": 42.5}}


def test_an_equal_document_passes(put, run: Run) -> None:
    put("summary.json", json.dumps(SUMMARY))

    assert run("json_equals", path="summary.json", expected=SUMMARY).passed


def test_differences_are_listed_by_path(put, run: Run) -> None:
    actual = {"total": 82, "regions": ["east", "north"], "top": {"name": "South"}, "extra": 1}
    put("summary.json", json.dumps(actual))

    result = run("json_equals", path="summary.json", expected=SUMMARY)

    assert not result.passed
    assert result.evidence["diff"] == [
        "$.total: expected 81.0, got 82",
        "$.regions: expected 3 items, got 2",
        "$.top.revenue: missing (expected 42.5)",
        "$.extra: unexpected key (1)",
    ]


def test_tolerance_list_order_extra_keys_and_case(put, run: Run) -> None:
    put(
        "summary.json",
        json.dumps(
            {
                "total": "81.004",
                "regions": ["south", "east", "north"],
                "top": {"name": "south", "revenue": 42.5},
                "note": "x",
            }
        ),
    )

    params = {"path": "summary.json", "expected": SUMMARY}
    assert not run("json_equals", **params).passed
    assert run(
        "json_equals", **params, tolerance=0.01, ignore_list_order=True, allow_extra_keys=True, normalize=["case"]
    ).passed


def test_type_mismatches_fail(put, run: Run) -> None:
    put("summary.json", json.dumps({"total": [81], "regions": "east", "top": None}))

    diff = run("json_equals", path="summary.json", expected=SUMMARY).evidence["diff"]

    assert diff[:3] == [
        "$.total: expected 81.0, got [81]",
        '$.regions: expected a list, got "east"',
        "$.top: expected an object, got null",
    ]


def test_invalid_json_fails_with_where(put, run: Run) -> None:
    put("summary.json", '{"total": 81,,}')

    result = run("json_equals", path="summary.json", expected=SUMMARY)

    assert result.status == "failed" and "line 1 column" in result.evidence["summary"]


def test_deeply_nested_json_fails_rather_than_crashing(put, run: Run) -> None:
    put("deep.json", "[" * 100_000 + "]" * 100_000)

    assert run("json_equals", path="deep.json", expected=[]).status == "failed"


def test_expected_from_a_file_shipped_with_the_verifier(put, run: Run, tmp_path: Path) -> None:
    put("summary.json", json.dumps(SUMMARY))
    (tmp_path / "tests" / "summary.expected.json").write_text(json.dumps(SUMMARY))

    assert run("json_equals", path="summary.json", expected_file="summary.expected.json").passed
    assert run("json_equals", path="summary.json").error is not None


def test_values_at_paths(put, run: Run) -> None:
    put("summary.json", json.dumps(SUMMARY))

    assert run("json_path_equals", path="summary.json", json_path="$.top.revenue", expected=42.5).passed
    assert run("json_path_equals", path="summary.json", values={"$.regions[-1]": "south", "$['total']": 81}).passed
    assert run(
        "json_path_equals", path="summary.json", json_path="$.regions[*]", expected=["east", "north", "south"]
    ).passed


def test_a_wrong_or_absent_value_is_reported(put, run: Run) -> None:
    put("summary.json", json.dumps(SUMMARY))

    result = run("json_path_equals", path="summary.json", values={"$.total": 80, "$.top.city": "x"})

    assert not result.passed
    assert result.evidence["summary"] == "0 of 2 value(s) equal"
    assert result.evidence["diff"] == ["$.total: expected 80, got 81.0", '$.top.city: no value there (expected "x")']
    compared = result.evidence["compared"]["values"]
    assert compared[0] == {"json_path": "$.total", "expected": 80, "actual": 81.0, "equal": False}


def test_json_path_equals_spec_errors(put, run: Run) -> None:
    put("summary.json", json.dumps(SUMMARY))

    assert run("json_path_equals", path="summary.json").error is not None
    assert run("json_path_equals", path="summary.json", json_path="$.total").error is not None
    assert run("json_path_equals", path="summary.json", json_path="total", expected=1).error is not None


def test_jsonpath_parsing_and_selection() -> None:
    document = {"a": {"b c": [1, {"d": 2}]}, "e": [{"f": 1}, {"f": 2}]}

    assert jsonpath.find(document, "$.a['b c'][1].d") == [("$.a['b c'][1].d", 2)]
    assert [v for _, v in jsonpath.find(document, "$.e[*].f")] == [1, 2]
    assert [v for _, v in jsonpath.find(document, "$.*")] == [document["a"], document["e"]]
    assert jsonpath.find(document, "$.x.y") == []
    assert jsonpath.find(document, "$.e[5]") == []
    with pytest.raises(CheckSpecError):
        jsonpath.parse("$.a..b")
    with pytest.raises(CheckSpecError):
        jsonpath.parse("$[?(@.f > 1)]")
