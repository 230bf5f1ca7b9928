"""The bundled skills whose scripts need a package outside the standard library and the base image:
calendar-availability (the `icalendar` library) and junit-triage (the `xmlstarlet` tool).

Their pure parts are tested everywhere; the runs on the bundled examples need the package and are
skipped where the host lacks it (the sandbox test `test_bundled_package_skills` runs them for real,
in a task image that declares it)."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from datetime import date, datetime, time
from pathlib import Path
from types import ModuleType
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from example_scripts import import_script
import yaml

from skill2env.home import EXAMPLE_SKILLS

SCRIPTS = {"calendar-availability": "ics_availability.py", "junit-triage": "junit_triage.py"}
PACKAGES = {"calendar-availability": {"icalendar", "dateutil"}, "junit-triage": set()}
HAS_ICALENDAR = importlib.util.find_spec("icalendar") is not None
HAS_XMLSTARLET = shutil.which("xmlstarlet") is not None
needs_icalendar = pytest.mark.skipif(not HAS_ICALENDAR, reason="icalendar is not installed on this host")
needs_xmlstarlet = pytest.mark.skipif(not HAS_XMLSTARLET, reason="xmlstarlet is not installed on this host")
CAL = EXAMPLE_SKILLS / "calendar-availability" / "examples"
CI = EXAMPLE_SKILLS / "junit-triage" / "examples" / "ci"
RUN_ORDER = [CI / "shard-1.xml", CI / "shard-2.xml", CI / "rerun-1.xml"]
BERLIN = ZoneInfo("Europe/Berlin")


def script_path(skill: str) -> Path:
    return EXAMPLE_SKILLS / skill / "scripts" / SCRIPTS[skill]


def run(skill: str, *args: Any, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(script_path(skill)), *map(str, args)], capture_output=True,
                          text=True, timeout=120, check=False,
                          env=env or {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})  # fmt: skip


def load(skill: str) -> ModuleType:
    return import_script(script_path(skill), f"_package_skill_{skill.replace('-', '_')}")


def assert_input_error(proc: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr, proc.stderr
    for fragment in fragments:
        assert fragment in proc.stderr, proc.stderr


# ---------------------------------------------------------------- structure


@pytest.mark.parametrize("skill", sorted(SCRIPTS))
def test_skill_md_has_the_sections_and_names_the_package(skill: str) -> None:
    text = (EXAMPLE_SKILLS / skill / "SKILL.md").read_text(encoding="utf-8")
    end = text.index("\n---\n", 4)
    meta, body = yaml.safe_load(text[4:end]), text[end + 5 :]
    assert meta["name"] == skill and meta["license"] == "Apache-2.0" and "Use when" in meta["description"]
    assert ("icalendar" if skill == "calendar-availability" else "xmlstarlet") in meta["compatibility"]
    for heading in ("## When to use", "## Workflow", "## Pitfalls", "## Output contract", "## Example"):
        assert heading in body, heading
    assert f"scripts/{SCRIPTS[skill]}" in body
    total = sum(p.stat().st_size for p in (EXAMPLE_SKILLS / skill).rglob("*") if p.is_file())
    assert total <= 40 * 1024 and not list((EXAMPLE_SKILLS / skill).rglob("__pycache__"))


@pytest.mark.parametrize("skill", sorted(SCRIPTS))
def test_script_imports_only_the_standard_library_and_its_package(skill: str) -> None:
    source = script_path(skill).read_text(encoding="utf-8")
    assert source.startswith("#!/usr/bin/env python3\n") and 'if __name__ == "__main__":' in source
    assert "shell=True" not in source and "argparse" in source
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            roots = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            roots = [(node.module or "").split(".")[0]]
        else:
            continue
        for root in roots:
            assert root in sys.stdlib_module_names or root in PACKAGES[skill], root
            assert root not in {"socket", "http", "urllib", "urllib3"}, root


@pytest.mark.parametrize("skill", sorted(SCRIPTS))
def test_help_documents_the_exit_codes(skill: str) -> None:
    proc = run(skill, "--help")
    assert proc.returncode == 0 and proc.stdout.startswith("usage:") and "Exit codes" in proc.stdout


# ---------------------------------------------------------------- junit-triage


def test_junit_final_outcomes_follow_run_order() -> None:
    mod = load("junit-triage")
    rows = mod.parse_cases("s\tc\tt_a\t0.1\tfailed\tboom\ns\tc\tt_b\t0.2\tpassed\t\ns\td\tt_a\t0.1\tskipped\tlater\n",
                           "one.xml")  # fmt: skip
    rows += mod.parse_cases("r\tc\tt_a\t0.1\tpassed\t\nr\tc\tt_b\t0.3\terror\tcrash\n", "rerun.xml")
    assert rows[0] == {"report": "one.xml", "suite": "s", "classname": "c", "name": "t_a", "time": "0.1",
                       "outcome": "failed", "message": "boom"}  # fmt: skip
    final = mod.final_outcomes(rows)
    assert list(final) == ["c::t_a", "c::t_b", "d::t_a"], "a test is classname::name"
    assert final["c::t_a"] == {"outcome": "passed", "message": "", "report": "rerun.xml", "runs": 2, "flaky": True}
    assert final["c::t_b"]["outcome"] == "error" and not final["c::t_b"]["flaky"]
    assert final["d::t_a"]["outcome"] == "skipped"
    backwards = mod.final_outcomes(rows[3:] + rows[:3])
    assert backwards["c::t_a"]["outcome"] == "failed" and not backwards["c::t_a"]["flaky"]


def test_junit_summary_counts_cases_not_headers() -> None:
    mod = load("junit-triage")
    cases = mod.parse_cases("s\tc\tt1\t0\tpassed\t\ns\tc\tt2\t0\terror\tx\ns\tc\tt3\t0\tskipped\ty\n", "a.xml")
    summary = mod.summarise([("a.xml", cases, {"tests": 3, "failures": 0, "errors": 0, "skipped": 1})])
    assert summary["final"] == {"passed": 1, "failed": 0, "error": 1, "skipped": 1}
    assert summary["not_passing"] == [{"test": "c::t2", "outcome": "error", "message": "x", "report": "a.xml"}]
    declared, counted = {"tests": 3, "failures": 0, "errors": 0, "skipped": 1}, {"tests": 3, "failures": 0}
    counted |= {"errors": 1, "skipped": 1}
    assert summary["declared_mismatch"] == [{"report": "a.xml", "declared": declared, "counted": counted}]


def test_junit_without_xmlstarlet_exits_3(tmp_path: Path) -> None:
    env = {"PATH": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = run("junit-triage", *RUN_ORDER, env=env)
    assert proc.returncode == 3 and "xmlstarlet is not installed" in proc.stderr, proc.stderr


@needs_xmlstarlet
def test_junit_sample(tmp_path: Path) -> None:
    cases = tmp_path / "cases.tsv"
    proc = run("junit-triage", *RUN_ORDER, "--cases", cases, "--json")
    assert proc.returncode == 1, proc.stderr
    summary = json.loads(proc.stdout)
    assert (summary["reports"], summary["testcases"], summary["tests"]) == (3, 13, 10)
    assert summary["final"] == {"passed": 7, "failed": 1, "error": 1, "skipped": 1}
    assert summary["flaky"] == ["tests.api.test_auth::test_token_refresh"]
    assert [(e["test"], e["message"]) for e in summary["not_passing"]] == [
        ("tests.api.test_orders::test_refund_order", "expected 200, got 500"),
        ("tests.db.test_migrations::test_downgrade", "OperationalError: database is locked"),
    ]
    assert [m["report"] for m in summary["declared_mismatch"]] == [str(CI / "shard-2.xml")]
    lines = cases.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == ["report", "suite", "classname", "name", "time", "outcome", "message"]
    assert len(lines) == 14 and lines[-1].split("\t")[1:6] == [
        "rerun of failed tests", "tests.db.test_migrations", "test_downgrade", "1.050", "error"]  # fmt: skip
    assert lines[-4].split("\t")[2:4] == ["tests.db.test_users", "test_login"]
    glob_order = run("junit-triage", *sorted(RUN_ORDER), "--json")
    assert json.loads(glob_order.stdout)["flaky"] == [], "a name-sorted glob runs the rerun first"
    text = run("junit-triage", *RUN_ORDER).stdout
    assert "final: passed: 7  failed: 1  error: 1  skipped: 1" in text
    assert "FLAKY tests.api.test_auth::test_token_refresh" in text


@needs_xmlstarlet
def test_junit_errors(tmp_path: Path) -> None:
    assert_input_error(run("junit-triage", tmp_path / "nope.xml"), "report not found")
    broken = tmp_path / "broken.xml"
    broken.write_text("<testsuite><testcase name='a'></testsuite>", encoding="utf-8")
    assert_input_error(run("junit-triage", broken), "not well-formed XML")
    empty = tmp_path / "empty.xml"
    empty.write_text("<testsuites/>", encoding="utf-8")
    assert_input_error(run("junit-triage", empty), "no <testcase> elements")
    green = tmp_path / "green.xml"
    green.write_text('<testsuite name="s"><testcase classname="c" name="t"/></testsuite>', encoding="utf-8")
    assert run("junit-triage", green).returncode == 0


# ---------------------------------------------------------------- calendar-availability


def _busy(start: str, end: str, busy: bool = True) -> dict[str, Any]:
    return {"start": datetime.fromisoformat(start), "end": datetime.fromisoformat(end), "busy": busy,
            "calendar": "c.ics", "summary": start}  # fmt: skip


def test_calendar_free_slots_and_conflicts() -> None:
    mod = load("calendar-availability")
    events = [_busy("2024-06-10T09:30+02:00", "2024-06-10T10:00+02:00"),
              _busy("2024-06-10T09:45+02:00", "2024-06-10T11:00+02:00"),
              _busy("2024-06-10T07:00+00:00", "2024-06-10T17:00+00:00", busy=False),
              _busy("2024-06-10T12:00Z", "2024-06-10T13:00Z")]  # fmt: skip
    hours = mod.parse_hours("09:00-17:00")
    slots = mod.free_slots(events, [date(2024, 6, 10), date(2024, 6, 11)], hours, BERLIN, 60)
    assert [(a.astimezone(BERLIN).isoformat(), b.astimezone(BERLIN).isoformat()) for a, b in slots] == [
        ("2024-06-10T11:00:00+02:00", "2024-06-10T14:00:00+02:00"),
        ("2024-06-10T15:00:00+02:00", "2024-06-10T17:00:00+02:00"),
        ("2024-06-11T09:00:00+02:00", "2024-06-11T17:00:00+02:00"),
    ]
    assert [(a["summary"], b["summary"]) for a, b in mod.conflicts(events)] == [
        ("2024-06-10T09:30+02:00", "2024-06-10T09:45+02:00")]  # fmt: skip
    assert mod.as_datetime(date(2024, 6, 12), BERLIN) == datetime(2024, 6, 12, tzinfo=BERLIN)
    assert mod.as_datetime(datetime(2024, 6, 11, 9), BERLIN).utcoffset().total_seconds() == 7200
    assert hours == (time(9), time(17))
    with pytest.raises(mod.InputError):
        mod.parse_hours("17:00-09:00")


def test_calendar_without_icalendar_exits_3(tmp_path: Path) -> None:
    # -I ignores the environment and user site, so the library stays out even where it is installed
    proc = subprocess.run([sys.executable, "-I", "-S", str(script_path("calendar-availability")), str(CAL / "ana.ics"),
                           "--start", "2024-06-10", "--end", "2024-06-14"], capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip
    assert proc.returncode == 3 and "icalendar library is not installed" in proc.stderr, proc.stderr


@needs_icalendar
def test_calendar_sample() -> None:
    window = ["--start", "2024-06-10", "--end", "2024-06-14", "--tz", "Europe/Berlin"]
    proc = run("calendar-availability", CAL / "ana.ics", CAL / "ben.ics", *window, "--free", "60", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert [(s["start"], s["minutes"]) for s in summary["free"]] == [
        ("2024-06-10T11:30+02:00", 150), ("2024-06-10T16:00+02:00", 60), ("2024-06-11T10:00+02:00", 300),
        ("2024-06-11T16:00+02:00", 60), ("2024-06-13T09:00+02:00", 180), ("2024-06-13T13:00+02:00", 60),
        ("2024-06-13T14:15+02:00", 165),
    ]  # fmt: skip
    events = {(e["summary"], e["start"]) for e in summary["events"]}
    assert ("Team standup (moved)", "2024-06-13T14:00+02:00") in events
    assert not any(s == "Team standup" and d.startswith(("2024-06-12", "2024-06-13")) for s, d in events)
    assert not any(s == "Quarterly review" for s, _ in events), "cancelled"
    assert ("1:1 with Ana", "2024-06-10T10:00+02:00") in events, "UTC read as UTC"
    assert ("Dentist", "2024-06-11T09:00+02:00") in events, "floating read in --tz"
    focus = next(e for e in summary["events"] if e["summary"] == "Focus time")
    assert focus["busy"] is False
    alone = json.loads(run("calendar-availability", CAL / "ana.ics", *window, "--json").stdout)
    assert alone["conflicts"] == []
    none = run("calendar-availability", CAL / "ana.ics", CAL / "ben.ics", *window, "--free", "400")
    assert none.returncode == 1


@needs_icalendar
def test_calendar_errors(tmp_path: Path) -> None:
    window = ["--start", "2024-06-10", "--end", "2024-06-14"]
    assert_input_error(run("calendar-availability", tmp_path / "none.ics", *window), "calendar not found")
    assert_input_error(run("calendar-availability", CAL / "ana.ics", *window, "--tz", "Mars/Olympus"), "unknown time")
    assert_input_error(run("calendar-availability", CAL / "ana.ics", "--start", "10.06.2024", "--end", "2024-06-14"),
                       "bad date")  # fmt: skip
    junk = tmp_path / "junk.ics"
    junk.write_text("not a calendar\n", encoding="utf-8")
    assert_input_error(run("calendar-availability", junk, *window), "not an iCalendar file")
