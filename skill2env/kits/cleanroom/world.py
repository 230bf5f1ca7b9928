"""The clean-room world: one quarter of orders exported by three regional systems, and its clean truth.

Every order is a true record; every export holds *records* that render one order (or garbage) in the
region's conventions. Pattern transformers add records, change how they are written and declare what
the clean-room must make of them; `expected` turns the declarations into the reference deliverables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from skill2env.kits.spec import QuarterWorld, seeded

CENT = Decimal("0.01")
REGIONS = ("EU", "US", "APAC")
CURRENCY = {"EU": ("EUR",), "US": ("USD",), "APAC": ("JPY", "SGD")}
FX = {
    "EUR": (Decimal(1), Decimal(1)),
    "USD": (Decimal("0.86"), Decimal("0.95")),
    "JPY": (Decimal("0.0058"), Decimal("0.0068")),
    "SGD": (Decimal("0.64"), Decimal("0.72")),
}
STATUSES = ("paid", "refunded", "pending")
REASONS = ("malformed", "withdrawn", "out_of_scope", "out_of_period", "missing_amount", "bad_status", "duplicate")
"""Reject reasons in precedence order: a record gets the first that applies."""
LAST = (
    "Müller",
    "Rossi",
    "Nowak",
    "García",
    "Lefèvre",
    "Söderström",
    "Okafor",
    "Tanaka",
    "Novak",
    "Dubois",
    "Jensen",
    "Kowalski",
    "Moreau",
    "Brennan",
    "Lindqvist",
    "Alvarez",
)
FIRST = ("Anna", "José", "Zoë", "Lukas", "Marta", "Chloé", "Jonas", "Ines", "Pavel", "Sofia", "Émile", "Greta")
CHANNELS = ("web", "store", "phone")


def q2(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass
class Order:
    number: int
    region: str
    day: date
    customer: int
    name: str
    amount: Decimal
    currency: str
    status: str
    channel: str = "web"

    @property
    def order_id(self) -> str:
        return f"ORD-{self.number:06d}"

    @property
    def customer_id(self) -> str:
        return f"C{self.customer:05d}"


@dataclass
class Record:
    """One data record of one export, as written, with what the clean-room must make of it."""

    order: Order
    values: dict[str, str | float | int | datetime | None] = field(default_factory=dict)
    """Column → raw value as the export writes it (filled by the renderer unless a pattern set it)."""
    reason: str | None = None
    """The reject reason the record deserves on its own (duplicates are decided across exports)."""
    raw_line: bytes | None = None
    """A CSV line written verbatim (malformed or differently encoded rows)."""
    patterns: set[str] = field(default_factory=set)
    status_override: str | None = None
    """The status the clean row must show when the written one is a synonym."""
    corrected: dict[str, str] = field(default_factory=dict)


@dataclass
class Export:
    name: str
    """Path relative to the workspace (`exports/eu_2024-04.csv`, an archive member `a.zip!/b.csv`)."""
    region: str
    month: date
    exported_at: datetime
    records: list[Record] = field(default_factory=list)
    header: dict[str, str] = field(default_factory=dict)
    """Canonical column → the name this export writes (renames, unit suffixes)."""
    scale: Decimal = Decimal(1)
    """Amounts as written are this many currency units (cents: 0.01; thousands: 1000)."""
    title: str | None = None
    switch_after: int | None = None
    """Records after this index are written in cents, announced by a comment line (CSV)."""
    iso_after: int | None = None
    """Records after this index write ISO dates (drift inside one file)."""
    hidden_flag: bool = False
    legend: str | None = None
    """`visible`, `hidden` or `veryHidden`: where the withdrawn-rows legend sheet sits."""
    notes_sheet: str | None = None
    container: str = ""
    """`gz`, `zip` or '' (a plain file)."""
    upper_names: bool = False
    """Customer names written in capitals (the clean convention is title case)."""
    lower_ids: bool = False
    """Customer ids written in lower case."""

    @property
    def fmt(self) -> str:
        return "xlsx" if self.region == "APAC" else "csv"


@dataclass
class World(QuarterWorld):
    seed: int
    year: int
    quarter: int
    months: list[date]
    fx: dict[str, Decimal]
    exports: list[Export] = field(default_factory=list)
    missing_spellings: list[str] = field(default_factory=lambda: ["N/A"])
    sentinels: dict[str, str] = field(default_factory=dict)
    """Documented numeric sentinels: value → where it is documented."""
    status_synonyms: dict[str, str] = field(default_factory=dict)
    internal_customers: list[str] = field(default_factory=list)
    minimum_eur: Decimal | None = None
    corrections: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    """File → (order_id, field, value) rows; `superseded` names a corrections file that no longer applies."""
    superseded: str | None = None
    late_files: list[str] = field(default_factory=list)
    """Exports announced only by a manifest amendment in inbox/."""
    reference_quarter: str = ""
    render: dict[str, Any] = field(default_factory=dict)

    def export(self, region: str, month_index: int) -> Export:
        """The region's regular export for a month of the quarter (the first nine exports, in generation order)."""
        return self.exports[3 * month_index + REGIONS.index(region)]

    def records(self) -> list[tuple[Export, int, Record]]:
        return [(e, i, r) for e in self.exports for i, r in enumerate(e.records, start=1)]


def month_days(month: date) -> list[date]:
    days, day = [], month
    while day.month == month.month:
        days.append(day)
        day += timedelta(days=1)
    return days


def generate(seed: int, salt: int) -> World:
    rng = seeded("cleanroom", seed, salt)
    year, quarter = rng.choice((2023, 2024, 2025)), rng.randint(1, 4)
    months = [date(year, 3 * (quarter - 1) + m, 1) for m in (1, 2, 3)]
    fx = {c: (Decimal(rng.randint(int(lo * 10000), int(hi * 10000))) / 10000) for c, (lo, hi) in FX.items()}
    fx["EUR"] = Decimal(1)
    world = World(seed, year, quarter, months, fx)
    world.reference_quarter = f"{year - (quarter == 1)}-Q{(quarter - 2) % 4 + 1}"
    numbers = rng.sample(range(1000, 99999), 80)
    customers = rng.sample(range(1000, 89999), 30)
    names = {c: f"{rng.choice(LAST)}, {rng.choice(FIRST)}" for c in customers}
    for month in months:
        for region in REGIONS:
            suffix = "xlsx" if region == "APAC" else "csv"
            exported = datetime(month.year + (month.month == 12), month.month % 12 + 1, 2, 6, rng.randint(0, 59))
            export = Export(f"exports/{region.lower()}_{month:%Y-%m}.{suffix}", region, month, exported)
            for _ in range(6):
                customer = rng.choice(customers)
                currency = rng.choice(CURRENCY[region])
                amount = Decimal(rng.randint(1500, 250000)) / 100
                if currency == "JPY":
                    amount = Decimal(rng.randint(2000, 400000))
                order = Order(
                    numbers.pop(),
                    region,
                    rng.choice(month_days(month)),
                    customer,
                    names[customer],
                    amount,
                    currency,
                    rng.choice(STATUSES),
                    rng.choice(CHANNELS),
                )
                export.records.append(Record(order))
            world.exports.append(export)
    return world


def amount_eur(world: World, order: Order) -> Decimal:
    return q2(order.amount * world.fx[order.currency])


# -- the reference result -------------------------------------------------------------------------


@dataclass
class Expected:
    clean: dict[str, dict[str, object]]
    """order_id → the clean row (without order_id)."""
    rejects: dict[tuple[str, int], tuple[str, str]]
    """(source, record) → (order_id as written, reason)."""
    records: int
    kept: dict[str, tuple[Export, int, Record]]


def written_id(record: Record) -> str:
    return str(record.values.get("order_id") or record.order.order_id)


def expected(world: World) -> Expected:
    rejects: dict[tuple[str, int], tuple[str, str]] = {}
    valid: dict[str, list[tuple[Export, int, Record]]] = {}
    for export, index, record in world.records():
        reason = record.reason
        if reason is None and world.minimum_eur is not None and amount_eur(world, record.order) < world.minimum_eur:
            reason = "out_of_scope"
        if reason is not None:
            rejects[(export.name, index)] = (written_id(record), reason)
        else:
            valid.setdefault(record.order.order_id, []).append((export, index, record))
    kept: dict[str, tuple[Export, int, Record]] = {}
    for order_id, copies in valid.items():
        copies.sort(key=lambda c: (c[0].exported_at, c[1]))
        kept[order_id] = copies[-1]
        for export, index, record in copies[:-1]:
            rejects[(export.name, index)] = (written_id(record), "duplicate")
    clean = {}
    for order_id, (_, _, record) in kept.items():
        order = record.order
        clean[order_id] = {
            "region": order.region,
            "order_date": order.day.isoformat(),
            "customer_id": order.customer_id,
            "customer_name": order.name,
            "amount_eur": float(amount_eur(world, order)),
            "status": record.status_override or order.status,
        }
    return Expected(clean, rejects, len(world.records()), kept)
