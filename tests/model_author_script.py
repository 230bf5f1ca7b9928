"""A realistic author, scripted: the answers a model gives to draft and build a log-analysis task.

The task: checkout broke on 2024-05-14; from a log bundle (checkout-api logs in local time over
three rotations, one gzip-compressed; a worker log in UTC) and the day's deploys, find the first
checkout-api error in UTC, count ERROR/FATAL records, bucket them per UTC hour, and name the
deploy that caused it. Designed traps: local-time offsets (implicit_timezone), the first error in
a rotated file (distributed_evidence), a worker that failed earlier after its own deploy plus a
later hotfix (scope_distractor), ~1,700 records with a stack-trace line that contains ERROR
(needle_in_large_corpus: grep over-counts by one).

Numbers: first error 11:43:27+02:00 = 09:43:27 UTC; 159 error records (35 in 09:00 UTC, 124 in
10:00 UTC, one of them FATAL); suspect checkout-api v2.14.0, deployed 09:41:00Z.

The log files come from `GENERATOR` (run by the builder), `deploys.csv` is inline.
"""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from rows import skill_row

from skill2env.home import EXAMPLE_SKILLS
from skill2env.tasks.generator import GeneratorError, GeneratorLimits, collect_files

SKILL_PATH = "ops/log-analysis"
DOMAIN = "devops"
MOUNT = "/skills/log-analysis"
PATTERNS = ("implicit_timezone", "distributed_evidence", "scope_distractor", "needle_in_large_corpus")

GENERATOR = r'''"""Writes the incident bundle: checkout-api logs in local time (+02:00) over three rotations, the
worker log in UTC. Deterministic: one seeded generator, no clock."""
import gzip
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

rng = random.Random(514)
LOCAL = timezone(timedelta(hours=2))
DAY = datetime(2024, 5, 14, tzinfo=LOCAL)
ERROR_START = DAY.replace(hour=11, minute=43, second=27)
ERROR_TIMES = []
while ERROR_START + timedelta(seconds=29 * len(ERROR_TIMES)) < DAY.replace(hour=13):
    ERROR_TIMES.append(ERROR_START + timedelta(seconds=29 * len(ERROR_TIMES)))
FATAL_INDEX = 97
ERROR_MESSAGE = "payment client rejected charge: amount must be a string"
FATAL_MESSAGE = "payment worker pool exhausted, refusing new checkouts"
TRACE = [
    "Traceback (most recent call last):",
    '  File "checkout/payments.py", line 88, in charge',
    "    payload = serialize(order)",
    "PaymentError: upstream ERROR response from payments-gateway: amount must be a string",
]
PATHS = ["/cart", "/checkout", "/catalog/search", "/session", "/health"]
CODES = ["200", "200", "200", "304", "201"]


def stamp(moment, zone):
    return moment.astimezone(zone).isoformat(timespec="seconds").replace("+00:00", "Z")


def api_records(start, end):
    events = []
    moment = start
    while moment < end:
        events.append((moment, 1, f"INFO [api] GET {rng.choice(PATHS)} {rng.choice(CODES)}"))
        moment += timedelta(seconds=rng.randint(3, 11))
    for index, when in enumerate(ERROR_TIMES):
        if start <= when < end:
            level, message = ("FATAL", FATAL_MESSAGE) if index == FATAL_INDEX else ("ERROR", ERROR_MESSAGE)
            events.append((when, 0, f"{level} [api] {message}"))
    lines = []
    for when, _, text in sorted(events):
        lines.append(f"{stamp(when, LOCAL)} {text}")
        if when == ERROR_START and text.startswith("ERROR"):
            lines.extend(TRACE)
    return lines


def worker_records(start, end):
    lines, moment = [], start
    failing = (DAY.replace(hour=11, minute=12, second=30), DAY.replace(hour=11, minute=20))
    while moment < end:
        if failing[0] <= moment < failing[1]:
            lines.append(f"{stamp(moment, timezone.utc)} ERROR [worker] email job failed: template not found, retrying")
        else:
            lines.append(f"{stamp(moment, timezone.utc)} INFO [worker] processed job queue=emails")
        moment += timedelta(seconds=rng.randint(20, 50))
    return lines


def hour(h):
    return DAY.replace(hour=h)


logs = Path("logs")
logs.mkdir()
older = "\n".join(api_records(hour(8), hour(10))) + "\n"
(logs / "api.log.2.gz").write_bytes(gzip.compress(older.encode(), mtime=0))
(logs / "api.log.1").write_text("\n".join(api_records(hour(10), hour(12))) + "\n")
(logs / "api.log").write_text("\n".join(api_records(hour(12), hour(13))) + "\n")
(logs / "worker.log").write_text("\n".join(worker_records(hour(8), hour(13))) + "\n")
'''

DEPLOYS = """timestamp,service,version,author
2024-05-14T09:12:00Z,worker,v5.2.1,ops-bot
2024-05-14T09:41:00Z,checkout-api,v2.14.0,release-train
2024-05-14T11:35:00Z,checkout-api,v2.14.1,release-train
"""

SOLVE_SH = r"""#!/usr/bin/env bash
# Reference solution, in steps: read every checkout-api record (plain and gzip rotations; continuation
# lines belong to their record) and convert local offsets to UTC; count ERROR/FATAL and take the last
# checkout-api deploy before the first error as the suspect; write the note.
set -euo pipefail
cd "${SKILL2ENV_WORKSPACE:-/workspace}"
mkdir -p report
export STATE="$(mktemp -d)"

# --- step: first-error-and-hourly-buckets ---
python3 - <<'PY'
import csv
import gzip
import json
import os
import re
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

RECORD = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:Z|[+-]\d{2}:\d{2})) ([A-Z]+) \[([\w-]+)\] (.*)$")
LEVELS = {"WARNING": "WARN", "CRITICAL": "FATAL", "PANIC": "FATAL"}


def lines(path):
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8", "replace").splitlines()


def utc(stamp):
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(timezone.utc)


errors = []
for path in sorted(Path("logs").glob("api.log*")):
    for line in lines(path):
        match = RECORD.match(line)
        if match and LEVELS.get(match.group(2), match.group(2)) in ("ERROR", "FATAL"):
            errors.append((utc(match.group(1)), match.group(2), match.group(4), path.name))
errors.sort()
Path(os.environ["STATE"], "errors.json").write_text(json.dumps([[at.isoformat(), *rest] for at, *rest in errors]))
first = {"first_error_utc": errors[0][0].strftime("%H:%M:%S")}
Path("report/summary.json").write_text(json.dumps(first, indent=2) + "\n")
hours = Counter(at.strftime("%H:00") for at, *_ in errors)
with open("report/errors_by_hour.csv", "w", newline="") as handle:
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(["hour_utc", "errors"])
    writer.writerows(sorted(hours.items()))
PY

# --- step: error-count-and-suspect-deploy ---
python3 - <<'PY'
import csv
import json
import os
from datetime import datetime
from pathlib import Path


def moment(stamp):
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


errors = json.loads(Path(os.environ["STATE"], "errors.json").read_text())
first_at = moment(errors[0][0])
with open("deploys.csv", newline="") as handle:
    deploys = list(csv.DictReader(handle))
ours = [d for d in deploys if d["service"] == "checkout-api"]
suspect = max((d for d in ours if moment(d["timestamp"]) <= first_at), key=lambda d: moment(d["timestamp"]))
summary = {
    "first_error_utc": first_at.strftime("%H:%M:%S"),
    "api_error_count": len(errors),
    "suspect_service": suspect["service"],
    "suspect_version": suspect["version"],
    "suspect_deployed_at": suspect["timestamp"],
}
Path("report/summary.json").write_text(json.dumps(summary, indent=2) + "\n")
Path(os.environ["STATE"], "deploys.json").write_text(json.dumps({"suspect": suspect, "deploys": deploys}))
PY

# --- step: incident-note ---
python3 - <<'PY'
import json
import os
from pathlib import Path

state = Path(os.environ["STATE"])
errors = json.loads((state / "errors.json").read_text())
deploys = json.loads((state / "deploys.json").read_text())
summary = json.loads(Path("report/summary.json").read_text())
suspect = deploys["suspect"]
_, _, first_message, first_file = errors[0]
others = [d for d in deploys["deploys"] if d != suspect]
note = [
    "# Checkout incident",
    "",
    f"* First checkout-api error: {summary['first_error_utc']} UTC ({first_file}): {first_message}",
    f"* {len(errors)} ERROR/FATAL records from checkout-api; stack-trace lines are part of their record.",
    f"* Suspect: {suspect['service']} {suspect['version']}, deployed {suspect['timestamp']}, just before it.",
]
for deploy in others:
    reason = "another service" if deploy["service"] != "checkout-api" else "deployed after the first error"
    note.append(f"* Ruled out: {deploy['service']} {deploy['version']} at {deploy['timestamp']} ({reason}).")
Path("report/incident.md").write_text("\n".join(note) + "\n")
PY
"""

ONE_PROGRAM_SOLVE_SH = r"""#!/usr/bin/env bash
# Reference solution as one program: read every checkout-api record (plain and gzip rotations; continuation lines
# belong to their record), convert local offsets to UTC, count ERROR/FATAL, and take the last
# checkout-api deploy before the first error as the suspect.
set -euo pipefail
cd "${SKILL2ENV_WORKSPACE:-/workspace}"
mkdir -p report
python3 - <<'PY'
import csv
import gzip
import json
import re
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

RECORD = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:Z|[+-]\d{2}:\d{2})) ([A-Z]+) \[([\w-]+)\] (.*)$")
LEVELS = {"WARNING": "WARN", "CRITICAL": "FATAL", "PANIC": "FATAL"}


def lines(path):
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8", "replace").splitlines()


def utc(stamp):
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(timezone.utc)


errors = []
for path in sorted(Path("logs").glob("api.log*")):
    for line in lines(path):
        match = RECORD.match(line)
        if match and LEVELS.get(match.group(2), match.group(2)) in ("ERROR", "FATAL"):
            errors.append((utc(match.group(1)), match.group(2), match.group(4), path.name))
errors.sort()
first_at, _, first_message, first_file = errors[0]
with open("deploys.csv", newline="") as handle:
    deploys = list(csv.DictReader(handle))
ours = [d for d in deploys if d["service"] == "checkout-api"]
suspect = max((d for d in ours if utc(d["timestamp"]) <= first_at), key=lambda d: utc(d["timestamp"]))
hours = Counter(at.strftime("%H:00") for at, *_ in errors)

summary = {
    "first_error_utc": first_at.strftime("%H:%M:%S"),
    "api_error_count": len(errors),
    "suspect_service": suspect["service"],
    "suspect_version": suspect["version"],
    "suspect_deployed_at": suspect["timestamp"],
}
Path("report/summary.json").write_text(json.dumps(summary, indent=2) + "\n")
with open("report/errors_by_hour.csv", "w", newline="") as handle:
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(["hour_utc", "errors"])
    writer.writerows(sorted(hours.items()))
others = [d for d in deploys if d is not suspect]
note = [
    "# Checkout incident",
    "",
    f"* First checkout-api error: {summary['first_error_utc']} UTC ({first_file}): {first_message}",
    f"* {len(errors)} ERROR/FATAL records from checkout-api; stack-trace lines are part of their record.",
    f"* Suspect: {suspect['service']} {suspect['version']}, deployed {suspect['timestamp']}, just before it.",
]
for deploy in others:
    reason = "another service" if deploy["service"] != "checkout-api" else "deployed after the first error"
    note.append(f"* Ruled out: {deploy['service']} {deploy['version']} at {deploy['timestamp']} ({reason}).")
Path("report/incident.md").write_text("\n".join(note) + "\n")
PY
"""

INSTRUCTION = """# Why did checkout break on 2024-05-14?

The `log-analysis` skill is available at `/skills/log-analysis`; read its `SKILL.md` and follow its workflow.

Checkout started failing on the morning of 2024-05-14 and the on-call team needs the facts for the incident
ticket. The log bundle is in `/workspace/logs/`: the checkout API writes `api.log*` (rotated), the background
worker writes `worker.log`. Every production deploy of the day is listed in `/workspace/deploys.csv`.

Write, under `/workspace/report/`:

1. `report/summary.json` with
   * `first_error_utc`: the UTC time of day (`HH:MM:SS`) of the checkout API's first ERROR or FATAL record,
   * `api_error_count`: how many ERROR and FATAL records the checkout API logged that day (a stack trace
     belongs to the record above it),
   * `suspect_service` and `suspect_version`: the deploy that most likely caused the failures.
2. `report/errors_by_hour.csv` with the columns `hour_utc,errors`: one row per UTC hour (`HH:00`) in which the
   checkout API logged errors, with its number of ERROR and FATAL records.
3. `report/incident.md`: a short note for the ticket: when it started, what failed, which deploy preceded it
   and why the other deploys are ruled out, pointing at the log lines and deploy entries that show it.

Do not modify the logs.
"""

EXPECTED_HOURLY = "hour_utc,errors\n09:00,35\n10:00,124\n"


def _fact(fact_id: str, level: str, statement: str, value: Any, location: str | None = None,
          derived_from: tuple[str, ...] = ()) -> dict[str, Any]:  # fmt: skip
    return {"id": fact_id, "statement": statement, "value": value, "level": level, "location": location,
            "derived_from": list(derived_from)}  # fmt: skip


def _json_item(item_id: str, weight: float, description: str, values: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": item_id,
        "description": description,
        "weight": weight,
        "method": "deterministic",
        "target_files": ["report/summary.json"],
        "check": {"check": "json_path_equals", "params": {"path": "report/summary.json", "values": values}},
    }


def blueprint_answer() -> dict[str, Any]:
    """Step 1: the blueprint as the model answers it (a fresh copy each call, to spoil in tests)."""
    return copy.deepcopy(_BLUEPRINT)


def blueprint_answer_with_format_item() -> dict[str, Any]:
    """The blueprint with one more item, on format alone: the hourly table has the asked header
    (weight 0.05, taken from the note's). Format is what a shallow solver can earn."""
    answer = blueprint_answer()
    items = answer["rubric"]["items"]
    next(item for item in items if item["id"] == "incident-note")["weight"] = 0.15
    items.append({
        "id": "hourly-header",
        "description": "errors_by_hour.csv has the header hour_utc,errors",
        "weight": 0.05,
        "method": "deterministic",
        "target_files": ["report/errors_by_hour.csv"],
        "check": {"check": "text_matches", "params": {"path": "report/errors_by_hour.csv",
                                                      "pattern": "^hour_utc,errors$", "flags": ["MULTILINE"]}},
    })  # fmt: skip
    answer["acceptance_criteria"].append(
        {"id": "ac-header", "description": "The hourly table has the asked columns", "rubric_item": "hourly-header"}
    )
    return answer


_BLUEPRINT: dict[str, Any] = {
    "task_name": "checkout-incident-after-deploy",
    "goal": "On-call wants to know when checkout-api started failing on 2024-05-14, how badly, and which "
    "deploy caused it, from the log bundle and the deploy list.",
    "challenges": [
        {
            "pattern_id": "implicit_timezone",
            "intensity": 1,
            "form": "checkout-api logs local time (+02:00) while deploys.csv and the worker log are UTC: the first "
            "error at 11:43:27+02:00 is 09:43:27 UTC, and a naive reading blames the 11:35Z hotfix.",
            "facts": ["first_error_local", "first_error_utc", "hotfix_version"],
        },
        {
            "pattern_id": "distributed_evidence",
            "intensity": 1,
            "form": "The first error sits in the rotated api.log.1, older history in a gzip rotation, and the "
            "deploys in deploys.csv.",
            "facts": ["first_error_local", "culprit_version"],
        },
        {
            "pattern_id": "scope_distractor",
            "intensity": 1,
            "form": "The worker failed first, right after its own deploy v5.2.1; only checkout-api counts.",
            "facts": ["worker_version", "worker_failure"],
        },
        {
            "pattern_id": "needle_in_large_corpus",
            "intensity": 1,
            "form": "About 1,700 api records over three files; the first error's stack trace has a line containing "
            "ERROR, so grep over-counts.",
            "facts": ["error_message", "fatal_record", "api_error_count"],
        },
    ],
    "facts": [
        _fact("incident_day", "stated", "The incident happened on this day", "2024-05-14"),
        _fact("service", "stated", "The failing service", "checkout-api"),
        _fact(
            "first_error_local",
            "discoverable",
            "First checkout-api error, as logged (local time)",
            "2024-05-14T11:43:27+02:00",
            "logs/api.log.1",
        ),
        _fact("error_message", "discoverable", "What the errors say", "amount must be a string", "logs/api.log.1"),
        _fact(
            "fatal_record",
            "discoverable",
            "One record is FATAL, not ERROR",
            "payment worker pool exhausted",
            "logs/api.log",
        ),
        _fact(
            "culprit_version", "discoverable", "The checkout-api release deployed at 09:41Z", "v2.14.0", "deploys.csv"
        ),
        _fact("hotfix_version", "discoverable", "The checkout-api hotfix deployed at 11:35Z", "v2.14.1", "deploys.csv"),
        _fact("worker_version", "discoverable", "The worker release deployed at 09:12Z", "v5.2.1", "deploys.csv"),
        _fact("worker_failure", "discoverable", "The worker's own failures", "email job failed", "logs/worker.log"),
        _fact(
            "first_error_utc",
            "inferable",
            "First checkout-api error in UTC",
            "09:43:27",
            derived_from=("first_error_local",),
        ),
        _fact(
            "api_error_count",
            "author_only",
            "ERROR + FATAL records of checkout-api that day",
            159,
            derived_from=("first_error_local", "fatal_record"),
        ),
        _fact(
            "suspect",
            "author_only",
            "The conclusion",
            "suspect_version = v2.14.0",
            derived_from=("culprit_version", "first_error_utc"),
        ),
    ],
    "derivations": [
        {
            "result": "first_error_utc",
            "from_facts": ["first_error_local"],
            "reasoning": "11:43:27 at +02:00 is 09:43:27 UTC",
        },
        {
            "result": "api_error_count",
            "from_facts": ["first_error_local", "fatal_record"],
            "reasoning": "One error every 29 s from 09:43:27 to 10:59:49 UTC: 35 + 124 records, one of them FATAL",
        },
        {
            "result": "suspect",
            "from_facts": ["culprit_version", "first_error_utc"],
            "reasoning": "v2.14.0 went out at 09:41:00Z, 2.5 minutes before the first error; v2.14.1 came after it",
        },
    ],
    "deliverables": [
        {"path": "report/summary.json", "format": "json", "description": "First error, count, suspect deploy"},
        {"path": "report/errors_by_hour.csv", "format": "csv", "description": "ERROR/FATAL records per UTC hour"},
        {"path": "report/incident.md", "format": "md", "description": "Note for the incident ticket"},
    ],
    "acceptance_criteria": [
        {"id": "ac-first", "description": "The first error is found and given in UTC", "rubric_item": "first-failure"},
        {
            "id": "ac-count",
            "description": "Every error record of checkout-api is counted once",
            "rubric_item": "error-total",
        },
        {"id": "ac-hourly", "description": "Errors are bucketed per UTC hour", "rubric_item": "hourly-errors"},
        {"id": "ac-deploy", "description": "The deploy that caused it is named", "rubric_item": "culprit-deploy"},
        {
            "id": "ac-note",
            "description": "The note supports the conclusion with evidence",
            "rubric_item": "incident-note",
        },
    ],
    "rubric": {
        "summary": "First error in UTC, the error count, the hourly buckets, the culprit deploy, and the note.",
        "items": [
            _json_item(
                "first-failure", 0.25, "summary.json has the first error in UTC", {"$.first_error_utc": "09:43:27"}
            ),
            _json_item("error-total", 0.25, "summary.json counts the error records", {"$.api_error_count": 159}),
            {
                "id": "hourly-errors",
                "description": "errors_by_hour.csv has the right buckets",
                "weight": 0.15,
                "method": "deterministic",
                "target_files": ["report/errors_by_hour.csv"],
                "check": {
                    "check": "csv_equals",
                    "params": {
                        "path": "report/errors_by_hour.csv",
                        "expected_file": "expected/errors_by_hour.csv",
                        "key_columns": ["hour_utc"],
                    },
                },
            },
            _json_item(
                "culprit-deploy",
                0.15,
                "summary.json names the culprit deploy",
                {"$.suspect_service": "checkout-api", "$.suspect_version": "v2.14.0"},
            ),
            {
                "id": "incident-note",
                "description": "The note explains the incident with evidence",
                "weight": 0.2,
                "method": "llm_judge",
                "target_files": ["report/incident.md"],
                "judge_instruction": "Score 1 if the note gives the first error in UTC, blames checkout-api v2.14.0 "
                "and rules out the worker deploy and the later hotfix, citing log lines and "
                "deploy entries; 0.5 if one of these is missing; 0 otherwise.",
            },
        ],
    },
}


def build_answer() -> dict[str, Any]:
    """Step 2: instruction, workspace (generator + one inline file), solution, verifier data."""
    return {
        "instruction": INSTRUCTION,
        "files": [{"path": "deploys.csv", "content": DEPLOYS}],
        "generator": GENERATOR,
        "solve_sh": SOLVE_SH,
        "apt_packages": ["python3"],  # the base image has it: dropped
        "pip_packages": [],
        "verifier_files": [{"path": "expected/errors_by_hour.csv", "content": EXPECTED_HOURLY}],
    }


def log_skill_row() -> dict[str, Any]:
    text = (EXAMPLE_SKILLS / "log-analysis" / "SKILL.md").read_text()
    return skill_row(SKILL_PATH, name="log-analysis", domain=DOMAIN, skill_md_text=text, languages=["python"],
                     description="Investigate service logs, plain or gzip-rotated.")  # fmt: skip


def selection_rows() -> list[dict[str, Any]]:
    return [{"skill_id": f"id-{SKILL_PATH}", "path": SKILL_PATH, "domain": DOMAIN, "rank": rank, "pattern_id": p,
             "capability": None, "rationale": f"{p} fits an incident investigation"}
            for rank, p in enumerate(PATTERNS, start=1)]  # fmt: skip


def make_log_skill(root: Path) -> Path:
    """The example log-analysis skill, copied to `root/ops/log-analysis`."""
    target = root / SKILL_PATH
    shutil.copytree(EXAMPLE_SKILLS / "log-analysis", target)
    return target


class SubprocessRunner:
    """Runs a generator as a plain subprocess in a temporary folder: a test double for the sandbox
    runner, for the test's own scripts only (no isolation at all)."""

    def __init__(self) -> None:
        self.runs = 0

    def run(self, script: str) -> dict[str, bytes]:
        self.runs += 1
        with tempfile.TemporaryDirectory() as scratch:
            (Path(scratch) / "script").mkdir()
            (Path(scratch) / "script" / "generate.py").write_text(script)
            out = Path(scratch) / "out"
            out.mkdir()
            done = subprocess.run([sys.executable, "-I", str(Path(scratch) / "script" / "generate.py")], cwd=out,
                                  capture_output=True, text=True, timeout=60, env={"PATH": os.environ["PATH"]},
                                  check=False)  # fmt: skip
            if done.returncode:
                raise GeneratorError(f"the generator exited with {done.returncode}: {done.stderr[-500:]}")
            return collect_files(out, GeneratorLimits())
