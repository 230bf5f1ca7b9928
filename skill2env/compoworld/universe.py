"""The shared facts a world's services are built from, so their states agree with each other.

A `Universe` is generated from a seed: customers, products, staff and the orders customers
placed (with their payments and shipments). Each service's `fixture(universe)` takes its slice,
so `crm` knows the customer whose order `orders` holds, whose payment `payments` holds, whose
parcel `shipping` carries, and whose complaint sits in the support `email` inbox.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal

from skill2env.compoworld.service import EPOCH
from skill2env.compoworld.types import Address

FIRST_NAMES = (
    "Ana",
    "Bruno",
    "Chen",
    "Dalia",
    "Emeka",
    "Farah",
    "Goran",
    "Hana",
    "Ivan",
    "Jade",
    "Kofi",
    "Lena",
    "Mateo",
    "Nadia",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sven",
    "Tara",
    "Umar",
    "Vera",
    "Wen",
    "Yusuf",
)
LAST_NAMES = (
    "Silva",
    "Okafor",
    "Lindqvist",
    "Haddad",
    "Novak",
    "Moreau",
    "Tanaka",
    "Kowalski",
    "Reyes",
    "Fischer",
    "Osei",
    "Petrov",
    "Nakamura",
    "Costa",
    "Iyer",
    "Brennan",
    "Duarte",
    "Sato",
    "Weber",
    "Ahmed",
)
CITIES = (
    ("Austin", "78701", "US", "Oak Street"),
    ("Portland", "97205", "US", "Elm Avenue"),
    ("Toronto", "M5V 2T6", "CA", "King Street West"),
    ("Manchester", "M1 1AE", "GB", "Harbour Road"),
    ("Lyon", "69002", "FR", "Rue Mercière"),
    ("Berlin", "10115", "DE", "Lindenstraße"),
)
PRODUCTS = (
    ("SKU-MUG01", "Stoneware mug", "14.00", "0.45"),
    ("SKU-KTL02", "Electric kettle", "49.00", "1.30"),
    ("SKU-TEA03", "Loose-leaf tea sampler", "22.50", "0.30"),
    ("SKU-PRS04", "French press", "34.00", "0.90"),
    ("SKU-GRN05", "Burr coffee grinder", "89.00", "2.10"),
    ("SKU-SCL06", "Kitchen scale", "27.00", "0.70"),
    ("SKU-BTL07", "Insulated bottle", "25.00", "0.40"),
    ("SKU-TWL08", "Linen tea towels (2)", "18.00", "0.25"),
    ("SKU-BNS09", "Coffee beans 1 kg", "31.00", "1.05"),
    ("SKU-FLT10", "Paper filters (100)", "6.50", "0.20"),
)
TEAMS = ("support", "fulfilment", "finance", "platform", "platform", "support")
TIERS = ("standard", "standard", "standard", "gold", "platinum")
CARRIERS = ("UPS", "DHL", "FedEx")


@dataclass(frozen=True)
class Customer:
    id: str
    name: str
    email: str
    phone: str
    address: Address
    tier: str


@dataclass(frozen=True)
class Product:
    sku: str
    name: str
    price: Decimal
    weight_kg: Decimal
    on_hand: int
    reorder_point: int


@dataclass(frozen=True)
class Staff:
    name: str
    email: str
    handle: str
    team: str


@dataclass(frozen=True)
class OrderLine:
    sku: str
    quantity: int
    unit_price: Decimal


@dataclass(frozen=True)
class PlacedOrder:
    id: str
    customer_id: str
    lines: tuple[OrderLine, ...]
    status: str
    """pending | paid | shipped | delivered | cancelled"""
    placed_at: datetime
    payment_id: str | None
    shipment_id: str | None
    tracking_number: str | None
    carrier: str | None

    @property
    def total(self) -> Decimal:
        return sum((line.unit_price * line.quantity for line in self.lines), Decimal("0.00"))


@dataclass(frozen=True)
class Universe:
    seed: int
    now: datetime
    customers: tuple[Customer, ...]
    products: tuple[Product, ...]
    staff: tuple[Staff, ...]
    orders: tuple[PlacedOrder, ...]
    company_domain: str = "brewhaus.example"
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def today(self) -> date:
        return self.now.date()

    def customer(self, customer_id: str) -> Customer:
        return next(c for c in self.customers if c.id == customer_id)

    def product(self, sku: str) -> Product:
        return next(p for p in self.products if p.sku == sku)

    def staff_in(self, team: str) -> list[Staff]:
        return [s for s in self.staff if s.team == team]


def _person(rng: random.Random, used: set[str]) -> tuple[str, str]:
    while True:
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        if f"{first} {last}" not in used:
            used.add(f"{first} {last}")
            return first, last


def generate_universe(seed: int = 0, *, customers: int = 8, staff: int = 6) -> Universe:
    """A small company (a kitchenware shop), its customers and their orders; the same seed, the same universe."""
    rng = random.Random(seed)  # noqa: S311 - seeded and reproducible, not cryptography
    used: set[str] = set()
    people = []
    for index in range(customers):
        first, last = _person(rng, used)
        city, postal, country, street = rng.choice(CITIES)
        address = Address(line1=f"{rng.randint(2, 240)} {street}", city=city, postal_code=postal, country=country)
        people.append(
            Customer(
                id=f"CUS-{1001 + index}",
                name=f"{first} {last}",
                email=f"{first}.{last}@example.com".lower(),
                phone=f"+1555{rng.randint(1000000, 9999999)}",
                address=address,
                tier=rng.choice(TIERS),
            )
        )
    products = tuple(
        Product(
            sku=sku,
            name=name,
            price=(Decimal(price) * Decimal(str(rng.choice((0.9, 1.0, 1.0, 1.1))))).quantize(Decimal("0.01")),
            weight_kg=Decimal(weight),
            on_hand=rng.randint(0, 40),
            reorder_point=rng.choice((5, 8, 10)),
        )
        for sku, name, price, weight in PRODUCTS
    )
    team = []
    for index in range(staff):
        first, last = _person(rng, used)
        team.append(
            Staff(
                f"{first} {last}", f"{first}.{last}@brewhaus.example".lower(), first.lower(), TEAMS[index % len(TEAMS)]
            )
        )
    orders = []
    number = 1000
    statuses = ("pending", "paid", "shipped", "delivered", "paid", "shipped", "cancelled")
    for person in people:
        for _ in range(rng.randint(1, 3)):
            number += 1
            picked = rng.sample(products, rng.randint(1, 3))
            lines = tuple(OrderLine(p.sku, rng.randint(1, 3), p.price) for p in picked)
            status = rng.choice(statuses)
            paid = status in ("paid", "shipped", "delivered")
            shipped = status in ("shipped", "delivered")
            orders.append(
                PlacedOrder(
                    id=f"ORD-{number}",
                    customer_id=person.id,
                    lines=lines,
                    status=status,
                    placed_at=EPOCH - timedelta(days=rng.randint(1, 40), hours=rng.randint(0, 10)),
                    payment_id=f"PAY-{number}" if paid else None,
                    shipment_id=f"SHP-{number}" if shipped else None,
                    tracking_number=f"1Z{rng.randint(10**9, 10**10 - 1)}" if shipped else None,
                    carrier=rng.choice(CARRIERS) if shipped else None,
                )
            )
    return Universe(seed, EPOCH, tuple(people), products, tuple(team), tuple(orders))
