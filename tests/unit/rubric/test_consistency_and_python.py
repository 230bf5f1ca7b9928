"""cross_file_consistent (deliverables agree) and python (a function shipped with the verifier)."""

from __future__ import annotations

import json
from pathlib import Path

from rubric_helpers import Run

TABLE = "invoice,amount,status\nA,100.00,paid\nB,250.50,open\nC,49.50,paid\n"


def _deliverables(put, total: float = 400.0, count: int = 3) -> None:
    put("out/invoices.csv", TABLE)
    put("out/summary.json", json.dumps({"total": total, "count": count, "paid": 149.5}))
    put("out/audit.md", f"# Audit\nWe reviewed {count} invoices totalling $ {total:,.2f}.\n")


def test_agreeing_deliverables_pass_with_every_value_read(put, run: Run) -> None:
    _deliverables(put)

    result = run(
        "cross_file_consistent",
        sources=[
            {"path": "out/summary.json", "json_path": "$.total"},
            {"path": "out/invoices.csv", "csv_column": "amount"},
            {"path": "out/audit.md", "regex": r"totalling \$ ([\d,]+\.\d+)"},
        ],
    )

    assert result.passed, result.evidence
    values = [entry["value"] for entry in result.evidence["compared"]["values"]]
    assert values == [400.0, 400.0, "400.00"]


def test_counts_filters_and_an_expected_value(put, run: Run) -> None:
    _deliverables(put)

    assert run(
        "cross_file_consistent",
        sources=[{"path": "out/summary.json", "json_path": "$.count"}, {"path": "out/invoices.csv", "count": "rows"}],
        expected=3,
    ).passed
    assert run(
        "cross_file_consistent",
        sources=[
            {"path": "out/summary.json", "json_path": "$.paid"},
            {"path": "out/invoices.csv", "csv_column": "amount", "where": {"status": "paid"}},
        ],
    ).passed
    assert run(
        "cross_file_consistent",
        sources=[{"path": "out/invoices.csv", "csv_column": "invoice", "aggregate": "distinct_count"}],
        expected=3,
    ).passed


def test_a_disagreement_names_both_sides(put, run: Run) -> None:
    _deliverables(put, total=410.0)

    result = run(
        "cross_file_consistent",
        sources=[
            {"path": "out/invoices.csv", "csv_column": "amount"},
            {"path": "out/summary.json", "json_path": "$.total"},
        ],
    )

    assert not result.passed
    assert result.evidence["summary"] == "out/summary.json $.total = 410.0 ≠ 400.0"


def test_an_unreadable_source_fails_and_a_bad_spec_errors(put, run: Run) -> None:
    _deliverables(put)

    missing = run(
        "cross_file_consistent",
        sources=[
            {"path": "out/summary.json", "json_path": "$.total"},
            {"path": "out/gone.csv", "csv_column": "amount"},
        ],
    )
    assert missing.status == "failed" and "does not exist" in missing.evidence["summary"]
    not_numbers = run(
        "cross_file_consistent",
        sources=[
            {"path": "out/invoices.csv", "csv_column": "status"},
            {"path": "out/summary.json", "json_path": "$.total"},
        ],
    )
    assert not_numbers.status == "failed" and "is not a number" in not_numbers.evidence["summary"]
    assert (
        run("cross_file_consistent", sources=[{"path": "out/summary.json", "json_path": "$.total"}]).error is not None
    )
    assert run("cross_file_consistent", sources=[{"path": "a"}, {"path": "b"}]).error is not None
    assert (
        run("cross_file_consistent", sources=[{"json_path": "$.a"}, {"path": "b", "count": "rows"}]).error is not None
    )


CHECK_MODULE = """
import json

def totals_match(workspace, args):
    summary = json.loads((workspace / "out/summary.json").read_text())
    return summary["total"] == args["total"], {"seen": summary["total"]}

def asserting(workspace, args):
    assert (workspace / "out/missing.txt").exists(), "the audit trail is missing"
    return True

def verdict_mapping(workspace, args):
    return {"passed": False, "evidence": {"why": "nope"}}

def nonsense(workspace, args):
    return "maybe"
"""


def test_a_python_check_shipped_with_the_verifier(put, run: Run, tmp_path: Path) -> None:
    _deliverables(put)
    (tmp_path / "tests" / "task_checks.py").write_text(CHECK_MODULE)

    good = run("python", module="task_checks.py", function="totals_match", args={"total": 400.0})
    assert good.passed and good.evidence["seen"] == 400.0
    bad = run("python", module="task_checks.py", function="totals_match", args={"total": 1})
    assert bad.status == "failed"
    mapping = run("python", module="task_checks.py", function="verdict_mapping")
    assert mapping.status == "failed" and mapping.evidence["why"] == "nope"


def test_an_exception_in_the_function_is_a_failure_with_its_traceback(put, run: Run, tmp_path: Path) -> None:
    _deliverables(put)
    (tmp_path / "tests" / "task_checks.py").write_text(CHECK_MODULE)

    result = run("python", module="task_checks.py", function="asserting")

    assert result.status == "failed"
    assert result.evidence["summary"] == "AssertionError: the audit trail is missing"
    assert "asserting" in result.evidence["traceback"]


def test_inline_source_and_spec_errors(put, run: Run, tmp_path: Path) -> None:
    _deliverables(put)
    (tmp_path / "tests" / "task_checks.py").write_text(CHECK_MODULE)

    assert run("python", source="def check(ws, args):\n    return (ws / 'out').is_dir()\n").passed
    assert run("python", module="task_checks.py", function="nonsense").error is not None
    assert run("python", module="task_checks.py", function="absent").error is not None
    assert run("python", module="nowhere.py").error is not None
    assert run("python").error is not None
    assert run("python", source="def check(:\n").error is not None
