"""The scripted server as author, solver, diagnoser and judge of the checkout-incident task
(`model_author_script`), for a whole `skill2env run --iterations 2` with model roles.

* author: the blueprint and build of `model_author_script`; asked to rebuild a hardened blueprint,
  it writes the checkout-api logs in naive local time with the offset only in
  `config/logging.ini`, and a solution that reads it;
* solver: runs the iteration-0 reference solution as its one bash call, then finishes — it solves
  the first version and fails the hardened one (its timestamp pattern needs an offset);
* diagnoser: the time-zone and large-corpus challenges were solved easily (citing the solver's
  bash step); it proposes raising `implicit_timezone` to intensity 2 (the offset moves into the
  logger's config) and abstracts a new pattern, multi-line log records;
* judge: 1 with a quote from the note when the note names the culprit deploy, else 0.
"""

from __future__ import annotations

import json
import re
from typing import Any

from llm_server import Scripted, json_answer, tool_calls
from model_author_script import GENERATOR, PATTERNS, SOLVE_SH, blueprint_answer, build_answer

from skill2env.patterns.pool import seed_pool

ZONE_CONFIG = "[logging]\nzone_offset = +02:00\n"

HARDENED_GENERATOR = GENERATOR.replace(
    'lines.append(f"{stamp(when, LOCAL)} {text}")',
    "lines.append(f\"{when.astimezone(LOCAL).replace(tzinfo=None).isoformat(timespec='seconds')} {text}\")",
)

HARDENED_SOLVE_SH = SOLVE_SH.replace(r"(?:Z|[+-]\d{2}:\d{2})) ([A-Z]+)", r"(?:Z|[+-]\d{2}:\d{2})?) ([A-Z]+)").replace(
    """def utc(stamp):
    return""",
    """import configparser

ZONE = configparser.ConfigParser()
ZONE.read("config/logging.ini")


def utc(stamp):
    if not stamp.endswith("Z") and not re.search(r"[+-]\\d{2}:\\d{2}$", stamp):
        stamp += ZONE["logging"]["zone_offset"]
    return""",
)

DIAGNOSER_SYSTEM = "You diagnose training tasks"
HARDENS = "This blueprint hardens an earlier version"


def hardened_build_answer(*, keep_old_solution: bool = False) -> dict[str, Any]:
    """The rebuild of the hardened blueprint; `keep_old_solution`: a careless rebuild whose solution
    still expects offsets on every line (its oracle fails the new workspace)."""
    answer = build_answer()
    answer["generator"] = HARDENED_GENERATOR
    answer["files"] = [*answer["files"], {"path": "config/logging.ini", "content": ZONE_CONFIG}]
    answer["solve_sh"] = SOLVE_SH if keep_old_solution else HARDENED_SOLVE_SH
    return answer


def diagnosis_answer(step: str) -> dict[str, Any]:
    """The diagnosis of the solved first version, citing the solver's bash step `step`."""
    verdicts = {
        "implicit_timezone": ("solved_easily", "Every attempt converted the explicit +02:00 offsets in one pass."),
        "distributed_evidence": ("exercised", "The attempts read every rotation and the deploy list."),
        "scope_distractor": ("exercised", "The attempts filtered deploys to checkout-api before choosing."),
        "needle_in_large_corpus": ("solved_easily", "A record-aware parser counted the errors at once."),
    }
    return {
        "challenges": [
            {"pattern_id": p, "verdict": v, "evidence_steps": [step] if v == "solved_easily" else [], "explanation": e}
            for p, (v, e) in verdicts.items()
        ],
        "failures_from": "none",
        "summary": "Both attempts solved the task in one scripted pass; the time-zone trap is too visible.",
        "proposal": {
            "rationale": "Offsets on every line make the time-zone trap trivial: log naive local times and keep "
            "the logger's offset only in its configuration file.",
            "changes": [
                {
                    "op": "add_fact",
                    "fact": {
                        "id": "zone_offset",
                        "statement": "The checkout-api logger's UTC offset",
                        "value": "+02:00",
                        "level": "discoverable",
                        "location": "config/logging.ini",
                    },
                },
                {
                    "op": "replace_fact",
                    "fact": {
                        "id": "first_error_local",
                        "statement": "First checkout-api error, as logged (naive local time)",
                        "value": "2024-05-14T11:43:27",
                        "level": "discoverable",
                        "location": "logs/api.log.1",
                    },
                },
                {
                    "op": "strengthen_challenge",
                    "challenge": 0,
                    "intensity": 2,
                    "form": "checkout-api logs naive local times; the offset (+02:00) is only in config/logging.ini, "
                    "while deploys.csv and the worker log are UTC.",
                    "facts": ["first_error_local", "zone_offset", "first_error_utc", "hotfix_version"],
                },
            ],
        },
        "new_pattern": NEW_PATTERN,
        "new_pattern_parent": "needle_in_large_corpus",
    }


NEW_PATTERN: dict[str, Any] = {
    "id": "multiline_log_records",
    "name": "Multi-line log records",
    "capability": "environment_understanding",
    "description": "One logical record spans several physical lines (a stack trace, a wrapped JSON payload), "
    "and the continuation lines repeat the severity keyword, so line-oriented counting over-counts.",
    "construction": {
        "workspace": ["service.log: records with multi-line tracebacks whose last line repeats ERROR"],
        "instruction": "Ask for the number of ERROR records of the service for a stated day.",
        "must_not_say": ["that tracebacks span several lines", "the expected count"],
        "evaluator": "A deterministic item compares the record count with the author-only number of records.",
    },
    "information_boundary": {
        "stated": ["the day", "the output file"],
        "discoverable": ["the records and their continuation lines"],
        "inferable": ["which lines continue a record"],
        "author_only": ["the record count"],
    },
    "evidence": {
        "rubric_check": "The count differs by the number of continuation lines that contain the keyword.",
        "shortcut": "Counting lines that match ERROR with grep -c instead of parsing records.",
        "shortcut_signal": "grep -c ERROR in the trajectory and no record parser",
    },
    "traits": ["logs"],
    "affinity": ["text_corpus"],
    "intensity": [
        {"level": 1, "description": "One traceback whose last line repeats the keyword."},
        {"level": 2, "description": "Several tracebacks and wrapped JSON payloads in two rotations."},
        {"level": 3, "description": "Continuation lines in one rotation are indented, in the other prefixed with |."},
    ],
}


def respond(request: dict[str, Any]) -> Scripted:
    """Every role's answer, told apart by the request (tools: the solver; else the system prompt)."""
    return _respond(request, careless_rebuild=False)


def respond_with_careless_rebuild(request: dict[str, Any]) -> Scripted:
    """As `respond`, but the author's rebuild of the hardened blueprint breaks its own oracle."""
    return _respond(request, careless_rebuild=True)


def _respond(request: dict[str, Any], *, careless_rebuild: bool) -> Scripted:
    messages = request["messages"]
    if request.get("tools"):
        turns = sum(1 for message in messages if message["role"] == "assistant")
        if turns == 0:
            return tool_calls(("bash", {"command": SOLVE_SH, "timeout": 120}))
        return tool_calls(("finish", {"message": "report written"}))
    system = messages[0]["content"] if messages[0]["role"] == "system" else ""
    user = "\n".join(str(m.get("content") or "") for m in messages if m["role"] == "user")
    if system.startswith("You are the judge"):
        if "=== file report/incident.md" in user and "Suspect: checkout-api v2.14.0" in user:
            quote = {"path": "report/incident.md", "quote": "v2.14.0"}
            return json_answer({"score": 1.0, "evidence": [quote], "reasoning": "The note names the culprit deploy."})
        return json_answer({"score": 0.0, "evidence": [], "reasoning": "No note naming the culprit deploy."})
    if system.startswith(DIAGNOSER_SYSTEM):
        step = re.search(r"\b(a\d+:\d+) bash", user)
        return json_answer(diagnosis_answer(step.group(1) if step else "a1:1"))
    if system.startswith("You build one training task"):
        if HARDENS in user:
            return json_answer(hardened_build_answer(keep_old_solution=careless_rebuild))
        return json_answer(build_answer())
    if "Each environment is one task" in system:
        pool = seed_pool()
        listed = [p for p in re.findall(r"^- ([a-z0-9_]+) — ", user, flags=re.MULTILINE) if p in pool]
        chosen = list(dict.fromkeys([p for p in PATTERNS if p in listed] + listed))[:4]
        picks = [{"pattern_id": p, "rationale": f"{p} fits an incident investigation"} for p in chosen]
        return json_answer({"picks": picks})
    if "One environment is one task" in system:
        return json_answer(blueprint_answer())
    raise AssertionError(f"no scripted answer for: {json.dumps(messages)[:300]}")


if (
    HARDENED_GENERATOR == GENERATOR
    or HARDENED_SOLVE_SH.count("zone_offset") != 1
    or "?) ([A-Z]+)" not in HARDENED_SOLVE_SH
):
    raise RuntimeError("the hardened build no longer patches model_author_script's generator and solution")
