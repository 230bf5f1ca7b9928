"""Kit 5: SQL / database drift.

A shop's live SQLite database whose schema has drifted from its migrations (columns added by hand,
migrations applied without a record or recorded without being applied), rows with traps (re-imported
duplicates, soft deletes and test accounts, NULL and sentinel discounts, mixed currencies, refunds,
a local-time month, a stale snapshot) → a SQL query of the month's revenue by country, which the
verifier runs on its own copy of the database and on a copy holding other orders, and a JSON report
of the figures and the schema drift.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from skill2env.kits import checks
from skill2env.kits.base import Kit
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item, apply_patterns
from skill2env.kits.sqldrift.docs import DATABASE, OPS_LOG, SETTINGS, database_script, render_world
from skill2env.kits.sqldrift.patterns import COUNTRY, PATTERNS, TRANSFORMERS
from skill2env.kits.sqldrift.world import World, figures, generate, month_text, pending, untracked
from skill2env.patterns.models import InformationLevel, Trait
from skill2env.rubric import CheckSpec

QUERY = "output/revenue_by_country.sql"
REPORT = "output/report.json"
COLUMNS = ("country", "orders", "revenue_eur")
ANCHOR = "DE"
"""A country with orders in every world, checked beside each pattern's countries (an empty result is no answer)."""
TOLERANCE = 0.011
CHECK_SOURCE = (Path(__file__).parent / "querycheck.py").read_text(encoding="utf-8")


class SqlDriftKit(Kit):
    name = "sqldrift"
    title = "SQL reporting on a drifted database"
    formats = ("sqlite", "sql", "ini", "markdown", "csv")
    patterns = PATTERNS
    traits: ClassVar[Mapping[Trait, float]] = {
        Trait.DATABASE: 1.6,
        Trait.PERSISTENT_STATE: 0.2,
        Trait.NUMERIC_COMPUTATION: 0.1,
        Trait.TEMPORAL_DATA: 0.1,
    }
    tool_patterns: ClassVar[Mapping[Trait, str]] = {
        Trait.DATABASE: "schema_drift_between_exports",
        Trait.PERSISTENT_STATE: "docs_disagree_with_live_state",
        Trait.TEMPORAL_DATA: "implicit_timezone",
        Trait.NUMERIC_COMPUTATION: "units_hidden_in_header",
        Trait.TABULAR_DATA: "duplicate_claim_across_periods",
        Trait.STRUCTURED_DATA: "sentinel_missing_values",
    }
    starters = (
        "schema_drift_between_exports",
        "docs_disagree_with_live_state",
        "duplicate_claim_across_periods",
        "sentinel_missing_values",
        "stale_derived_artifact",
    )
    solver_module = "skill2env.kits.sqldrift.solver"
    naive_module = "skill2env.kits.sqldrift.naive"

    transformers = TRANSFORMERS

    def generate_world(self, seed: int, salt: int) -> World:
        return generate(seed, salt)

    def world(self, seed: int, patterns: Mapping[str, int], salt: int = 0, variant: int = 0) -> tuple[World, Design]:
        """The base world, or (`variant` 1) the verifier's second copy holding other orders."""
        if variant == 0:
            return super().world(seed, patterns, salt)
        world, design = generate(seed, salt, variant), Design()
        apply_patterns("sqldrift", TRANSFORMERS, world, patterns, design, seed=seed, salt=salt)
        return world, design

    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        world, design = self.world(seed, patterns, salt)
        shadow, _ = self.world(seed, patterns, salt, variant=1)
        workspace, script = render_world(world)
        month = month_text(world.month)
        composition = Composition(
            title="Report the month's revenue from the shop database",
            goal=f"Compute the shop's net revenue by country for {month} from its live database, and report "
            "how the live schema has drifted from its migrations.",
            body=instruction_body(month),
            workspace=workspace,
            facts=[],
            challenges=[],
            deliverables=[
                (QUERY, "sql", "one SELECT statement: the month's orders and net revenue by country", 0.55),
                (REPORT, "json", "the month's totals and the schema drift", 0.45),
            ],
            items=[],
        )
        found = InformationLevel.DISCOVERABLE
        composition.fact("goal.month", "the reporting month", InformationLevel.STATED, month)
        composition.fact("settings.month", "the reporting month", found, month, location=SETTINGS)
        composition.fact(
            "revenue.rule", "how an order's net revenue is computed", found, "discount_cents", location="README.md"
        )
        composition.fact(
            "schema.migrations",
            "the migrations declare the schema",
            found,
            "CREATE TABLE orders",
            location="migrations/0002_create_orders.sql",
        )
        composition.fact("ops.log", "what operations changed by hand", found, "Operations log", location=OPS_LOG)
        composition.plant(design)
        for pattern_id, level in patterns.items():
            composition.challenges.append(
                ChallengeSpec(pattern_id, level, design.forms[pattern_id], design.facts_of(pattern_id))
            )
        composition.items = items(world, shadow, script, design, patterns)
        return composition


def instruction_body(month: str) -> str:
    return f"""The shop's live SQLite database is `{DATABASE}`; `migrations/` holds the migrations that are meant to
describe its schema, `README.md` the revenue rules, `{SETTINGS}` the reporting settings and `{OPS_LOG}` what
operations did by hand. Report the net revenue by country for the reporting month {month}.

1. `{QUERY}`: one SQL `SELECT` statement (SQLite dialect) that, run read-only on the database as it is now,
   returns one row per country with revenue in the month, with the columns `country`, `orders` (the number of
   orders that are revenue) and `revenue_eur` (net revenue in EUR, rounded to cents). The statement is also
   run on other copies of this database with the same schema and other orders, so it must compute every
   figure from the tables; it must not change anything.
2. `{REPORT}`:
   `{{"month": "<YYYY-MM>", "orders": <n>, "revenue_eur": <x>, "top_country": "<country>", "countries": <n>,
   "pending_migrations": ["<version>", ...], "untracked_columns": ["<table>.<column>", ...]}}` — the month's
   totals over all countries (as the query returns them), the country with the highest revenue, the number
   of countries with revenue, the versions of the migrations whose changes the live schema does not hold
   (a version is the digits that open the migration's file name, as a string), and the live columns that
   no migration declares (the `schema_migrations` bookkeeping table aside).
"""


def packed(script: str) -> str:
    return base64.b64encode(zlib.compress(script.encode("utf-8"), 9)).decode("ascii")


def rows_of(world: World) -> list[list[Any]]:
    return [[country, n, value] for country, (n, value) in figures(world).items()]


def query_check(cases: list[dict[str, Any]], keys: list[str] | None) -> CheckSpec:
    args: dict[str, Any] = {"path": QUERY, "cases": cases, "columns": list(COLUMNS), "tolerance": TOLERANCE}
    if keys is not None:
        args["keys"] = keys
    return CheckSpec(check="python", params={"source": CHECK_SOURCE, "function": "check", "args": args})


def items(world: World, shadow: World, script: str, design: Design, patterns: Mapping[str, int]) -> list[Item]:
    truth, other = rows_of(world), rows_of(shadow)
    cases = [{"db": packed(script), "rows": truth}, {"db": packed(database_script(shadow)), "rows": other}]
    facts = ("revenue.rule", "schema.migrations", "goal.month")
    result = [
        Item(
            "query.rows",
            "The query returns every country's orders and net revenue for the month, on the database and on a "
            "copy holding other orders.",
            QUERY,
            query_check(cases, None),
            {"database": truth, "copy": other},
            facts,
            "The revenue rules applied to the live tables, grouped by country.",
        )
    ]
    for pattern_id in patterns:
        if pattern_id not in COUNTRY:
            continue
        keys = sorted({*world.tags.get(pattern_id, set()), ANCHOR})
        wanted = {"database": [r for r in truth if r[0] in keys], "copy": [r for r in other if r[0] in keys]}
        result.append(
            Item(
                f"query.{pattern_id}",
                f"The query's rows for {', '.join(keys)} (where the {pattern_id.replace('_', ' ')} challenge "
                "lies) are right on both databases.",
                QUERY,
                query_check(cases, keys),
                wanted,
                design.facts_of(pattern_id) or facts,
                design.forms[pattern_id],
                patterns=(pattern_id,),
            )
        )
    total = round(sum(r[2] for r in truth), 2)
    orders = sum(r[1] for r in truth)
    cross = ("cross_deliverable_agreement",) if "cross_deliverable_agreement" in patterns else ()
    stale = ("stale_derived_artifact",) if "stale_derived_artifact" in patterns else ()
    result.append(
        Item(
            "report.revenue",
            "report.json's revenue_eur is the month's net revenue over all countries.",
            REPORT,
            checks.json_value(REPORT, "$.revenue_eur", total, tolerance=TOLERANCE),
            total,
            facts,
            "The sum of the query's revenue_eur.",
            patterns=(*stale, *cross),
            secret=True,
        )
    )
    result.append(
        Item(
            "report.orders",
            "report.json's orders is the number of the month's orders that are revenue.",
            REPORT,
            checks.json_value(REPORT, "$.orders", orders, tolerance=0),
            orders,
            facts,
            "The sum of the query's orders.",
            patterns=cross,
        )
    )
    level = patterns.get("cross_deliverable_agreement", 0)
    if level >= 2:
        top = min(truth, key=lambda r: (-r[2], r[0]))[0]
        result.append(
            Item(
                "report.top_country",
                "report.json names the country with the highest revenue.",
                REPORT,
                checks.json_value(REPORT, "$.top_country", top),
                top,
                facts,
                "The query's largest revenue_eur.",
                patterns=cross,
            )
        )
    if level >= 3:
        result.append(
            Item(
                "report.countries",
                "report.json counts the countries with revenue.",
                REPORT,
                checks.json_value(REPORT, "$.countries", len(truth), tolerance=0),
                len(truth),
                facts,
                "The query's rows.",
                patterns=cross,
            )
        )
    drift = ("docs_disagree_with_live_state",) if "docs_disagree_with_live_state" in patterns else ()
    waiting = pending(world)
    result.append(
        Item(
            "report.pending_migrations",
            "report.json lists exactly the migrations whose changes the live schema does not hold.",
            REPORT,
            checks.json_value(REPORT, "$.pending_migrations", waiting, unordered=True),
            waiting,
            ("schema.migrations",),
            "Each migration's tables, columns and indexes looked up in the live schema.",
            patterns=drift,
        )
    )
    extra = untracked(world)
    if extra:
        result.append(
            Item(
                "report.untracked_columns",
                "report.json lists exactly the live columns no migration declares.",
                REPORT,
                checks.json_value(REPORT, "$.untracked_columns", extra, unordered=True),
                extra,
                design.facts_of("schema_drift_between_exports") or ("schema.migrations",),
                "The live columns less every column the migrations create or add.",
                patterns=("schema_drift_between_exports",),
            )
        )
    return result


KIT = SqlDriftKit()
