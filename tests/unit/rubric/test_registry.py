"""The registry and run_check: every outcome becomes a result, evidence stays bounded and JSON-ready."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from skill2env.rubric.checks import REGISTRY, CheckResult, run_check, spec_problems
from skill2env.rubric.checks.base import CheckFailed, bounded, check
from skill2env.rubric.models import Rubric, check_problems

EXPECTED_CHECKS = {
    "file_exists",
    "file_absent",
    "file_unchanged",
    "text_contains",
    "text_matches",
    "csv_equals",
    "json_equals",
    "json_path_equals",
    "row_count",
    "sql_query",
    "cross_file_consistent",
    "python",
}


def test_the_library_registers_one_check_per_concern() -> None:
    assert set(REGISTRY) == EXPECTED_CHECKS
    assert all(entry.description for entry in REGISTRY.values())


@pytest.fixture
def scratch_checks() -> Iterator[None]:
    before = dict(REGISTRY)
    yield
    REGISTRY.clear()
    REGISTRY.update(before)


def test_an_unexpected_exception_in_a_check_fails_the_item_with_its_cause(scratch_checks: None, tmp_path: Path) -> None:
    @check("broken", "raises", optional=("x",))
    def broken(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
        raise ZeroDivisionError("bug")

    result = run_check("broken", tmp_path, {})

    assert result.status == "failed" and not result.passed
    assert result.error == "the check raised ZeroDivisionError: bug"
    assert "ZeroDivisionError" in result.evidence["traceback"]


def test_check_failed_becomes_a_failure_with_its_evidence(scratch_checks: None, tmp_path: Path) -> None:
    @check("fails", "fails")
    def fails(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
        raise CheckFailed("the deliverable is malformed", path="x.csv")

    result = run_check("fails", tmp_path, {})

    assert result.status == "failed"
    assert result.evidence["summary"] == "the deliverable is malformed" and result.evidence["path"] == "x.csv"


def test_registering_a_name_twice_is_refused(scratch_checks: None) -> None:
    with pytest.raises(ValueError, match="registered twice"):
        check("file_exists", "again")(lambda workspace, params: CheckResult(True))


def test_spec_problems_name_the_unknown_check_and_params() -> None:
    assert spec_problems("no_such_check", {})[0].startswith("unknown check 'no_such_check'")
    assert spec_problems("row_count", {}) == ["check 'row_count' needs params ['path']"]
    assert "does not take params ['colour']" in spec_problems("row_count", {"path": "x", "colour": 1})[0]
    assert run_check("no_such_check", Path("."), {}).error is not None


def test_check_problems_of_a_rubric() -> None:
    rubric = Rubric.model_validate(
        {
            "items": [
                {
                    "id": "a",
                    "description": "d",
                    "weight": 0.5,
                    "method": "deterministic",
                    "check": {"check": "row_count", "params": {"path": "x", "expected": 1}},
                },
                {
                    "id": "b",
                    "description": "d",
                    "weight": 0.5,
                    "method": "deterministic",
                    "check": {"check": "csv_equal", "params": {}},
                },
            ]
        }
    )

    problems = check_problems(rubric)

    assert len(problems) == 1 and problems[0].startswith("b: unknown check 'csv_equal'")


def test_evidence_is_bounded_and_json_ready() -> None:
    evidence = bounded(
        {"long": "x" * 5000, "many": list(range(100)), "bytes": b"\xff\x00", "odd": {1, 2}, "obj": object()}
    )

    assert len(evidence["long"]) < 500 and evidence["long"].endswith("more chars cut]")
    assert len(evidence["many"]) == 21 and evidence["many"][-1] == "… 80 more cut"
    json.dumps(evidence)


def test_every_result_records_its_check_and_duration(tmp_path: Path) -> None:
    result = run_check("file_exists", tmp_path, {"path": "x"})

    assert result.evidence["check"] == "file_exists"
    assert result.evidence["duration_ms"] >= 0


def test_evidence_that_cannot_be_recorded_never_escapes_run_check_and_never_passes(
    scratch_checks: None, tmp_path: Path
) -> None:
    class Unprintable:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    @check("unprintable", "returns evidence that cannot be shown")
    def unprintable(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
        return CheckResult(True, {"value": Unprintable()})

    result = run_check("unprintable", tmp_path, {})

    assert result.status == "failed" and "could not be recorded" in result.evidence["evidence_error"]
