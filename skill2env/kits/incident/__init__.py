"""Kit 3: incident log forensics.

Logs of several services (time zones, skewed clocks, rotated and compressed files, another
environment's lines) and a configuration change history → a per-service timeline, a root-cause report
with exact counts, and a postmortem note.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import ClassVar

from skill2env.kits import checks
from skill2env.kits.base import Kit
from skill2env.kits.incident.docs import render_world
from skill2env.kits.incident.patterns import PATTERNS, TRANSFORMERS
from skill2env.kits.incident.world import SERVICES, Expected, World, expected, generate
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item
from skill2env.patterns.models import InformationLevel, Trait

TIMELINE = "output/timeline.csv"
REPORT = "output/report.json"
POSTMORTEM = "output/postmortem.md"


class IncidentKit(Kit):
    name = "incident"
    title = "Incident log forensics"
    formats = ("log", "gzip", "tar.gz", "zip", "jsonl", "yaml", "json", "csv", "markdown", "env", "shell")
    patterns = PATTERNS
    traits: ClassVar[Mapping[Trait, float]] = {
        Trait.LOGS: 1.5,
        Trait.TEMPORAL_DATA: 0.5,
        Trait.CONFIGURATION: 0.4,
        Trait.CLI_TOOLS: 0.3,
        Trait.VERSION_HISTORY: 0.3,
        Trait.TEXT_CORPUS: 0.2,
    }
    tool_patterns: ClassVar[Mapping[Trait, str]] = {
        Trait.LOGS: "nested_container_evidence",
        Trait.CLI_TOOLS: "misleading_tool_error",
        Trait.SKILL_SCRIPTS: "misleading_tool_error",
        Trait.TEMPORAL_DATA: "implicit_timezone",
        Trait.CONFIGURATION: "point_in_time_replay",
        Trait.VERSION_HISTORY: "point_in_time_replay",
        Trait.TEXT_CORPUS: "needle_in_large_corpus",
    }
    starters = (
        "implicit_timezone",
        "error_cascade_root_cause",
        "nested_container_evidence",
        "scope_distractor",
        "duplicate_claim_across_periods",
    )
    solver_module = "skill2env.kits.incident.solver"
    naive_module = "skill2env.kits.incident.naive"

    transformers = TRANSFORMERS

    def generate_world(self, seed: int, salt: int) -> World:
        return generate(seed, salt)

    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        world, design = self.world(seed, patterns, salt)
        workspace = render_world(world)
        truth = expected(world)
        composition = Composition(
            title=f"Reconstruct the checkout incident of {world.day.isoformat()}",
            goal=f"Find out from the logs and change records what broke checkout on {world.day.isoformat()}, "
            "when, how many requests failed, and which change caused it.",
            body=instruction_body(world),
            workspace=workspace,
            facts=[],
            challenges=[],
            deliverables=[
                (TIMELINE, "csv", "first and last incident error and error count per service", 0.35),
                (REPORT, "json", "root cause, incident window and exact counts", 0.45),
                (POSTMORTEM, "markdown", "the postmortem summary", 0.2),
            ],
            items=[],
        )
        found = InformationLevel.DISCOVERABLE
        composition.fact("goal.day", "the incident day", InformationLevel.STATED, world.day.isoformat())
        composition.fact("logs.events", "the services' log lines", found, "request served", location="logs/")
        composition.fact(
            "changes.records", "the configuration change records", found, "noop", location="config/changes.jsonl"
        )
        composition.fact(
            "runbook.known",
            "known harmless error messages",
            found,
            "; ".join(world.known),
            location="runbook/known_errors.md",
        )
        composition.fact(
            "hosts.settings", "host time zones and environments", found, "environment", location="inventory.csv"
        )
        composition.plant(design)
        for pattern_id, level in patterns.items():
            composition.challenges.append(
                ChallengeSpec(pattern_id, level, design.forms[pattern_id], design.facts_of(pattern_id))
            )
        composition.items = items(world, truth, design, patterns)
        return composition


def instruction_body(world: World) -> str:
    replay = bool(world.baseline)
    config = ',\n    "config_at_start": {"<key>": "<value>", ...}' if replay else ""
    config_rule = (
        "\n- `config_at_start` is the first failing service's configuration at the incident start: its "
        "baseline in `config/baseline/` with every change up to that moment applied in time order."
        if replay
        else ""
    )
    return f"""Checkout failed for a while on {world.day.isoformat()}. Reconstruct what happened from the workspace:
the service logs, the configuration change records and the operations notes (start with `README.md`).

Rules:

- Incident errors are the production (environment `prod`) log events of level ERROR that are not known harmless
  errors (see the runbook). An event written twice (for example around a log rotation) counts once.
- Times are UTC, written `YYYY-MM-DDTHH:MM:SSZ` (truncated to the second).
- The first failing service is the one with the earliest incident error. The root cause is the latest
  configuration change to that service (under any of its names) made at or before its first incident error,
  ignoring no-op changes and renames.
- A failed request is the request id (`req`) of an incident error at the gateway; count each id once.{config_rule}

Formats:

1. `output/timeline.csv` with the header `service,first_error_utc,last_error_utc,errors`: one row per service
   with incident errors (`errors`: its number of incident errors).
2. `output/report.json`:
   ```
   {{"root_cause_change": "<change id>", "first_failing_service": "<service>",
    "incident_start_utc": "<first incident error>", "incident_end_utc": "<last incident error>",
    "failed_requests": <n>, "errors_by_service": {{"<service>": <n>, ...}}{config}}}
   ```
3. `output/postmortem.md` with the lines `Root cause: <change id>`, `First failing service: <service>` and
   `Failed requests: <n>`, then a short narrative.
"""


def items(world: World, truth: Expected, design: Design, patterns: Mapping[str, int]) -> list[Item]:
    result: list[Item] = []
    log_facts = ("logs.events", "runbook.known", "hosts.settings")
    tags: dict[str, set[str]] = {s: set() for s in SERVICES}
    for event in world.events:
        tags[event.service] |= event.patterns
    columns = ["first_error_utc", "last_error_utc", "errors"]

    def rows(services: list[str]) -> list[dict[str, object]]:
        return [
            {
                "service": s,
                "first_error_utc": truth.timeline[s][0],
                "last_error_utc": truth.timeline[s][1],
                "errors": truth.timeline[s][2],
            }
            for s in sorted(services)
        ]

    keys = [{"service": s} for s in sorted(truth.timeline)]
    result.append(
        Item(
            "timeline.services",
            "The timeline has one row for each service with incident errors.",
            TIMELINE,
            checks.csv_rows(TIMELINE, ["service"], [], keys, exact_keys=True),
            keys,
            log_facts,
            "Services with production, non-harmless ERROR events.",
        )
    )
    base = [s for s in truth.timeline if not tags[s]]
    if base:
        result.append(
            Item(
                "timeline.base",
                "Services without designed anomalies have the right times and counts.",
                TIMELINE,
                checks.csv_rows(TIMELINE, ["service"], columns, rows(base)),
                rows(base),
                log_facts,
                "First / last incident error in UTC and their number.",
            )
        )
    for pattern_id in patterns:
        mine = [s for s in truth.timeline if pattern_id in tags[s]]
        if mine:
            result.append(
                Item(
                    f"timeline.{pattern_id}",
                    f"Services carrying the {pattern_id.replace('_', ' ')} challenge have the right times and counts.",
                    TIMELINE,
                    checks.csv_rows(TIMELINE, ["service"], columns, rows(mine)),
                    rows(mine),
                    design.facts_of(pattern_id) or log_facts,
                    design.forms[pattern_id],
                    patterns=(pattern_id,),
                )
            )

    def linked(*ids: str) -> tuple[str, ...]:
        return tuple(p for p in ids if p in patterns)

    result.append(
        Item(
            "report.root_cause_change",
            "report.json names the root-cause change.",
            REPORT,
            checks.json_value(REPORT, "$.root_cause_change", truth.root_change),
            truth.root_change,
            ("changes.records", "logs.events"),
            "Latest real change to the first failing service before its first incident error.",
            patterns=linked("error_cascade_root_cause", "needle_in_large_corpus"),
        )
    )
    result.append(
        Item(
            "report.first_failing_service",
            "report.json names the first failing service.",
            REPORT,
            checks.json_value(REPORT, "$.first_failing_service", truth.first_service),
            truth.first_service,
            log_facts,
            "The service of the earliest incident error (UTC).",
        )
    )
    for field, value in (("incident_start_utc", truth.start), ("incident_end_utc", truth.end)):
        result.append(
            Item(
                f"report.{field}",
                f"report.json gives {field} right.",
                REPORT,
                checks.json_value(REPORT, f"$.{field}", value),
                value,
                log_facts,
                "Earliest / latest incident error in UTC.",
            )
        )
    result.append(
        Item(
            "report.failed_requests",
            "report.json counts the failed requests exactly.",
            REPORT,
            checks.json_value(REPORT, "$.failed_requests", truth.failed_requests),
            truth.failed_requests,
            log_facts,
            "Distinct request ids of gateway incident errors.",
        )
    )
    by_service = {s: t[2] for s, t in truth.timeline.items()}
    result.append(
        Item(
            "report.errors_by_service",
            "report.json's error counts per service are exact.",
            REPORT,
            checks.json_value(REPORT, "$.errors_by_service", by_service),
            by_service,
            log_facts,
            "Incident errors per service.",
            patterns=linked("stale_derived_artifact", "cross_deliverable_agreement"),
        )
    )
    if world.baseline:
        result.append(
            Item(
                "report.config_at_start",
                "report.json replays the failing service's configuration to the incident start.",
                REPORT,
                checks.json_value(REPORT, "$.config_at_start", truth.config_at_start),
                truth.config_at_start,
                ("changes.records", *design.facts_of("point_in_time_replay")),
                "Baseline plus changes up to the first incident error.",
                patterns=linked("point_in_time_replay"),
            )
        )
    result.append(
        Item(
            "note.root_cause",
            "The postmortem states the root-cause change.",
            POSTMORTEM,
            checks.text_matches(POSTMORTEM, rf"Root cause:\s*\**\s*{re.escape(truth.root_change)}\b"),
            truth.root_change,
            ("changes.records",),
            "The report's root cause, in prose.",
        )
    )
    result.append(
        Item(
            "note.first_failing_service",
            "The postmortem names the first failing service.",
            POSTMORTEM,
            checks.text_matches(POSTMORTEM, rf"First failing service:\s*\**\s*{truth.first_service}\b"),
            truth.first_service,
            log_facts,
            "The report's first failing service, in prose.",
        )
    )
    result.append(
        Item(
            "note.failed_requests",
            "The postmortem's failed-request count agrees with the report.",
            POSTMORTEM,
            checks.text_matches(
                POSTMORTEM, checks.labelled_number("Failed requests", truth.failed_requests, decimals=0)
            ),
            truth.failed_requests,
            log_facts,
            "The report's count, in prose.",
            patterns=linked("cross_deliverable_agreement"),
        )
    )
    return result


KIT = IncidentKit()
