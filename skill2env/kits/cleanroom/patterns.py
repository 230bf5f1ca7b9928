"""Clean-room pattern transformers: each builds one pool pattern into the exports at intensity 1-3."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal

from skill2env.kits.cleanroom.world import STATUSES, Export, Order, Record, World, month_days
from skill2env.kits.spec import Design

README = "exports/README.md"
CHANGELOG = "exports/CHANGELOG.md"
ACCENTED = ("Müller, José", "García, Zoë", "Lefèvre, Émile", "Söderström, Chloé")

Transformer = Callable[[World, int, random.Random, Design], None]


def _plain(world: World, *, fmt: str | None = None) -> list[tuple[Export, Record]]:
    """Base records no pattern touched yet (optionally of one export format)."""
    return [
        (e, r) for e, _, r in world.records() if not r.patterns and r.reason is None and (fmt is None or e.fmt == fmt)
    ]


def _csv_exports(world: World) -> list[Export]:
    return [e for e in world.exports if e.fmt == "csv" and not e.container and "!/" not in e.name]


def new_order(world: World, rng: random.Random, export: Export, **changes: object) -> Order:
    used = {r.order.number for _, _, r in world.records()}
    number = next(n for n in (rng.randint(1000, 99999) for _ in range(1000)) if n not in used)
    template = rng.choice(
        [r.order for _, _, r in world.records() if r.order.customer_id not in world.internal_customers]
    )
    day = rng.choice(month_days(export.month))
    currency = rng.choice({"EU": ("EUR",), "US": ("USD",), "APAC": ("JPY", "SGD")}[export.region])
    amount = Decimal(rng.randint(2000, 400000)) if currency == "JPY" else Decimal(rng.randint(1500, 250000)) / 100
    order = Order(
        number, export.region, day, template.customer, template.name, amount, currency, rng.choice(STATUSES), "web"
    )
    return replace(order, **changes)  # type: ignore[arg-type]


def add(export: Export, record: Record, pattern: str) -> Record:
    record.patterns.add(pattern)
    export.records.append(record)
    return record


# -- environment understanding ---------------------------------------------------------------------


def sentinel_missing_values(world: World, level: int, rng: random.Random, design: Design) -> None:
    spellings = {1: ["N/A"], 2: ["NULL", "-", ""], 3: ["NULL", "-", ""]}[level]
    world.missing_spellings = sorted({"N/A", *spellings}, key=lambda s: (s == "", s))
    chosen = rng.sample(_plain(world), len(spellings) + 3)
    for (_export, record), spelling in zip(chosen, spellings, strict=False):
        record.values["amount"], record.reason = spelling, "missing_amount"
        record.patterns.add("sentinel_missing_values")
    numeric = rng.random() < {1: 0.3, 2: 0.6, 3: 1.0}[level]
    if numeric:
        world.sentinels["-1"] = README
        export, record = chosen[len(spellings)]
        record.values["amount"], record.reason = -1, "missing_amount"
        record.patterns.add("sentinel_missing_values")
    if level == 3:
        apac = [(e, r) for e, r in chosen[len(spellings) + 1 :] if e.region == "APAC"] or _plain(world, fmt="xlsx")[:1]
        export, record = apac[0]
        export.notes_sheet = "Exports from the old APAC order system: an amount of 999999 means the amount is missing."
        world.sentinels["999999"] = export.name
        record.values["amount"], record.reason = 999999, "missing_amount"
        record.patterns.add("sentinel_missing_values")
    design.plant(
        "sentinel_missing_values",
        "missing.spellings",
        "how missing amounts are written",
        ", ".join(x for x in world.missing_spellings if x),
        README,
    )
    design.forms["sentinel_missing_values"] = {
        1: "Missing amounts are written N/A (documented); sometimes a documented numeric sentinel -1 too.",
        2: "Three null spellings across files, and often the numeric sentinel -1 documented in the data dictionary.",
        3: "As level 2, plus 999999 meaning missing in one APAC export, documented only on a Notes sheet of it.",
    }[level]


def scope_distractor(world: World, level: int, rng: random.Random, design: Design) -> None:
    channels = ["test", "test"] if level == 1 or (level == 2 and rng.random() < 0.6) else ["qa-test", "test-eu"]
    for channel in channels:
        export = rng.choice(world.exports[:9])
        add(export, Record(new_order(world, rng, export, channel=channel), reason="out_of_scope"), "scope_distractor")
    if level == 3:
        taken = {r.order.customer for _, _, r in world.records()}
        internal = next(c for c in (rng.randint(90000, 99999) for _ in range(100)) if c not in taken)
        for name in ("Internal, Purchasing", "Internal, Facilities"):
            export = rng.choice(world.exports[:9])
            order = new_order(world, rng, export, customer=internal, name=name)
            add(export, Record(order, reason="out_of_scope"), "scope_distractor")
        world.internal_customers = [f"C{internal:05d}"]
    design.plant(
        "scope_distractor",
        "scope.test-channels",
        "test orders carry a channel containing 'test'",
        channels[-1],
        "exports/",
    )
    design.forms["scope_distractor"] = {
        1: "Test orders (channel 'test') sit in the regular exports.",
        2: "Test orders carry channel variants such as 'qa-test' that an exact match misses.",
        3: "As level 2, plus orders of an internal customer listed only in reference/internal_customers.csv.",
    }[level]


def hidden_spreadsheet_content(world: World, level: int, rng: random.Random, design: Design) -> None:
    export = rng.choice([e for e in world.exports if e.fmt == "xlsx" and not e.container])
    export.legend = {1: "visible", 2: "hidden", 3: "veryHidden"}[level]
    for _ in range(2):
        record = add(export, Record(new_order(world, rng, export), reason="withdrawn"), "hidden_spreadsheet_content")
        record.values["hidden"] = 1
    if level == 3:
        export.hidden_flag = True
        visible = [r for r in export.records if not r.patterns and r.reason is None]
        record = rng.choice(visible)
        record.values["wd"], record.reason = "Y", "withdrawn"
        record.patterns.add("hidden_spreadsheet_content")
    design.plant(
        "hidden_spreadsheet_content", "withdrawn.legend", "hidden rows are withdrawn orders", "withdrawn", export.name
    )
    design.forms["hidden_spreadsheet_content"] = {
        1: "Withdrawn orders are hidden rows of an APAC workbook; a visible Legend sheet says so.",
        2: "Hidden withdrawn rows, with the legend itself on a hidden sheet.",
        3: "A very hidden legend, hidden rows and a hidden 'wd' column flagging withdrawn visible rows.",
    }[level]


def implicit_constraint(world: World, level: int, rng: random.Random, design: Design) -> None:
    csv_exports = [e for e in world.exports[:9] if e.fmt == "csv"]
    export = rng.choice(csv_exports)
    export.upper_names = level == 3 or rng.random() < 0.5  # else the convention holds already: nothing to fix
    for record in export.records:
        record.patterns.add("implicit_constraint")
    if level >= 2:
        export = rng.choice([e for e in world.exports[:9] if e.fmt == "xlsx"])
        export.lower_ids = True
        for record in export.records:
            record.patterns.add("implicit_constraint")
    if level == 3:
        world.minimum_eur = Decimal("5.00")
        for _ in range(2):
            export = rng.choice(csv_exports)
            add(
                export,
                Record(new_order(world, rng, export, amount=Decimal(rng.randint(100, 400)) / 100)),
                "implicit_constraint",
            )
    design.plant(
        "implicit_constraint",
        "reference.example",
        "last quarter's clean file shows the output conventions",
        "customer_name",
        f"reference/clean_{world.reference_quarter}.csv",
    )
    design.forms["implicit_constraint"] = {
        1: "Customer names must be title case as in last quarter's clean file; one export may write capitals.",
        2: "Unwritten conventions from the example: upper-case customer ids, and often title-case names.",
        3: "As level 2, and a pricing policy's minimum order value implies rejecting sub-minimum orders.",
    }[level]


# -- long-horizon consistency ----------------------------------------------------------------------


def duplicate_claim_across_periods(world: World, level: int, rng: random.Random, design: Design) -> None:
    region = rng.choice(("EU", "US"))
    month = rng.randrange(2)
    source, following = world.export(region, month), world.export(region, month + 1)
    originals = rng.sample([r for r in source.records if not r.patterns and r.reason is None], 2)
    for record in originals:
        record.patterns.add("duplicate_claim_across_periods")
    if level == 1:
        for record in originals:
            add(following, Record(record.order), "duplicate_claim_across_periods")
    else:
        name = source.name.replace(".csv", "_reexport.csv")
        again = Export(name, region, source.month, following.exported_at + timedelta(days=8))
        world.exports.append(again)
        for index, record in enumerate(originals):
            status = rng.choice([s for s in STATUSES if s != record.order.status])
            copy = Record(replace(record.order, status=status))
            if level == 3 and index == 0:
                copy.values["order_id"] = f"ORD-{record.order.number}"
            add(again, copy, "duplicate_claim_across_periods")
        if level == 3 or rng.random() >= 0.4:
            add(following, Record(originals[0].order), "duplicate_claim_across_periods")
        if level == 3:
            twin = new_order(
                world,
                rng,
                source,
                customer=originals[1].order.customer,
                name=originals[1].order.name,
                amount=originals[1].order.amount,
                currency=originals[1].order.currency,
            )
            add(again, Record(twin), "duplicate_claim_across_periods")
    design.plant(
        "duplicate_claim_across_periods",
        "duplicates.order",
        "orders re-exported in a later export",
        originals[0].order.order_id,
        source.name,
    )
    design.forms["duplicate_claim_across_periods"] = {
        1: "Two orders are re-exported identically in the next month's export; the newer copy counts.",
        2: "A re-export file (newer than the next month's export, by the manifest) changes statuses, and the "
        "next month's export may still carry an old copy.",
        3: "As level 2, one re-exported id is written without zero padding, beside a legitimate look-alike order.",
    }[level]


def cross_deliverable_agreement(world: World, level: int, rng: random.Random, design: Design) -> None:
    world.render["cross"] = level
    design.plant("cross_deliverable_agreement", "deliverables.agree", "the summary counts the two CSVs' rows", None, "")
    design.forms["cross_deliverable_agreement"] = {
        1: "The summary's counts by reason must agree with rejects.csv and clean.csv.",
        2: "A corrections file fixes two records, which must reach all three deliverables.",
        3: "A second corrections file supersedes the first, which holds one fix that must not be applied.",
    }[level]
    if level == 1:
        return
    export = rng.choice(world.exports[:9])
    fixed_amount = add(export, Record(new_order(world, rng, export)), "cross_deliverable_agreement")
    fixed_amount.values["amount"] = "N/A"
    fixed_status = add(export, Record(new_order(world, rng, export)), "cross_deliverable_agreement")
    fixed_status.values["status"] = "unknown"
    amount = fixed_amount.order.amount
    rows = [
        (fixed_amount.order.order_id, "amount", f"{amount:.2f}" if amount % 1 else f"{amount:.0f}"),
        (fixed_status.order.order_id, "status", fixed_status.order.status),
    ]
    if level == 2:
        world.corrections["corrections.csv"] = rows
        return
    victim = rng.choice([r for _, r in _plain(world)])
    wrong = next(s for s in STATUSES if s != victim.order.status)
    world.corrections["corrections.csv"] = [
        (rows[0][0], "amount", "1.00"),
        rows[1],
        (victim.order.order_id, "status", wrong),
    ]
    world.corrections["corrections_v2.csv"] = rows
    world.superseded = "corrections.csv"
    victim.patterns.add("cross_deliverable_agreement")


def exhaustive_item_accounting(world: World, level: int, rng: random.Random, design: Design) -> None:
    plain_csv = [e for e in _csv_exports(world) if e in world.exports[:9]]
    gz = rng.choice(plain_csv)
    gz.container, gz.name = "gz", gz.name + ".gz"
    tagged = [gz]
    if level >= 2:
        late = [e for e in world.exports[:9] if e.month == world.months[2] and e is not gz][:2]
        for export in late:
            export.container = "zip"
            export.name = "exports/late_exports.zip!/" + export.name.rsplit("/", 1)[1]
        tagged += late
    if level == 3:
        region = rng.choice(("EU", "US"))
        month = world.months[2]
        name = f"inbox/{region.lower()}_{month:%Y-%m}_supplement.csv"
        extra = Export(name, region, month, world.export(region, 2).exported_at + timedelta(days=6))
        for _ in range(3):
            extra.records.append(Record(new_order(world, rng, extra)))
        world.exports.append(extra)
        world.late_files.append(name)
        tagged.append(extra)
    for export in tagged:
        for record in export.records:
            record.patterns.add("exhaustive_item_accounting")
    design.plant(
        "exhaustive_item_accounting",
        "manifest.files",
        "the manifest lists every export of the quarter",
        len(world.exports),
        "exports/MANIFEST.csv",
    )
    design.forms["exhaustive_item_accounting"] = {
        1: "One export listed in the manifest is gzip-compressed.",
        2: "As level 1, and two exports sit inside a ZIP archive.",
        3: "As level 2, and a manifest amendment in inbox/ adds a late supplement export.",
    }[level]


# -- error recovery --------------------------------------------------------------------------------


def corrupted_input_repair(world: World, level: int, rng: random.Random, design: Design) -> None:
    export = rng.choice(_csv_exports(world))
    small = {"amount": Decimal(rng.randint(1500, 90000)) / 100}
    bad = add(export, Record(new_order(world, rng, export, **small), reason="malformed"), "corrupted_input_repair")
    bad.values["shape"] = "extra"
    if level >= 2 and (level == 3 or rng.random() >= 0.6):
        shifted = add(
            export, Record(new_order(world, rng, export, **small), reason="malformed"), "corrupted_input_repair"
        )
        shifted.values["shape"] = "shifted"
    if level == 3:
        eu = [e for e in _csv_exports(world) if e.region == "EU"]
        target = max(eu, key=lambda e: (sum(1 for r in e.records if not r.patterns and r.reason is None), -eu.index(e)))
        plain = [r for r in target.records if not r.patterns and r.reason is None]
        for record in rng.sample(plain, min(2, len(plain))):
            record.order = replace(record.order, name=rng.choice(ACCENTED))
            record.values["encoding"] = "latin-1"
            record.patterns.add("corrupted_input_repair")
    design.plant(
        "corrupted_input_repair", "corrupt.row", "a row that does not fit its columns", bad.order.order_id, export.name
    )
    design.forms["corrupted_input_repair"] = {
        1: "One row has an unquoted delimiter in the customer name, so it has one field too many.",
        2: "As level 1, and a second broken row parses silently into shifted columns.",
        3: "As level 2, and a block of names in a UTF-8 file is written in Latin-1 bytes.",
    }[level]


def units_hidden_in_header(world: World, level: int, rng: random.Random, design: Design) -> None:
    if level == 1:
        export = rng.choice([e for e in _csv_exports(world) if e in world.exports[:9]])
        export.header["amount"], export.scale = "amount_cents", Decimal("0.01")
        records = export.records
        where = "amount_cents"
    elif level == 2:
        export = rng.choice([e for e in world.exports[:9] if e.fmt == "xlsx"])
        export.scale = Decimal(1000)
        if rng.random() < 0.5:
            export.header["amount"], where = "amount_thousands", "amount_thousands"
        else:
            export.title, where = "All amounts in thousands of the order currency", "thousands"
        records = export.records
    else:
        export = rng.choice([e for e in _csv_exports(world) if e in world.exports[:9]])
        export.switch_after = rng.randint(2, 4)
        records = export.records[export.switch_after :]
        where = "in cents"
    for record in records:
        record.patterns.add("units_hidden_in_header")
    design.plant(
        "units_hidden_in_header", "units.scale", f"amounts written at another scale ({where})", where, export.name
    )
    design.forms["units_hidden_in_header"] = {
        1: "One export writes amounts in cents, said only by its column name.",
        2: "An APAC workbook's amounts are in thousands, said by its column name or only by a title row a default "
        "reader takes as header.",
        3: "One CSV switches to cents part-way, announced by a comment line between records.",
    }[level]


def schema_drift_between_exports(world: World, level: int, rng: random.Random, design: Design) -> None:
    drifted = [world.export("US", 1), world.export("US", 2)]
    for export in drifted:
        export.header["customer_id"] = "customer"
        for record in export.records:
            record.patterns.add("schema_drift_between_exports")
    world.render["drift"] = level
    if level >= 2 and (level == 3 or rng.random() >= 0.5):
        world.status_synonyms["settled"] = "paid"
        for export in drifted:
            for record in export.records:
                if record.order.status == "paid" and "status" not in record.values:
                    record.values["status"] = "settled"
    if level == 3:
        export = drifted[1]
        export.iso_after = rng.randint(2, 4)
    design.plant(
        "schema_drift_between_exports", "drift.rename", "the US customer column was renamed", "customer", CHANGELOG
    )
    design.forms["schema_drift_between_exports"] = {
        1: "From the second month the US export renames its customer column (in the changelog).",
        2: "As level 1, often with a new status value that replaces an old one.",
        3: "As level 2, and one US export switches to ISO dates part-way through the file.",
    }[level]


TRANSFORMERS: dict[str, Transformer] = {
    "sentinel_missing_values": sentinel_missing_values,
    "scope_distractor": scope_distractor,
    "hidden_spreadsheet_content": hidden_spreadsheet_content,
    "duplicate_claim_across_periods": duplicate_claim_across_periods,
    "cross_deliverable_agreement": cross_deliverable_agreement,
    "corrupted_input_repair": corrupted_input_repair,
    "implicit_constraint": implicit_constraint,
    "schema_drift_between_exports": schema_drift_between_exports,
    "units_hidden_in_header": units_hidden_in_header,
    "exhaustive_item_accounting": exhaustive_item_accounting,
}
PATTERNS = tuple(TRANSFORMERS)
