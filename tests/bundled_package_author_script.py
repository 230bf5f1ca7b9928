"""The scripted author and solver for the two bundled skills whose tasks need a package the base image
lacks: calendar-availability (the `icalendar` library, from PyPI) and junit-triage (`xmlstarlet`,
from Debian). Each reference solution runs the skill's own script, which needs the package, so the
oracle passes only where the build installed it.

* calendar: three people's .ics exports (Berlin times, UTC times, New York times); the first shared
  90-minute slot in the week of 2024-09-16 within 09:00-17:00 Berlin is Monday 12:00 (a cancelled
  review would push it, an unexpanded standup hides in a rule) and there are 4 such slots.
* junit: three shard reports and two reruns; in run order 15 distinct tests end with 1 failure,
  1 error, 1 skip and two flaky tests (a name-sorted glob runs the reruns first and loses them).
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path
from typing import Any

from llm_server import Scripted, json_answer, tool_calls

from skill2env.home import EXAMPLE_SKILLS
from skill2env.patterns.pool import seed_pool

CALENDAR, JUNIT = "calendar-availability", "junit-triage"
SKILLS = (CALENDAR, JUNIT)
PIP_PACKAGE = "icalendar==7.3.2"
APT_PACKAGE = "xmlstarlet"
PATTERNS = {
    CALENDAR: ("implicit_timezone", "allowed_time_windows", "scope_distractor"),
    JUNIT: ("distributed_evidence", "retroactive_correction", "claim_without_receipt"),
}
NOTE_MARK = {CALENDAR: "Checked against ana.ics, ben.ics and chen.ics", JUNIT: "Reports read in run order"}


def make_bundled_skills(root: Path) -> list[Path]:
    """The two bundled skills, copied to `root/bundled/<name>`."""
    targets = []
    for name in SKILLS:
        target = root / "bundled" / name
        shutil.copytree(EXAMPLE_SKILLS / name, target)
        targets.append(target)
    return targets


# --- calendar-availability ----------------------------------------------------------------------


def _ics(name: str, *events: list[str]) -> str:
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", f"PRODID:-//example//{name}//EN"]
    for event in events:
        lines += ["BEGIN:VEVENT", *event, "END:VEVENT"]
    return "\r\n".join([*lines, "END:VCALENDAR"]) + "\r\n"


BERLIN, NEW_YORK = "TZID=Europe/Berlin", "TZID=America/New_York"
ANA = _ics(
    "ana",
    ["UID:standup@example.org", "SUMMARY:Team standup", f"DTSTART;{BERLIN}:20240902T093000",
     f"DTEND;{BERLIN}:20240902T094500", "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;UNTIL=20241031T235959Z",
     f"EXDATE;{BERLIN}:20240918T093000"],
    ["UID:standup@example.org", f"RECURRENCE-ID;{BERLIN}:20240919T093000", "SUMMARY:Team standup (moved)",
     f"DTSTART;{BERLIN}:20240919T163000", f"DTEND;{BERLIN}:20240919T164500"],
    ["UID:hiring@example.org", "SUMMARY:Hiring panel", f"DTSTART;{BERLIN}:20240916T100000",
     f"DTEND;{BERLIN}:20240916T120000"],
    ["UID:budget@example.org", "SUMMARY:Budget review", f"DTSTART;{BERLIN}:20240916T130000",
     f"DTEND;{BERLIN}:20240916T150000", "STATUS:CANCELLED"],
    ["UID:focus@example.org", "SUMMARY:Focus time", f"DTSTART;{BERLIN}:20240917T090000",
     f"DTEND;{BERLIN}:20240917T120000", "TRANSP:TRANSPARENT"],
)  # fmt: skip
BEN = _ics(
    "ben",
    ["UID:customer@example.org", "SUMMARY:Customer call", "DTSTART:20240916T090000Z", "DTEND:20240916T100000Z"],
    ["UID:ops@example.org", "SUMMARY:Ops review", "DTSTART:20240917T080000Z", "DTEND:20240917T093000Z"],
    ["UID:conference@example.org", "SUMMARY:Conference", "DTSTART;VALUE=DATE:20240918",
     "DTEND;VALUE=DATE:20240919"],
    ["UID:deploy@example.org", "SUMMARY:Deploy window", "DTSTART:20240919T070000Z", "DTEND:20240919T090000Z"],
)  # fmt: skip
CHEN = _ics(
    "chen",
    ["UID:weekly@example.org", "SUMMARY:Weekly sync", f"DTSTART;{NEW_YORK}:20240903T080000",
     f"DTEND;{NEW_YORK}:20240903T090000", "RRULE:FREQ=WEEKLY;BYDAY=TU"],
    ["UID:planning@example.org", "SUMMARY:Planning", f"DTSTART;{NEW_YORK}:20240916T090000",
     f"DTEND;{NEW_YORK}:20240916T103000"],
    ["UID:flight@example.org", "SUMMARY:Flight to Berlin", f"DTSTART;{NEW_YORK}:20240920T020000",
     f"DTEND;{NEW_YORK}:20240920T120000"],
)  # fmt: skip

CALENDAR_SOLVE_SH = r"""#!/usr/bin/env bash
# Reference solution: the skill's script expands the three calendars (rules, exceptions, cancelled and
# free events, three kinds of time) over the week in Berlin time and lists the shared 90-minute gaps.
set -euo pipefail
cd "${SKILL2ENV_WORKSPACE:-/workspace}"
mkdir -p report
SKILL=/skills/calendar-availability

# --- step: first-shared-slot ---
python3 "$SKILL/scripts/ics_availability.py" calendars/ana.ics calendars/ben.ics calendars/chen.ics \
    --start 2024-09-16 --end 2024-09-20 --tz Europe/Berlin --hours 09:00-17:00 --free 90 --json \
    > report/availability.json
python3 - <<'PY'
import json
from pathlib import Path

free = json.loads(Path("report/availability.json").read_text())["free"]
Path("report/slot.json").write_text(json.dumps({"first_slot_start": free[0]["start"]}, indent=2) + "\n")
PY

# --- step: slot-count-and-note ---
python3 - <<'PY'
import json
from pathlib import Path

free = json.loads(Path("report/availability.json").read_text())["free"]
slot = json.loads(Path("report/slot.json").read_text())
slot["slots_90min"] = len(free)
Path("report/slot.json").write_text(json.dumps(slot, indent=2) + "\n")
lines = ["# Sync slot", "", "Checked against ana.ics, ben.ics and chen.ics (Europe/Berlin, 09:00-17:00).", ""]
lines += [f"* {s['start']} - {s['end']} ({s['minutes']} min)" for s in free]
Path("report/note.md").write_text("\n".join(lines) + "\n")
PY
"""

CALENDAR_INSTRUCTION = """# Find a 90-minute slot for Ana, Ben and Chen

The `calendar-availability` skill is available at `/skills/calendar-availability`; read its `SKILL.md` and
follow its workflow.

Ana, Ben and Chen need a 90-minute working session in the week of Monday 2024-09-16 (Monday to Friday).
Their calendar exports are in `/workspace/calendars/` (`ana.ics`, `ben.ics`, `chen.ics`). The session must
fall within 09:00-17:00 Europe/Berlin time and must not overlap anything that blocks anyone's time.

Write, under `/workspace/report/`:

1. `report/slot.json` with
   * `first_slot_start`: the start of the earliest free window of at least 90 minutes shared by all three,
     as ISO 8601 local Berlin time with its offset, minute precision (like `2024-01-08T09:15+01:00`),
   * `slots_90min`: how many separate free windows of at least 90 minutes they share that week.
2. `report/note.md`: a short note listing the windows found and which calendars were checked.

Do not modify the calendars.
"""


def _fact(fact_id: str, level: str, statement: str, value: Any, location: str | None = None,
          derived_from: tuple[str, ...] = ()) -> dict[str, Any]:  # fmt: skip
    return {"id": fact_id, "statement": statement, "value": value, "level": level, "location": location,
            "derived_from": list(derived_from)}  # fmt: skip


def _json_item(item_id: str, weight: float, description: str, path: str, values: dict[str, Any]) -> dict[str, Any]:
    check = {"check": "json_path_equals", "params": {"path": path, "values": values}}
    return {"id": item_id, "description": description, "weight": weight, "method": "deterministic",
            "target_files": [path], "check": check}  # fmt: skip


def _judge_item(item_id: str, weight: float, path: str, instruction: str) -> dict[str, Any]:
    return {"id": item_id, "description": "The note explains the result", "weight": weight, "method": "llm_judge",
            "target_files": [path], "judge_instruction": instruction}  # fmt: skip


_CALENDAR_BLUEPRINT: dict[str, Any] = {
    "task_name": "shared-slot-across-zones",
    "goal": "Find when three people in different time zones can all meet for 90 minutes in one working week, "
    "from their calendar exports.",
    "challenges": [
        {"pattern_id": "implicit_timezone", "intensity": 1,
         "form": "Ana's events are in Berlin time, Ben's in UTC (Z) and Chen's in New York time; Ben's 09:00Z "
         "customer call is 11:00 in Berlin.", "facts": ["ben_customer_call", "chen_planning", "first_slot"]},
        {"pattern_id": "allowed_time_windows", "intensity": 1,
         "form": "Only 09:00-17:00 Berlin on weekdays counts; Chen's flight blocks Friday and Ben's all-day "
         "conference blocks Wednesday.", "facts": ["working_hours", "slot_count"]},
        {"pattern_id": "scope_distractor", "intensity": 1,
         "form": "A cancelled budget review and a transparent focus block are in the files but block nothing; "
         "the standup is a rule with a skipped and a moved instance.",
         "facts": ["cancelled_review", "focus_block", "first_slot"]},
    ],
    "facts": [
        _fact("week", "stated", "The week to plan", "2024-09-16"),
        _fact("working_hours", "stated", "The allowed hours", "09:00-17:00 Europe/Berlin"),
        _fact("ben_customer_call", "discoverable", "Ben's customer call in UTC", "20240916T090000Z",
              "calendars/ben.ics"),
        _fact("chen_planning", "discoverable", "Chen's planning meeting, New York time", "20240916T090000",
              "calendars/chen.ics"),
        _fact("cancelled_review", "discoverable", "The budget review is cancelled", "STATUS:CANCELLED",
              "calendars/ana.ics"),
        _fact("focus_block", "discoverable", "Ana's focus time is free time", "TRANSP:TRANSPARENT",
              "calendars/ana.ics"),
        _fact("first_slot", "inferable", "The earliest shared 90-minute window starts", "2024-09-16T12:00+02:00",
              derived_from=("ben_customer_call", "chen_planning", "cancelled_review")),
        _fact("slot_count", "author_only", "Shared windows of at least 90 minutes that week", 4,
              derived_from=("working_hours", "first_slot")),
    ],
    "derivations": [
        {"result": "first_slot", "from_facts": ["ben_customer_call", "chen_planning", "cancelled_review"],
         "reasoning": "Monday is busy until 12:00 Berlin (hiring panel, Ben's 11:00 call); Chen's planning is "
         "15:00-16:30 Berlin; the cancelled 13:00 review blocks nothing, so 12:00-15:00 is free"},
        {"result": "slot_count", "from_facts": ["working_hours", "first_slot"],
         "reasoning": "Monday 12:00-15:00, Tuesday 11:30-14:00 and 15:00-17:00, Thursday 11:00-16:30"},
    ],
    "deliverables": [
        {"path": "report/slot.json", "format": "json", "description": "The first shared slot and the count"},
        {"path": "report/note.md", "format": "md", "description": "The windows found and the calendars checked"},
    ],
    "acceptance_criteria": [
        {"id": "ac-first", "description": "The earliest shared window is found", "rubric_item": "first-slot"},
        {"id": "ac-count", "description": "Every shared window is counted", "rubric_item": "slot-count"},
        {"id": "ac-note", "description": "The note lists the windows", "rubric_item": "slot-note"},
    ],
    "rubric": {
        "summary": "The first shared 90-minute window, the number of such windows, and the note.",
        "items": [
            _json_item("first-slot", 0.4, "slot.json has the earliest shared window", "report/slot.json",
                       {"$.first_slot_start": "2024-09-16T12:00+02:00"}),
            _json_item("slot-count", 0.4, "slot.json counts the shared windows", "report/slot.json",
                       {"$.slots_90min": 4}),
            _judge_item("slot-note", 0.2, "report/note.md", "Score 1 if the note lists the shared windows in Berlin "
                        "time and names the three calendars checked; 0 otherwise."),
        ],
    },
}  # fmt: skip


# --- junit-triage -------------------------------------------------------------------------------


def _case(classname: str, name: str, outcome: str = "passed", message: str = "") -> str:
    head = f'<testcase classname="{classname}" name="{name}" time="0.5"'
    if outcome == "passed":
        return f"{head}/>"
    tag = {"failed": "failure", "error": "error", "skipped": "skipped"}[outcome]
    return f'{head}>\n      <{tag} message="{message}"/>\n    </testcase>'


def _suite(name: str, cases: list[str], declared: tuple[int, int, int, int]) -> str:
    tests, failures, errors, skipped = declared
    body = "\n    ".join(cases)
    return (f'<testsuite name="{name}" tests="{tests}" failures="{failures}" errors="{errors}" '
            f'skipped="{skipped}">\n    {body}\n  </testsuite>')  # fmt: skip


def _report(*suites: str, root: str = "testsuites") -> str:
    inner = "\n  ".join(suites)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<{root} name="ci-4812">\n  {inner}\n</{root}>\n'


ROUNDING = "0.30000000000000004 != 0.3"
INV, SES, CSV_, JSN, IDX = (
    "billing.test_invoice", "auth.test_session", "export.test_csv", "export.test_json", "search.test_index"
)  # fmt: skip
REPORTS = {
    "reports/shard-a.xml": _report(
        _suite(INV, [_case(INV, "test_totals"), _case(INV, "test_rounding", "failed", ROUNDING),
                     _case(INV, "test_currency"), _case(INV, "test_pdf", "skipped", "no fonts on runner")],
               (4, 1, 0, 1)),
        _suite(SES, [_case(SES, "test_login"), _case(SES, "test_logout"),
                     _case(SES, "test_expiry", "failed", "session still valid after timeout")], (3, 1, 0, 0)),
    ),
    "reports/shard-b.xml": _report(
        _suite(CSV_, [_case(CSV_, "test_header"), _case(CSV_, "test_quotes", "error", "UnicodeDecodeError in fixture"),
                      _case(CSV_, "test_large")], (3, 0, 0, 0)),
        _suite(JSN, [_case(JSN, "test_schema"), _case(JSN, "test_login")], (2, 0, 0, 0)),
        root="testsuite",
    ),
    "reports/shard-c.xml": _report(
        _suite(IDX, [_case(IDX, "test_build"), _case(IDX, "test_query", "failed", "timeout after 30s"),
                     _case(IDX, "test_ranking")], (3, 1, 0, 0)),
    ),
    "reports/rerun-1.xml": _report(
        _suite("rerun 1", [_case(INV, "test_rounding", "failed", ROUNDING), _case(SES, "test_expiry"),
                           _case(CSV_, "test_quotes", "error", "UnicodeDecodeError in fixture"),
                           _case(IDX, "test_query", "failed", "timeout after 30s")], (4, 2, 1, 0)),
    ),
    "reports/rerun-2.xml": _report(
        _suite("rerun 2", [_case(IDX, "test_query"), _case(INV, "test_rounding", "failed", ROUNDING)],
               (2, 1, 0, 0)),
    ),
}  # fmt: skip
RUN_ORDER = ["shard-a.xml", "shard-b.xml", "shard-c.xml", "rerun-1.xml", "rerun-2.xml"]
FLAKY = [f"{SES}::test_expiry", f"{IDX}::test_query"]
STILL_FAILING = [f"{INV}::test_rounding", f"{CSV_}::test_quotes"]

JUNIT_SOLVE_SH = r"""#!/usr/bin/env bash
# Reference solution: the skill's script reads the reports in run order (shards, then each rerun in turn,
# as ci/run.txt lists them), so a rerun's outcome replaces the earlier one.
set -euo pipefail
cd "${SKILL2ENV_WORKSPACE:-/workspace}"
mkdir -p report
SKILL=/skills/junit-triage

# --- step: counts ---
mapfile -t ORDERED < <(sed 's#^#reports/#' ci/run.txt)
python3 "$SKILL/scripts/junit_triage.py" "${ORDERED[@]}" --json > report/junit.json || [ $? -eq 1 ]
python3 - <<'PY'
import json
from pathlib import Path

summary = json.loads(Path("report/junit.json").read_text())
triage = {"tests": summary["tests"], "final_failed": summary["final"]["failed"],
          "final_errors": summary["final"]["error"]}
Path("report/triage.json").write_text(json.dumps(triage, indent=2) + "\n")
PY

# --- step: flaky-and-failing ---
python3 - <<'PY'
import json
from pathlib import Path

summary = json.loads(Path("report/junit.json").read_text())
triage = json.loads(Path("report/triage.json").read_text())
triage["flaky"] = sorted(summary["flaky"])
triage["still_failing"] = sorted(entry["test"] for entry in summary["not_passing"])
Path("report/triage.json").write_text(json.dumps(triage, indent=2) + "\n")
note = ["# CI 4812 triage", "", "Reports read in run order: shards, then rerun-1, then rerun-2.", ""]
note += [f"* still failing: {t['test']} ({t['outcome']}): {t['message']}" for t in summary["not_passing"]]
note += [f"* flaky: {name}" for name in triage["flaky"]]
note += [f"* {m['report']} declares {m['declared']} but holds {m['counted']}" for m in summary["declared_mismatch"]]
Path("report/triage.md").write_text("\n".join(note) + "\n")
PY
"""

JUNIT_INSTRUCTION = """# What really failed in CI run 4812?

The `junit-triage` skill is available at `/skills/junit-triage`; read its `SKILL.md` and follow its workflow.

CI run 4812 went red. Its JUnit XML reports are in `/workspace/reports/`: three shards ran first, then the
failed tests were re-run twice. `/workspace/ci/run.txt` lists the report files in the order they were written.
A test is identified by its class name and test name (`classname::name`).

Write, under `/workspace/report/`:

1. `report/triage.json` with
   * `tests`: the number of distinct tests of the run,
   * `final_failed` and `final_errors`: how many tests ended (after the reruns) with a failure, and with an error,
   * `flaky`: the tests (`classname::name`, sorted) that failed or errored and then passed on a rerun,
   * `still_failing`: the tests (`classname::name`, sorted) whose last run failed or errored.
2. `report/triage.md`: a short note for the team with the tests still failing (with their messages), the flaky
   ones, and any report whose header totals disagree with its test cases.

Do not modify the reports.
"""

_JUNIT_BLUEPRINT: dict[str, Any] = {
    "task_name": "ci-run-final-outcomes",
    "goal": "Tell the team which tests of a sharded, twice re-run CI run really fail, which are flaky, and "
    "which report headers are wrong, from the JUnit XML files.",
    "challenges": [
        {"pattern_id": "distributed_evidence", "intensity": 1,
         "form": "The run is spread over three shard reports and two reruns; the distinct tests only add up "
         "over all five files.", "facts": ["run_order", "distinct_tests"]},
        {"pattern_id": "retroactive_correction", "intensity": 1,
         "form": "Reruns replace earlier outcomes, in run order: rerun-2 passes test_query, which failed twice; "
         "a name-sorted glob reads the reruns before the shards and undoes that.",
         "facts": ["run_order", "query_rerun", "flaky_tests"]},
        {"pattern_id": "claim_without_receipt", "intensity": 1,
         "form": "shard-b.xml's export.test_csv suite declares errors=\"0\" but one of its cases has an error.",
         "facts": ["declared_errors", "still_failing"]},
    ],
    "facts": [
        _fact("run_id", "stated", "The CI run", "4812"),
        _fact("run_order", "discoverable", "The order the reports were written", "rerun-1.xml", "ci/run.txt"),
        _fact("query_rerun", "discoverable", "test_query passes in the second rerun", "test_query",
              "reports/rerun-2.xml"),
        _fact("declared_errors", "discoverable", "The export.test_csv suite declares no errors", 'errors="0"',
              "reports/shard-b.xml"),
        _fact("distinct_tests", "author_only", "Distinct classname::name tests", 15, derived_from=("run_order",)),
        _fact("flaky_tests", "inferable", "The flaky tests", ", ".join(FLAKY),
              derived_from=("run_order", "query_rerun")),
        _fact("still_failing", "inferable", "The tests still failing", ", ".join(STILL_FAILING),
              derived_from=("run_order", "declared_errors")),
    ],
    "derivations": [
        {"result": "distinct_tests", "from_facts": ["run_order"],
         "reasoning": "4 + 3 + 3 + 2 + 3 tests in the shards; reruns add none; test_login exists in two classes"},
        {"result": "flaky_tests", "from_facts": ["run_order", "query_rerun"],
         "reasoning": "test_expiry passes in rerun-1, test_query in rerun-2, both after failing"},
        {"result": "still_failing", "from_facts": ["run_order", "declared_errors"],
         "reasoning": "test_rounding fails in every run; test_quotes errors in its shard and in rerun-1"},
    ],
    "deliverables": [
        {"path": "report/triage.json", "format": "json", "description": "Final counts, flaky and failing tests"},
        {"path": "report/triage.md", "format": "md", "description": "Note for the team"},
    ],
    "acceptance_criteria": [
        {"id": "ac-counts", "description": "Tests and final failures are counted", "rubric_item": "final-counts"},
        {"id": "ac-flaky", "description": "The flaky tests are named", "rubric_item": "flaky-tests"},
        {"id": "ac-failing", "description": "The tests still failing are named", "rubric_item": "failing-tests"},
        {"id": "ac-note", "description": "The note reports it", "rubric_item": "triage-note"},
    ],
    "rubric": {
        "summary": "Distinct tests and final failures, the flaky and the failing tests, and the note.",
        "items": [
            _json_item("final-counts", 0.3, "triage.json counts the tests and final failures", "report/triage.json",
                       {"$.tests": 15, "$.final_failed": 1, "$.final_errors": 1}),
            _json_item("flaky-tests", 0.3, "triage.json names the flaky tests", "report/triage.json",
                       {"$.flaky": FLAKY}),
            _json_item("failing-tests", 0.2, "triage.json names the tests still failing", "report/triage.json",
                       {"$.still_failing": STILL_FAILING}),
            _judge_item("triage-note", 0.2, "report/triage.md", "Score 1 if the note names the tests still "
                        "failing with their messages and the flaky tests, and says the reports were read in run "
                        "order; 0 otherwise."),
        ],
    },
}  # fmt: skip


# --- answers ------------------------------------------------------------------------------------


def blueprint_answer(skill: str) -> dict[str, Any]:
    """Step 1 for `skill` (a fresh copy each call)."""
    return copy.deepcopy(_CALENDAR_BLUEPRINT if skill == CALENDAR else _JUNIT_BLUEPRINT)


def build_answer(skill: str, *, declare: bool = True) -> dict[str, Any]:
    """Step 2 for `skill`; `declare=False` leaves the package out of the declarations."""
    if skill == CALENDAR:
        files = [{"path": f"calendars/{name}.ics", "content": text}
                 for name, text in (("ana", ANA), ("ben", BEN), ("chen", CHEN))]  # fmt: skip
        return {"instruction": CALENDAR_INSTRUCTION, "files": files, "solve_sh": CALENDAR_SOLVE_SH,
                "apt_packages": [], "pip_packages": [PIP_PACKAGE] if declare else [], "verifier_files": []}  # fmt: skip
    files = [{"path": path, "content": text} for path, text in REPORTS.items()]
    files.append({"path": "ci/run.txt", "content": "\n".join(RUN_ORDER) + "\n"})
    return {"instruction": JUNIT_INSTRUCTION, "files": files, "solve_sh": JUNIT_SOLVE_SH,
            "apt_packages": [APT_PACKAGE] if declare else [], "pip_packages": [], "verifier_files": []}  # fmt: skip


TASK_SKILL = {_CALENDAR_BLUEPRINT["task_name"]: CALENDAR, _JUNIT_BLUEPRINT["task_name"]: JUNIT}


def _skill_of(text: str) -> str:
    """Which of the two skills a request is about: the one whose mount it names first, else whose task,
    else whose name."""
    for marks in ({f"/skills/{skill}": skill for skill in SKILLS}, TASK_SKILL, {skill: skill for skill in SKILLS}):
        found = {skill: text.find(mark) for mark, skill in marks.items() if mark in text}
        if found:
            return min(found, key=lambda skill: found[skill])
    raise AssertionError(f"the request names neither skill: {text[:300]}")


def respond(request: dict[str, Any]) -> Scripted:
    """Author, solver and judge for both skills, every package declared."""
    return _respond(request, declare=True)


def respond_without_packages(request: dict[str, Any]) -> Scripted:
    """As `respond`, but the build answers declare no package."""
    return _respond(request, declare=False)


def _respond(request: dict[str, Any], *, declare: bool) -> Scripted:
    messages = request["messages"]
    everything = "\n".join(str(m.get("content") or "") for m in messages)
    if request.get("tools"):
        if not any(m["role"] == "assistant" for m in messages):
            solve = CALENDAR_SOLVE_SH if _skill_of(everything) == CALENDAR else JUNIT_SOLVE_SH
            return tool_calls(("bash", {"command": solve, "timeout": 120}))
        return tool_calls(("finish", {"message": "report written"}))
    system = messages[0]["content"] if messages[0]["role"] == "system" else ""
    user = "\n".join(str(m.get("content") or "") for m in messages if m["role"] == "user")
    if system.startswith("You are the judge"):
        if any(mark in user for mark in NOTE_MARK.values()):
            return json_answer({"score": 1.0, "evidence": [], "reasoning": "The note reports the result."})
        return json_answer({"score": 0.0, "evidence": [], "reasoning": "No note."})
    if system.startswith("You build one training task"):
        return json_answer(build_answer(_skill_of(user), declare=declare))
    if "Each environment is one task" in system:
        skill = _skill_of(user)
        pool = seed_pool()
        listed = [p for p in re.findall(r"^- ([a-z0-9_]+) — ", user, flags=re.MULTILINE) if p in pool]
        chosen = list(dict.fromkeys([p for p in PATTERNS[skill] if p in listed] + listed))[:4]
        return json_answer({"picks": [{"pattern_id": p, "rationale": f"{p} fits {skill}"} for p in chosen]})
    if "One environment is one task" in system:
        return json_answer(blueprint_answer(_skill_of(user)))
    raise AssertionError(f"no scripted answer for: {json.dumps(messages)[:300]}")
