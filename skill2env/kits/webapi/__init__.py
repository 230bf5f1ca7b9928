"""Kit 9: local web API extraction.

A small HTTP service in the workspace (a standard-library script the solver starts on a free loopback
port) serves a catalogue (job postings, product listings or weather stations) from a private store,
documented in Markdown and an OpenAPI-style YAML, with traps: a filter language whose semantics differ
from SQL's, a watchlist too long for one filter, sandbox fixtures listed beside the records, a pinned
stale snapshot and short-lived tokens, a cap on search results, overlapping pages, transient 503s and
429s with Retry-After, a metered read quota, records listed but gone → a CSV of every record of one
category that meets the request and a JSON summary of its aggregates and the records that could not
be read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from skill2env.kits import checks
from skill2env.kits.base import Kit
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item
from skill2env.kits.webapi.docs import API_DOC, KEY_FILE, REQUEST, SERVER, render_world
from skill2env.kits.webapi.patterns import PATTERNS, TRANSFORMERS
from skill2env.kits.webapi.world import (
    World,
    by_region,
    failed_ids,
    generate,
    rows,
    top_region,
    total,
    value_by_region,
)
from skill2env.patterns.models import InformationLevel, Trait

RECORDS = "output/records.csv"
SUMMARY = "output/summary.json"
TOLERANCE = 0.005
ROW_PATTERNS = (
    "tool_dsl_expression",
    "scope_distractor",
    "payload_size_limit_chunking",
    "state_dependency",
    "documented_input_limit",
    "chunk_boundary_state",
    "transient_service_failure_retry",
    "resource_budget",
)
"""Patterns whose trap changes rows of the CSV (each gets an item over its rows)."""


class WebApiKit(Kit):
    name = "webapi"
    title = "Local web API extraction"
    formats = ("http", "json", "markdown", "yaml", "csv")
    patterns = PATTERNS
    traits: ClassVar[Mapping[Trait, float]] = {
        Trait.NETWORK_SERVICE: 1.5,
        Trait.STRUCTURED_DATA: 0.2,
        Trait.TABULAR_DATA: 0.1,
        Trait.PERSISTENT_STATE: 0.1,
    }
    requires: ClassVar[Mapping[Trait, float]] = {Trait.NETWORK_SERVICE: 0.4}
    """More than a mention of a request: endpoints, HTTP clients, API calls."""
    tool_patterns: ClassVar[Mapping[Trait, str]] = {
        Trait.NETWORK_SERVICE: "transient_service_failure_retry",
        Trait.STRUCTURED_DATA: "chunk_boundary_state",
        Trait.TABULAR_DATA: "documented_input_limit",
        Trait.PERSISTENT_STATE: "state_dependency",
        Trait.SKILL_SCRIPTS: "resource_budget",
    }
    starters = (
        "transient_service_failure_retry",
        "documented_input_limit",
        "state_dependency",
        "chunk_boundary_state",
        "resource_budget",
    )
    solver_module = "skill2env.kits.webapi.solver"
    naive_module = "skill2env.kits.webapi.naive"

    transformers = TRANSFORMERS

    def generate_world(self, seed: int, salt: int) -> World:
        return generate(seed, salt)

    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        world, design = self.world(seed, patterns, salt)
        composition = Composition(
            title=f"Collect the {world.category} {world.theme} from the local catalogue API",
            goal=f"Gather every {world.noun} of category {world.category} from the local catalogue service "
            "into a CSV, with a summary of its aggregates and the records the service could not return.",
            body=instruction_body(world),
            workspace=render_world(world),
            facts=[],
            challenges=[],
            deliverables=[
                (RECORDS, "csv", f"one row per {world.noun} of the category the service returns", 0.55),
                (SUMMARY, "json", "the count, the total value, the per-region figures and the failed ids", 0.45),
            ],
            items=[],
        )
        found = InformationLevel.DISCOVERABLE
        composition.fact("goal.category", "the category asked for", InformationLevel.STATED, world.category)
        composition.fact("request.category", "the category asked for", found, world.category, location=REQUEST)
        composition.fact("api.contract", "the API's endpoints and errors", found, "GET /v1/records", location=API_DOC)
        composition.fact("api.key", "the API key", found, "key_", location=KEY_FILE)
        composition.fact("service.script", "the service to start", found, "server.py", location=SERVER)
        composition.plant(design)
        for pattern_id, level in patterns.items():
            composition.challenges.append(
                ChallengeSpec(pattern_id, level, design.forms[pattern_id], design.facts_of(pattern_id))
            )
        composition.items = items(world, design, patterns)
        return composition


def instruction_body(world: World) -> str:
    return f"""`{SERVER}` is a local catalogue service of {world.theme}; `README.md` says how to start and stop it,
`{API_DOC}` and `docs/openapi.yaml` document its API and `{KEY_FILE}` holds the API key. `{REQUEST}` names the
category asked for and any conditions on the records. Gather, through the API, every {world.noun} of category
`{world.category}` in the latest catalogue that meets the request. Stop the service when you are done.

1. `{RECORDS}`: the columns `id,title,region,{world.field_name}`, one row per {world.noun} of the category that the
   service returns (each once), with the values of the latest catalogue.
2. `{SUMMARY}`: `{{"category": "<category>", "count": <rows>, "total": <sum of {world.field_name}, 2 decimals>,
   "failed_ids": ["<id>", ...], "by_region": {{"<region>": <rows>, ...}}, "top_region": "<region>",
   "total_by_region": {{"<region>": <sum, 2 decimals>, ...}}}}` — `failed_ids` lists the ids the listing shows
   but whose record the service cannot return, `top_region` the region with the most rows (ties: the first
   by name).
"""


def row_check(world: World, keys: set[str] | None) -> Any:
    wanted = [r for r in rows(world) if keys is None or r["id"] in keys]
    return checks.csv_rows(RECORDS, ["id"], ["title", "region", world.field_name], wanted,
                           exact_keys=keys is None, tolerance=TOLERANCE), wanted  # fmt: skip


def items(world: World, design: Design, patterns: Mapping[str, int]) -> list[Item]:
    facts = ("api.contract", "request.category")
    every = rows(world)
    anchor = str(every[0]["id"])
    check, wanted = row_check(world, None)
    result = [
        Item(
            "records.rows",
            f"records.csv holds exactly the {world.noun}s of the category the service returns, each once, with "
            "the latest values.",
            RECORDS,
            check,
            wanted,
            facts,
            "Every listed id of the category read from the latest snapshot, the removed ones aside.",
        )
    ]
    for pattern_id in ROW_PATTERNS:
        if pattern_id not in patterns:
            continue
        keys = {*world.tags.get(pattern_id, set()), anchor} & {str(r["id"]) for r in every}
        check, wanted = row_check(world, None if pattern_id == "scope_distractor" else keys)
        result.append(
            Item(
                f"records.{pattern_id}",
                f"records.csv's rows where the {pattern_id.replace('_', ' ')} challenge lies are right, each once.",
                RECORDS,
                check,
                wanted,
                design.facts_of(pattern_id) or facts,
                design.forms[pattern_id],
                patterns=(pattern_id,),
            )
        )
    cross = ("cross_deliverable_agreement",) if "cross_deliverable_agreement" in patterns else ()
    failing = tuple(p for p in ("transient_service_failure_retry", "resource_budget") if p in patterns)
    result += [
        Item(
            "summary.count",
            "summary.json's count is the number of records the service returns for the category.",
            SUMMARY,
            checks.json_value(SUMMARY, "$.count", len(every), tolerance=0),
            len(every),
            facts,
            "The rows of records.csv.",
            patterns=cross,
        ),
        Item(
            "summary.total",
            f"summary.json's total is the sum of {world.field_name} over the category.",
            SUMMARY,
            checks.json_value(SUMMARY, "$.total", total(world), tolerance=0.011),
            total(world),
            facts,
            "The sum of the latest values of the rows.",
            patterns=cross,
            secret=True,
        ),
        Item(
            "summary.failed_ids",
            "summary.json's failed_ids are exactly the listed ids whose record answers 404.",
            SUMMARY,
            checks.json_value(SUMMARY, "$.failed_ids", failed_ids(world), unordered=True),
            failed_ids(world),
            ("api.contract",),
            "The ids the batch reads report missing (permanent 404s), after retrying transient failures.",
            patterns=failing,
        ),
    ]
    level = world.summary_level
    if level >= 1:
        result.append(
            Item(
                "summary.by_region",
                "summary.json's by_region counts the rows per region.",
                SUMMARY,
                checks.json_value(SUMMARY, "$.by_region", by_region(world), tolerance=0),
                by_region(world),
                facts,
                "records.csv's rows grouped by region.",
                patterns=cross,
            )
        )
    if level >= 2:
        result.append(
            Item(
                "summary.top_region",
                "summary.json names the region with the most rows.",
                SUMMARY,
                checks.json_value(SUMMARY, "$.top_region", top_region(world)),
                top_region(world),
                facts,
                "The largest count of by_region, ties by name.",
                patterns=cross,
            )
        )
    if level >= 3:
        result.append(
            Item(
                "summary.total_by_region",
                f"summary.json sums {world.field_name} per region.",
                SUMMARY,
                checks.json_value(SUMMARY, "$.total_by_region", value_by_region(world), tolerance=0.011),
                value_by_region(world),
                facts,
                "records.csv's values summed by region.",
                patterns=cross,
            )
        )
    return result


KIT = WebApiKit()
