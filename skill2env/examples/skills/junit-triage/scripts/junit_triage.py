#!/usr/bin/env python3
"""Summarise JUnit XML test reports with xmlstarlet: every test case, each test's final outcome
across reruns, the flaky tests, and the suites whose declared counts disagree with their cases.

Exit codes: 0 every test finally passed or was skipped, 1 some test finally failed or errored,
2 usage or input error (missing file, not well-formed XML, no test cases), 3 xmlstarlet missing.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

FIELDS = ("report", "suite", "classname", "name", "time", "outcome", "message")
OUTCOMES = ("passed", "failed", "error", "skipped")
NOT_PASSING = ("failed", "error")
COUNTS = ("tests", "failures", "errors", "skipped")
CASES_XPATH = [
    "-m", "//testcase",
    "-v", "ancestor::testsuite[1]/@name", "-o", "\t",
    "-v", "@classname", "-o", "\t",
    "-v", "@name", "-o", "\t",
    "-v", "@time", "-o", "\t",
    "--if", "failure", "-o", "failed",
    "--elif", "error", "-o", "error",
    "--elif", "skipped", "-o", "skipped",
    "--else", "-o", "passed", "--break", "-o", "\t",
    "-v", "normalize-space((failure|error|skipped)[1]/@message)", "-n",
]
# only the suites that hold test cases themselves: an enclosing suite's totals would count them twice
DECLARED_XPATH = ["-m", "//testsuite[testcase]",
                  "-v", "concat(@tests, '\t', @failures, '\t', @errors, '\t', @skipped)", "-n"]


class InputError(Exception):
    """A problem with the input: exit code 2."""


class ToolMissing(Exception):
    """xmlstarlet is not installed: exit code 3."""


def tool() -> str:
    found = shutil.which("xmlstarlet")
    if found is None:
        raise ToolMissing("xmlstarlet is not installed (Debian/Ubuntu: apt-get install xmlstarlet)")
    return found


def xmlstarlet(*args: str) -> str:
    done = subprocess.run([tool(), *args], capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):  # 1: the template matched nothing
        raise InputError(f"xmlstarlet {args[0]} failed: {done.stderr.strip()}")
    return done.stdout


def read_report(path: Path) -> tuple[list[dict[str, str]], dict[str, int]]:
    """The report's test cases and the counts its suites declare."""
    if not path.is_file():
        raise InputError(f"report not found: {path}")
    if subprocess.run([tool(), "val", "-q", "-w", str(path)], capture_output=True, check=False).returncode != 0:
        raise InputError(f"{path}: not well-formed XML")
    cases = parse_cases(xmlstarlet("sel", "-T", "-t", *CASES_XPATH, str(path)), str(path))
    if not cases:
        raise InputError(f"{path}: no <testcase> elements (is it a JUnit report?)")
    declared = dict.fromkeys(COUNTS, 0)
    for line in xmlstarlet("sel", "-T", "-t", *DECLARED_XPATH, str(path)).splitlines():
        for key, value in zip(COUNTS, line.split("\t"), strict=False):
            declared[key] += int(value) if value.strip().isdigit() else 0
    return cases, declared


def parse_cases(text: str, report: str) -> list[dict[str, str]]:
    """xmlstarlet's tab-separated lines as rows of FIELDS."""
    rows = []
    for line in text.splitlines():
        if not line.strip():
            continue
        values = line.split("\t")
        values += [""] * (len(FIELDS) - 1 - len(values))
        rows.append(dict(zip(FIELDS, [report, *values[: len(FIELDS) - 1]], strict=True)))
    return rows


def test_id(row: dict[str, str]) -> str:
    return f"{row['classname']}::{row['name']}" if row["classname"] else row["name"]


def counted(cases: list[dict[str, str]]) -> dict[str, int]:
    outcomes = [case["outcome"] for case in cases]
    return {"tests": len(cases), "failures": outcomes.count("failed"), "errors": outcomes.count("error"),
            "skipped": outcomes.count("skipped")}


def final_outcomes(cases: list[dict[str, str]]) -> dict[str, dict[str, object]]:
    """Per test (classname::name), in first-seen order: the outcome of its last run, how many runs it
    had, and whether it is flaky (failed or errored in a run, passed in the last one)."""
    tests: dict[str, dict[str, object]] = {}
    for case in cases:
        entry = tests.setdefault(test_id(case), {"outcomes": []})
        entry["outcomes"].append(case["outcome"])  # type: ignore[attr-defined]
        entry.update(outcome=case["outcome"], message=case["message"], report=case["report"])
    for entry in tests.values():
        seen: list[str] = entry.pop("outcomes")  # type: ignore[assignment]
        entry["runs"] = len(seen)
        entry["flaky"] = entry["outcome"] == "passed" and any(o in NOT_PASSING for o in seen)
    return tests


def summarise(reports: list[tuple[str, list[dict[str, str]], dict[str, int]]]) -> dict[str, object]:
    cases = [case for _, rows, _ in reports for case in rows]
    tests = final_outcomes(cases)
    final = {outcome: sum(1 for t in tests.values() if t["outcome"] == outcome) for outcome in OUTCOMES}
    mismatches = [{"report": name, "declared": declared, "counted": counted(rows)}
                  for name, rows, declared in reports if declared != counted(rows)]
    return {
        "reports": len(reports),
        "testcases": len(cases),
        "tests": len(tests),
        "final": final,
        "flaky": [name for name, t in tests.items() if t["flaky"]],
        "not_passing": [
            {"test": name, "outcome": t["outcome"], "message": t["message"], "report": t["report"]}
            for name, t in tests.items()
            if t["outcome"] in NOT_PASSING
        ],
        "declared_mismatch": mismatches,
    }


def print_text(summary: dict[str, object]) -> None:
    final = summary["final"]
    assert isinstance(final, dict)
    print(f"reports: {summary['reports']}  testcases: {summary['testcases']}  tests: {summary['tests']}")
    print("final: " + "  ".join(f"{k}: {v}" for k, v in final.items()))
    for name in summary["flaky"]:  # type: ignore[attr-defined]
        print(f"FLAKY {name}")
    for entry in summary["not_passing"]:  # type: ignore[attr-defined]
        print(f"{entry['outcome'].upper()} {entry['test']} ({entry['report']}): {entry['message']}")
    for entry in summary["declared_mismatch"]:  # type: ignore[attr-defined]
        print(f"MISMATCH {entry['report']}: declared {entry['declared']}, counted {entry['counted']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Summarise JUnit XML reports (xmlstarlet required). Give reports in run order: "
        "a later run of the same test (a rerun) decides its final outcome.",
        epilog="Exit codes: 0 all tests finally passed or skipped, 1 some test finally failed or errored, "
        "2 usage or input error, 3 xmlstarlet is not installed.",
    )
    parser.add_argument("reports", nargs="+", type=Path, help="JUnit XML files, earliest run first")
    parser.add_argument("--cases", type=Path, help="write every test case as TSV here")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    try:
        reports = []
        for path in args.reports:
            rows, declared = read_report(path)
            reports.append((str(path), rows, declared))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ToolMissing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    if args.cases:
        with args.cases.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, FIELDS, delimiter="\t", lineterminator="\n")
            writer.writeheader()
            writer.writerows(case for _, rows, _ in reports for case in rows)
    summary = summarise(reports)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print_text(summary)
    return 1 if summary["not_passing"] else 0


if __name__ == "__main__":
    sys.exit(main())
