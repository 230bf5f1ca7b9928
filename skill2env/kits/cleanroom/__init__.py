"""Kit 2: tabular data clean-room.

A messy multi-region export (mixed date conventions, currencies and number formats, null spellings,
duplicates by re-export, invalid rows) and a target schema → a clean CSV, a rejects CSV with one
reason per record, and a JSON summary that reconciles them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from decimal import Decimal
from typing import ClassVar

from skill2env.kits import checks
from skill2env.kits.base import Kit
from skill2env.kits.cleanroom.docs import render_world
from skill2env.kits.cleanroom.patterns import PATTERNS, TRANSFORMERS
from skill2env.kits.cleanroom.world import REASONS, REGIONS, Expected, World, expected, generate
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item
from skill2env.patterns.models import InformationLevel, Trait

CLEAN = "output/clean.csv"
REJECTS = "output/rejects.csv"
SUMMARY = "output/summary.json"
CLEAN_COLUMNS = ("order_date", "customer_id", "customer_name", "amount_eur", "status")


class CleanRoomKit(Kit):
    name = "cleanroom"
    title = "Tabular data clean-room"
    formats = ("csv", "xlsx", "gzip", "zip", "markdown", "json")
    patterns = PATTERNS
    traits: ClassVar[Mapping[Trait, float]] = {
        Trait.TABULAR_DATA: 1.2,
        Trait.STRUCTURED_DATA: 0.5,
        Trait.DATABASE: 0.5,
        Trait.NUMERIC_COMPUTATION: 0.4,
        Trait.TEMPORAL_DATA: 0.3,
    }
    tool_patterns: ClassVar[Mapping[Trait, str]] = {
        Trait.TABULAR_DATA: "hidden_spreadsheet_content",
        Trait.DATABASE: "duplicate_claim_across_periods",
        Trait.STRUCTURED_DATA: "schema_drift_between_exports",
        Trait.NUMERIC_COMPUTATION: "units_hidden_in_header",
        Trait.TEMPORAL_DATA: "schema_drift_between_exports",
        Trait.SKILL_SCRIPTS: "corrupted_input_repair",
        Trait.CLI_TOOLS: "exhaustive_item_accounting",
    }
    starters = (
        "sentinel_missing_values",
        "duplicate_claim_across_periods",
        "scope_distractor",
        "corrupted_input_repair",
        "exhaustive_item_accounting",
    )
    solver_module = "skill2env.kits.cleanroom.solver"
    naive_module = "skill2env.kits.cleanroom.naive"

    transformers = TRANSFORMERS

    def generate_world(self, seed: int, salt: int) -> World:
        return generate(seed, salt)

    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        world, design = self.world(seed, patterns, salt)
        workspace = render_world(world)
        truth = expected(world)
        composition = Composition(
            title=f"Build the clean {world.period} order table",
            goal=f"Turn the {world.period} regional order exports into one clean order table, with every rejected "
            "record accounted for and a reconciling summary.",
            body=instruction_body(world),
            workspace=workspace,
            facts=[],
            challenges=[],
            deliverables=[
                (CLEAN, "csv", "one row per valid order, in the target schema", 0.4),
                (REJECTS, "csv", "one row per rejected input record, with its reason", 0.3),
                (SUMMARY, "json", "record counts by outcome and amounts by region", 0.3),
            ],
            items=[],
        )
        found = InformationLevel.DISCOVERABLE
        composition.fact("goal.period", f"the table covers {world.period}", InformationLevel.STATED, world.period)
        composition.fact(
            "exports.conventions",
            "per-region delimiters, date formats and decimal separators",
            found,
            "DD.MM.YYYY",
            location="exports/README.md",
        )
        composition.fact(
            "exports.manifest",
            "the list of exports and when each was produced",
            found,
            "exported_at",
            location="exports/MANIFEST.csv",
        )
        composition.fact("exports.records", "the exported order records", found, truth.records, location="exports/")
        composition.fact(
            "fx.rates",
            "EUR per unit of each currency",
            found,
            ", ".join(f"{c}={v}" for c, v in sorted(world.fx.items())),
            location="fx_rates.csv",
        )
        composition.fact("schema.target", "the target schema", found, "zero-padded", location="schema.md")
        composition.plant(design)
        for pattern_id, level in patterns.items():
            composition.challenges.append(
                ChallengeSpec(pattern_id, level, design.forms[pattern_id], design.facts_of(pattern_id))
            )
        composition.items = items(world, truth, design, patterns)
        return composition


def instruction_body(world: World) -> str:
    return f"""The finance data team needs one clean table of the {world.period} customer orders from the three
regional order systems. Their exports are in `exports/` (conventions in `exports/README.md`, the list of exports in
`exports/MANIFEST.csv`); the target schema is `schema.md`; exchange rates are in `fx_rates.csv`.

Every input record must end up in exactly one output: `clean.csv`, or `rejects.csv` with one reason, the first
that applies of:

- `malformed`: the record does not parse into its export's columns (a wrong number of fields, or a value present
  but unreadable for its column);
- `withdrawn`: the export marks the order as withdrawn;
- `out_of_scope`: not a customer sale (test orders, internal customers, anything the documents exclude);
- `out_of_period`: order date outside {world.period};
- `missing_amount`: the amount is missing;
- `bad_status`: the status maps to none of `paid`, `refunded`, `pending`;
- `duplicate`: an older copy of an order that is kept from a more recently produced export.

Formats:

1. `output/clean.csv` with the header `order_id,region,order_date,customer_id,customer_name,amount_eur,status`,
   one row per order, values as the target schema says.
2. `output/rejects.csv` with the header `source,record,order_id,reason`: `source` is the export's path as the
   manifest lists it (a file inside an archive is `<archive>!/<member>`), `record` the record's 1-based position
   among that export's data records (header, title and comment lines do not count), `order_id` as written.
3. `output/summary.json`:
   `{{"input_records": n, "clean_records": n, "rejected_records": n, "rejected_by_reason": {{"<reason>": n}},
   "amount_eur_by_region": {{"EU": x, "US": x, "APAC": x}}, "total_amount_eur": x}}`
   (`rejected_by_reason` lists the reasons that occur; amounts in EUR with two decimals, as JSON numbers).
"""


def items(world: World, truth: Expected, design: Design, patterns: Mapping[str, int]) -> list[Item]:
    result: list[Item] = []
    source_facts = ("exports.records", "exports.conventions", "schema.target")
    tagged = {(e.name, i): r.patterns for e, i, r in world.records()}
    kept_tags = {oid: rec.patterns for oid, (_, _, rec) in truth.kept.items()}
    ids = [{"order_id": oid, "region": row["region"]} for oid, row in sorted(truth.clean.items())]
    result.append(
        Item(
            "clean.orders",
            "clean.csv holds exactly the valid orders, each once, with its region.",
            CLEAN,
            checks.csv_rows(CLEAN, ["order_id"], ["region"], ids, exact_keys=True),
            ids,
            source_facts,
            "Valid records, deduplicated by normalised order id.",
        )
    )

    def clean_rows(select: set[str]) -> list[dict[str, object]]:
        return [{"order_id": oid, **{c: truth.clean[oid][c] for c in CLEAN_COLUMNS}} for oid in sorted(select)]

    def reject_rows(select: list[tuple[str, int]]) -> list[dict[str, object]]:
        return [{"source": s, "record": str(i), "reason": truth.rejects[(s, i)][1]} for s, i in sorted(select)]

    base_clean = {oid for oid, tags in kept_tags.items() if not tags}
    if base_clean:
        rows = clean_rows(base_clean)
        result.append(
            Item(
                "clean.base",
                "Orders without designed anomalies have the right values.",
                CLEAN,
                checks.csv_rows(CLEAN, ["order_id"], list(CLEAN_COLUMNS), rows),
                rows,
                (*source_facts, "fx.rates"),
                "Parsed per region, converted to EUR.",
            )
        )
    keys = [{"source": s, "record": str(i)} for s, i in sorted(truth.rejects)]
    result.append(
        Item(
            "rejects.records",
            "rejects.csv lists exactly the rejected records.",
            REJECTS,
            checks.csv_rows(REJECTS, ["source", "record"], [], keys, exact_keys=True),
            keys,
            source_facts,
            "Every input record not in clean.csv.",
        )
    )
    base_rejects = [k for k in truth.rejects if not tagged[k]]
    if base_rejects:
        rows = reject_rows(base_rejects)
        result.append(
            Item(
                "rejects.base",
                "Rejected records without designed anomalies carry the right reason.",
                REJECTS,
                checks.csv_rows(REJECTS, ["source", "record"], ["reason"], rows),
                rows,
                source_facts,
                "The first reason that applies.",
            )
        )
    for pattern_id in patterns:
        facts = design.facts_of(pattern_id) or source_facts
        mine = {oid for oid, tags in kept_tags.items() if pattern_id in tags}
        if mine:
            rows = clean_rows(mine)
            result.append(
                Item(
                    f"clean.{pattern_id}",
                    f"Orders carrying the {pattern_id.replace('_', ' ')} challenge have the right values.",
                    CLEAN,
                    checks.csv_rows(CLEAN, ["order_id"], list(CLEAN_COLUMNS), rows),
                    rows,
                    facts,
                    design.forms[pattern_id],
                    patterns=(pattern_id,),
                )
            )
        rejected = [k for k in truth.rejects if pattern_id in tagged[k]]
        if rejected:
            rows = reject_rows(rejected)
            result.append(
                Item(
                    f"rejects.{pattern_id}",
                    f"Records carrying the {pattern_id.replace('_', ' ')} "
                    "challenge are rejected with the right reason.",
                    REJECTS,
                    checks.csv_rows(REJECTS, ["source", "record"], ["reason"], rows),
                    rows,
                    facts,
                    design.forms[pattern_id],
                    patterns=(pattern_id,),
                )
            )
    reasons = Counter(reason for _, reason in truth.rejects.values())
    by_reason = {reason: reasons[reason] for reason in REASONS if reasons[reason]}
    exhaustive = ("exhaustive_item_accounting",) if "exhaustive_item_accounting" in patterns else ()
    cross = ("cross_deliverable_agreement",) if "cross_deliverable_agreement" in patterns else ()
    result.append(
        Item(
            "summary.input_records",
            "summary.json counts every input record.",
            SUMMARY,
            checks.json_value(SUMMARY, "$.input_records", truth.records),
            truth.records,
            ("exports.manifest", "exports.records"),
            "Records over every export of the manifest.",
            patterns=exhaustive,
        )
    )
    result.append(
        Item(
            "summary.clean_records",
            "summary.json counts the clean orders.",
            SUMMARY,
            checks.json_value(SUMMARY, "$.clean_records", len(truth.clean)),
            len(truth.clean),
            source_facts,
            "Rows of clean.csv.",
        )
    )
    result.append(
        Item(
            "summary.rejected_by_reason",
            "summary.json's counts by reason agree with rejects.csv.",
            SUMMARY,
            checks.json_value(SUMMARY, "$.rejected_by_reason", by_reason),
            by_reason,
            source_facts,
            "Rows of rejects.csv by reason.",
            patterns=cross,
        )
    )
    by_region = {
        region: float(
            sum(
                (Decimal(str(row["amount_eur"])) for row in truth.clean.values() if row["region"] == region), Decimal(0)
            )
        )
        for region in REGIONS
    }
    result.append(
        Item(
            "summary.amount_eur_by_region",
            "summary.json's amounts by region add up the clean rows.",
            SUMMARY,
            checks.json_value(SUMMARY, "$.amount_eur_by_region", by_region),
            by_region,
            (*source_facts, "fx.rates"),
            "Sum of amount_eur per region.",
        )
    )
    total = float(sum((Decimal(str(row["amount_eur"])) for row in truth.clean.values()), Decimal(0)))
    result.append(
        Item(
            "summary.total_amount_eur",
            "summary.json's total amount is right.",
            SUMMARY,
            checks.json_value(SUMMARY, "$.total_amount_eur", total),
            total,
            (*source_facts, "fx.rates"),
            "Sum of amount_eur over clean.csv.",
            secret=True,
        )
    )
    return result


KIT = CleanRoomKit()
