"""The SQL-drift world: a shop's live SQLite database, the migrations that claim to describe it, the
notes around it, and the true monthly figures.

The live schema is written as the world says it is (hand-made changes included), never by applying
the migration files; `figures` computes every answer from the world's rows (never from rendered text).
Two variants of one world share everything an agent could hard-code (schema, month, time zone, rates,
documents) and differ in their orders: variant 0 is the workspace's database, variant 1 a copy with
other orders that only the verifier holds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from skill2env.kits.spec import seeded

COUNTRIES = ("DE", "FR", "NL", "IT", "ES", "AT", "BE", "PL")
FX = {"EUR": (1.0, 2), "USD": (0.92, 2), "GBP": (1.17, 2), "JPY": (0.0062, 0)}
"""Currency → (EUR per major unit, decimals of the minor unit)."""
FIRST = ("Anna", "Ben", "Carla", "David", "Eva", "Felix", "Greta", "Hugo", "Ines", "Jonas", "Lena", "Marco")
LAST = ("Schmidt", "Dubois", "de Vries", "Rossi", "Garcia", "Huber", "Peeters", "Nowak", "Meyer", "Conti")
SHOPS = ("brightcart", "nordhaus", "lumashop", "veloce")
STATUSES = (("paid", 0.84), ("cancelled", 0.1), ("pending", 0.06))


@dataclass
class Customer:
    id: int
    name: str
    email: str
    country: str
    is_test: int = 0
    segment: str | None = None


@dataclass
class Order:
    id: int
    customer: int
    external_ref: str
    created: datetime
    status: str
    amount: int
    """In the currency's minor units (whole yen for JPY)."""
    currency: str = "EUR"
    discount: int | None = 0
    deleted_at: str | None = None
    voided: int = 0


@dataclass
class Refund:
    id: int
    order: int
    amount: int
    created: datetime


@dataclass
class Migration:
    version: str
    name: str
    sql: str

    @property
    def file(self) -> str:
        return f"migrations/{self.version}_{self.name}.sql"


@dataclass
class World:
    seed: int
    variant: int
    month: date
    """First day of the reporting month."""
    shop: str
    rng: random.Random
    """Draws of the rows (differs between variants)."""
    customers: list[Customer] = field(default_factory=list)
    orders: list[Order] = field(default_factory=list)
    refunds: list[Refund] = field(default_factory=list)
    offset: int = 0
    """Hours from UTC of the reporting time zone (0: the UTC month)."""
    offset_where: str = ""
    """'readme' or 'ini': where the offset is written ('' when the month is the UTC month)."""
    dedup_note: str = ""
    """Where the importer's duplicates are explained: 'readme', 'log' or ''."""
    sentinel_note: bool = False
    staff_domain: str = ""
    """Accounts under this domain are staff test accounts (README); '' when there are none."""
    voided: bool = False
    """The live orders table has a hand-added `voided` column."""
    segment: bool = False
    """The live customers table has a hand-added `segment` column."""
    recorded: list[str] = field(default_factory=list)
    """Versions in schema_migrations, in order (a version may be there twice)."""
    applied: set[str] = field(default_factory=set)
    """Versions whose changes the live schema holds."""
    snapshot: int = 0
    """report_snapshot: 0 earlier months only; ≥ 1 also the reporting month, refreshed too early;
    2: also exported as a CSV; 3: the README calls it finance's source."""
    log: list[tuple[date, str]] = field(default_factory=list)
    tags: dict[str, set[str]] = field(default_factory=dict)
    """Pattern → countries whose figures its challenge changes."""

    def next_order_id(self) -> int:
        return max((o.id for o in self.orders), default=1000) + self.rng.randint(1, 3)

    def new_customer(self, country: str, *, is_test: int = 0, email: str = "") -> Customer:
        cid = max((c.id for c in self.customers), default=0) + 1
        first, last = self.rng.choice(FIRST), self.rng.choice(LAST)
        mail = email or f"{first.lower()}.{last.lower().replace(' ', '')}{cid}@example.{country.lower()}"
        customer = Customer(cid, f"{first} {last}", mail, country, is_test)
        self.customers.append(customer)
        return customer

    def customer(self, country: str) -> Customer:
        """An ordinary customer of `country` (a new one when there is none)."""
        found = [c for c in self.customers if c.country == country and not c.is_test and "@example." in c.email]
        return self.rng.choice(found) if found else self.new_customer(country)

    def moment(self, months: int, *, day: int | None = None, hour: int | None = None) -> datetime:
        """A UTC time in the reporting month shifted by `months`, on a safe mid-month day unless given."""
        month = shift(self.month, months)
        return datetime(
            month.year,
            month.month,
            day if day is not None else self.rng.randint(3, 26),
            hour if hour is not None else self.rng.randint(9, 14),
            self.rng.randint(0, 59),
            self.rng.randint(0, 59),
        )

    def add_order(
        self,
        country: str,
        created: datetime,
        *,
        currency: str = "EUR",
        customer: Customer | None = None,
        discount: int | None = 0,
        amount: int | None = None,
    ) -> Order:
        who = customer or self.customer(country)
        drawn = self.rng.randint(2000, 40000) if FX[currency][1] == 0 else self.rng.randint(1500, 24000)
        value = amount if amount is not None else drawn
        order = Order(
            self.next_order_id(),
            who.id,
            f"pi_{self.rng.getrandbits(40):010x}",
            created,
            "paid",
            value,
            currency,
            discount,
        )
        self.orders.append(order)
        return order

    def tag(self, pattern: str, *countries: str) -> None:
        self.tags.setdefault(pattern, set()).update(countries)


def shift(month: date, months: int) -> date:
    index = month.year * 12 + month.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def month_text(month: date) -> str:
    return f"{month.year:04d}-{month.month:02d}"


MIGRATIONS = (
    Migration(
        "0001",
        "create_customers",
        "-- Customers of the shop.\n-- is_test: 1 for QA test accounts; their orders are not business.\n"
        "CREATE TABLE customers (\n    id INTEGER PRIMARY KEY,\n    name TEXT NOT NULL,\n    email TEXT NOT NULL,\n"
        "    country TEXT NOT NULL,\n    is_test INTEGER NOT NULL DEFAULT 0\n);\n",
    ),
    Migration(
        "0002",
        "create_orders",
        "-- Orders; created_at is a UTC timestamp 'YYYY-MM-DD HH:MM:SS'.\n"
        "-- amount_cents is in the minor units of the order's currency.\n"
        "CREATE TABLE orders (\n    id INTEGER PRIMARY KEY,\n"
        "    customer_id INTEGER NOT NULL REFERENCES customers(id),\n"
        "    external_ref TEXT NOT NULL,\n    created_at TEXT NOT NULL,\n    status TEXT NOT NULL,\n"
        "    amount_cents INTEGER NOT NULL,\n    currency TEXT NOT NULL DEFAULT 'EUR'\n);\n",
    ),
    Migration(
        "0003",
        "orders_discount",
        "-- discount_cents: the discount granted, in the order currency's minor units;\n"
        "-- NULL when no discount was granted.\nALTER TABLE orders ADD COLUMN discount_cents INTEGER;\n",
    ),
    Migration(
        "0004",
        "orders_soft_delete",
        "-- Soft delete: an order whose deleted_at is set was deleted and is no order any more.\n"
        "ALTER TABLE orders ADD COLUMN deleted_at TEXT;\n",
    ),
    Migration(
        "0005",
        "create_refunds",
        "-- Refunds of (part of) an order, in the order currency's minor units.\n"
        "CREATE TABLE refunds (\n    id INTEGER PRIMARY KEY,\n    order_id INTEGER NOT NULL REFERENCES orders(id),\n"
        "    amount_cents INTEGER NOT NULL,\n    created_at TEXT NOT NULL\n);\n",
    ),
    Migration(
        "0006",
        "create_fx_rates",
        "-- Conversion to EUR: eur_per_unit per major unit; minor_units = decimals of the minor unit\n"
        "-- (2 for EUR: amount_cents / 100; 0 for JPY: amount_cents holds whole yen).\n"
        "CREATE TABLE fx_rates (\n    currency TEXT PRIMARY KEY,\n    eur_per_unit REAL NOT NULL,\n"
        "    minor_units INTEGER NOT NULL\n);\n",
    ),
    Migration(
        "0007",
        "create_report_snapshot",
        "-- Monthly figures per country, written by the nightly BI job.\n"
        "CREATE TABLE report_snapshot (\n    month TEXT NOT NULL,\n    country TEXT NOT NULL,\n"
        "    orders INTEGER NOT NULL,\n    revenue_eur REAL NOT NULL,\n    refreshed_at TEXT NOT NULL\n);\n",
    ),
    Migration("0008", "orders_created_index", "CREATE INDEX idx_orders_created_at ON orders (created_at);\n"),
    Migration("0009", "customers_phone", "ALTER TABLE customers ADD COLUMN phone TEXT;\n"),
    Migration(
        "0010",
        "orders_channel",
        "-- Sales channel (web, app, marketplace).\nALTER TABLE orders ADD COLUMN channel TEXT;\n",
    ),
)


def generate(seed: int, salt: int, variant: int = 0) -> World:
    structure = seeded("sqldrift", seed, salt)
    month = date(structure.choice((2023, 2024, 2025)), structure.randint(1, 12), 1)
    world = World(seed, variant, month, structure.choice(SHOPS), seeded("sqldrift-rows", seed, salt, variant))
    rng = world.rng
    for country in COUNTRIES:
        for _ in range(2):
            world.new_customer(country)
    for months in (-1, 0, 1):
        for _ in range(rng.randint(18, 26)):
            order = world.add_order(
                rng.choice(COUNTRIES), world.moment(months, day=rng.randint(2, 27), hour=rng.randint(8, 15))
            )
            order.status = rng.choices([s for s, _ in STATUSES], [w for _, w in STATUSES])[0]
            order.discount = rng.choice((0, 0, 0, rng.randint(1, 9) * 100))
    world.add_order("DE", world.moment(0))
    versions = [m.version for m in MIGRATIONS]
    world.recorded = versions[:-1]
    world.applied = set(versions[:-1])
    world.log = [
        (shift(month, -5) + timedelta(days=3), "Deployed migrations up to 0007 (report_snapshot)."),
        (shift(month, -3) + timedelta(days=11), "Deployed migrations 0008 and 0009."),
    ]
    return world


# -- the true figures -----------------------------------------------------------------------------


def local_month(world: World, created: datetime) -> str:
    return (created + timedelta(hours=world.offset)).strftime("%Y-%m")


def canonical(world: World) -> set[int]:
    first: dict[str, int] = {}
    for order in world.orders:
        if order.external_ref not in first or order.id < first[order.external_ref]:
            first[order.external_ref] = order.id
    return set(first.values())


def counted(world: World, month: str, before: datetime | None = None) -> list[Order]:
    """The orders of `month` (local) that are revenue (created before `before` when given)."""
    customers = {c.id: c for c in world.customers}
    keep = canonical(world)
    found = []
    for order in world.orders:
        customer = customers[order.customer]
        if (
            order.id in keep
            and order.status == "paid"
            and order.deleted_at is None
            and not customer.is_test
            and not (world.staff_domain and customer.email.endswith("@" + world.staff_domain))
            and not order.voided
            and local_month(world, order.created) == month
            and (before is None or order.created < before)
        ):
            found.append(order)
    return found


def net_eur(world: World, order: Order) -> float:
    refunded = sum(r.amount for r in world.refunds if r.order == order.id)
    discount = order.discount if order.discount and order.discount > 0 else 0
    rate, decimals = FX[order.currency]
    return (order.amount - discount - refunded) * rate / 10**decimals


def figures(world: World, month: str | None = None, before: datetime | None = None) -> dict[str, tuple[int, float]]:
    """Country → (orders, net revenue in EUR rounded to cents) for the month (default: the reporting month)."""
    customers = {c.id: c for c in world.customers}
    totals: dict[str, list[float]] = {}
    for order in counted(world, month or month_text(world.month), before):
        entry = totals.setdefault(customers[order.customer].country, [0, 0.0])
        entry[0] += 1
        entry[1] += net_eur(world, order)
    return {country: (int(n), round(value, 2)) for country, (n, value) in sorted(totals.items())}


def pending(world: World) -> list[str]:
    return [m.version for m in MIGRATIONS if m.version not in world.applied]


def untracked(world: World) -> list[str]:
    return sorted([*(["orders.voided"] if world.voided else []), *(["customers.segment"] if world.segment else [])])
