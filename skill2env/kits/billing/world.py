"""The billing world: a vendor's quarter of invoices under a contract, and its ground-truth reconciliation.

`generate` draws the base world for a seed (contract rates, staff, three monthly invoices with labour
and expense lines, receipts, payments); the pattern transformers in `billing.patterns` then change it.
`reconcile` computes the reference result from the world's structured data, never from its files.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from skill2env.kits.spec import QuarterWorld, seeded

CENT = Decimal("0.01")
ROUNDING_TOLERANCE = Decimal("0.05")
STATUS_ORDER = ("out_of_scope", "duplicate", "no_receipt", "adjusted", "ok")

VENDORS = (
    "Kestrel Data Services Ltd",
    "Brightwater Analytics GmbH",
    "Northfield Consulting BV",
    "Ostrava Systems s.r.o.",
    "Lumen Insight SARL",
    "Halden Engineering AS",
)
CLIENTS = ("Harbor Freight Logistics", "Meridian Retail Group", "Alder Health Trust", "Cobalt Energy AG")
PROJECTS = (
    "Warehouse analytics",
    "Customer data platform",
    "Billing migration",
    "Forecasting service",
    "Claims automation",
    "Route optimisation",
)
ROLES = (
    ("SC", "Senior consultant", (120, 160)),
    ("CO", "Consultant", (90, 115)),
    ("AN", "Analyst", (60, 85)),
    ("EN", "Engineer", (95, 130)),
)
STAFF = ("A. Novak", "B. Okafor", "C. Lindqvist", "D. Moreau", "E. Tanaka", "F. Alvarez", "G. Brennan", "H. Kowalski")
TASKS = (
    "Data model review",
    "Pipeline implementation",
    "Workshop preparation",
    "Test automation",
    "Reporting dashboard",
    "Requirements analysis",
    "Code review",
    "Deployment support",
)
MERCHANTS = (
    ("Hotel Stadtmitte", "Berlin"),
    ("Grand Hotel Central", "Prague"),
    ("Hotel Noord", "Rotterdam"),
    ("Rail Express", "Vienna"),
    ("Airport Taxi", "Lyon"),
    ("Hotel Fjord", "Bergen"),
)


def q2(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass
class Role:
    code: str
    title: str
    rate: Decimal
    """The rate in the contract's schedule."""


@dataclass
class Line:
    invoice: str
    date: date
    kind: str
    """`labour` or `expense`."""
    description: str
    project: str
    work_order: str
    staff: str = ""
    hours: Decimal = Decimal(1)
    start: str = ""
    end: str = ""
    onsite: bool = False
    rate: Decimal = Decimal(0)
    """The rate the vendor billed (labour) or the amount claimed (expense)."""
    receipt: str = ""
    """The receipt number as the claim writes it (expenses)."""
    number: int = 0
    rank: int = 0
    """Sort key before the start time within a day (a line printed out of worked order)."""
    patterns: set[str] = field(default_factory=set)
    """Pattern ids whose challenge this line carries."""

    @property
    def key(self) -> str:
        return f"{self.invoice}/{self.number}"

    @property
    def amount(self) -> Decimal:
        return q2(self.hours * self.rate)


@dataclass
class Invoice:
    id: str
    month: date
    issued: date
    lines: list[Line] = field(default_factory=list)
    labour_delta: Decimal = Decimal(0)
    """Printed labour subtotal minus the true one (a subtotal arithmetic error)."""
    total_delta: Decimal = Decimal(0)
    """Printed total minus the printed subtotals' sum (a total arithmetic error)."""
    file: str = ""

    @property
    def line_sum(self) -> Decimal:
        return sum((line.amount for line in self.lines), Decimal(0))

    def subtotal(self, kind: str) -> Decimal:
        return sum((line.amount for line in self.lines if line.kind == kind), Decimal(0))

    @property
    def printed_labour(self) -> Decimal:
        return self.subtotal("labour") + self.labour_delta

    @property
    def printed_total(self) -> Decimal:
        return self.printed_labour + self.subtotal("expense") + self.total_delta


@dataclass
class Receipt:
    number: str
    date: date
    merchant: str
    project: str
    amount: Decimal
    form: str = "text"
    """`text` (text PDF), `png` (scan image), `scan` (image-only PDF), `bundle` (page of a scanned bundle)."""
    file: str = ""


@dataclass
class Payment:
    date: date
    reference: str
    bank_ref: str
    amount: Decimal
    note: str = ""
    allocations: list[str] = field(default_factory=list)
    """Invoices named by the payment, in the order named (empty for a returned payment)."""
    returns: str = ""
    """For a returned payment: the bank reference of the payment it cancels."""


@dataclass
class RateChange:
    code: str
    rate: Decimal
    effective: date
    published: date
    source: str
    """`amendment`, `notice` or `email`."""
    signed: bool = True
    file: str = ""


@dataclass
class Correction:
    note: str
    issued: date
    line_key: str
    hours: Decimal
    supersedes: str = ""
    withdraws: bool = False
    """True: the note only withdraws the one it supersedes (the line keeps its invoiced hours)."""


@dataclass
class World(QuarterWorld):
    seed: int
    vendor: str
    client: str
    code: str
    project_name: str
    year: int
    quarter: int
    months: list[date]
    roles: dict[str, Role]
    staff: dict[str, str]
    """Staff name → role code at the start of the quarter."""
    invoices: list[Invoice] = field(default_factory=list)
    receipts: list[Receipt] = field(default_factory=list)
    payments: list[Payment] = field(default_factory=list)
    annex: dict[str, Decimal] = field(default_factory=dict)
    annex_prevails: bool = False
    changes: list[RateChange] = field(default_factory=list)
    role_changes: list[tuple[str, str, date]] = field(default_factory=list)
    corrections: list[Correction] = field(default_factory=list)
    work_orders: dict[str, str] = field(default_factory=dict)
    daily_cap: Decimal = Decimal(8)
    weekly_cap: Decimal | None = None
    onsite_factor: Decimal = Decimal("1.2")
    other_projects: list[str] = field(default_factory=list)
    render: dict[str, Any] = field(default_factory=dict)
    """Rendering switches the patterns set (where a fact lives, how a file is named)."""

    def lines(self) -> list[Line]:
        return [line for invoice in self.invoices for line in invoice.lines]

    def line(self, key: str) -> Line:
        return next(line for line in self.lines() if line.key == key)

    def role_on(self, staff: str, day: date) -> str:
        code = self.staff[staff]
        for name, new_code, effective in sorted(self.role_changes, key=lambda c: c[2]):
            if name == staff and day >= effective:
                code = new_code
        return code

    def governing_rate(self, code: str, day: date) -> Decimal:
        rate = self.annex[code] if self.annex_prevails and code in self.annex else self.roles[code].rate
        for change in sorted(self.changes, key=lambda c: c.effective):
            if change.signed and change.code == code and change.effective <= day:
                rate = change.rate
        return rate

    def claimable_rates(self, code: str, day: date) -> list[Decimal]:
        """Every rate a document of this quarter names for the role (what a greedy vendor bills)."""
        rates = [self.governing_rate(code, day), self.roles[code].rate]
        if code in self.annex:
            rates.append(self.annex[code])
        rates += [c.rate for c in self.changes if c.code == code and self.start <= c.effective <= self.end]
        return rates

    def onsite(self, rate: Decimal) -> Decimal:
        return q2(rate * self.onsite_factor)


def business_days(month: date) -> list[date]:
    day, days = month, []
    while day.month == month.month:
        if day.weekday() < 5:
            days.append(day)
        day += timedelta(days=1)
    return days


def generate(seed: int, salt: int) -> World:
    """The base world: nothing designed into it yet."""
    rng = seeded("billing", seed, salt)
    year, quarter = rng.choice((2023, 2024, 2025)), rng.randint(1, 4)
    months = [date(year, 3 * (quarter - 1) + m, 1) for m in (1, 2, 3)]
    roles = {}
    for code, title, (low, high) in rng.sample(ROLES, len(ROLES)):
        roles[code] = Role(code, title, Decimal(rng.randrange(low, high + 1, 5)).quantize(CENT))
    codes = list(roles)[:3]  # the schedule lists four roles; staff bill under three, so one is never billed
    names = rng.sample(STAFF, 4)
    staff = {name: codes[i % 3] for i, name in enumerate(names)}
    world = World(
        seed=seed,
        vendor=rng.choice(VENDORS),
        client=rng.choice(CLIENTS),
        code=f"PRJ-{rng.randint(1000, 8999)}",
        project_name=rng.choice(PROJECTS),
        year=year,
        quarter=quarter,
        months=months,
        roles=roles,
        staff=staff,
    )
    first = rng.randint(101, 880)
    for index, month in enumerate(months):
        invoice = Invoice(
            id=f"INV-{year}-{first + index:04d}", month=month, issued=(month + timedelta(days=32)).replace(day=2)
        )
        days = business_days(month)
        for day in sorted(rng.sample(days[1:-3], 4)):
            name = rng.choice(names)
            hours = Decimal(rng.choice(("3", "4", "5", "5.5", "6", "6.5", "7", "7.5")))
            code = world.role_on(name, day)
            invoice.lines.append(
                Line(
                    invoice.id,
                    day,
                    "labour",
                    rng.choice(TASKS),
                    world.code,
                    "",
                    name,
                    hours,
                    rate=world.governing_rate(code, day),
                )
            )
        merchant, city = rng.choice(MERCHANTS)
        day = rng.choice(days[1:-3])
        claim = Decimal(rng.randint(9000, 61000)) / 100
        receipt = f"R-{rng.randint(1000, 9899)}"
        invoice.lines.append(
            Line(invoice.id, day, "expense", f"Travel: {merchant}, {city}", world.code, "", rate=claim, receipt=receipt)
        )
        world.receipts.append(Receipt(receipt, day, f"{merchant} {city}", world.code, claim))
        world.invoices.append(invoice)
    return world


def number_lines(world: World) -> None:
    """Sort each invoice's lines (labour by date, then expenses) and number them 1..n."""
    for invoice in world.invoices:
        invoice.lines.sort(key=lambda line: (line.kind != "labour", line.date, line.rank, line.start, line.description))
        for number, line in enumerate(invoice.lines, start=1):
            line.number = number


def add_payments(world: World, rng: random.Random) -> None:
    """Base payments: each invoice paid in full (its printed total) three weeks after issue."""
    for invoice in world.invoices:
        world.payments.append(
            Payment(
                invoice.issued + timedelta(days=20),
                invoice.id,
                f"BT-{rng.randint(100000, 999999)}",
                invoice.printed_total,
                allocations=[invoice.id],
            )
        )


def reprice(world: World) -> None:
    """The vendor bills the highest rate any document names for the line's role (and on-site uplift)."""
    for line in world.lines():
        if line.kind != "labour":
            continue
        rate = max(world.claimable_rates(world.role_on(line.staff, line.date), line.date))
        line.rate = world.onsite(rate) if line.onsite else rate


# -- the reference result -------------------------------------------------------------------------


@dataclass
class LineResult:
    line: Line
    approved: Decimal
    status: str


@dataclass
class Reconciliation:
    lines: list[LineResult]
    claimed: dict[str, Decimal]
    approved: dict[str, Decimal]
    paid: dict[str, Decimal]
    arithmetic_errors: list[str]

    @property
    def excluded(self) -> list[str]:
        return [r.line.key for r in self.lines if r.status in STATUS_ORDER[:3]]

    def counts(self) -> dict[str, int]:
        return {
            "total": len(self.lines),
            "excluded": len(self.excluded),
            "adjusted": sum(r.status == "adjusted" for r in self.lines),
        }

    def totals(self) -> dict[str, Decimal]:
        claimed, approved, paid = (sum(d.values(), Decimal(0)) for d in (self.claimed, self.approved, self.paid))
        return {"claimed": claimed, "approved": approved, "paid": paid, "balance_due": approved - paid}


def _normal_receipt(number: str) -> str:
    return "".join(ch for ch in number.upper() if ch.isalnum())


def _approved_hours(world: World) -> dict[str, Decimal]:
    """Labour hours after credit notes, then the daily cap, then the weekly cap (chronologically)."""
    hours: dict[str, Decimal] = {}
    superseded = {c.supersedes for c in world.corrections if c.supersedes}
    corrected = {
        c.line_key: c.hours
        for c in sorted(world.corrections, key=lambda c: c.issued)
        if c.note not in superseded and not c.withdraws
    }
    labour = [line for line in world.lines() if line.kind == "labour" and line.project == world.code]
    order = sorted(labour, key=lambda line: (line.date, line.start or "", line.invoice, line.number))
    per_day: dict[tuple[str, date], Decimal] = {}
    for line in order:
        wanted = corrected.get(line.key, line.hours)
        used = per_day.get((line.staff, line.date), Decimal(0))
        hours[line.key] = max(Decimal(0), min(wanted, world.daily_cap - used))
        per_day[(line.staff, line.date)] = used + hours[line.key]
    if world.weekly_cap is not None:
        per_week: dict[tuple[str, int], Decimal] = {}
        for line in order:
            week = (line.staff, line.date.isocalendar()[1])
            used = per_week.get(week, Decimal(0))
            hours[line.key] = max(Decimal(0), min(hours[line.key], world.weekly_cap - used))
            per_week[week] = used + hours[line.key]
    return hours


def reconcile(world: World) -> Reconciliation:
    receipts = {(_normal_receipt(r.number)): r for r in world.receipts}
    hours = _approved_hours(world)
    claimed_receipts: set[str] = set()
    results = []
    ordered = sorted(world.lines(), key=lambda line: (line.invoice, line.number))
    for line in ordered:
        if line.project != world.code:
            results.append(LineResult(line, Decimal(0), "out_of_scope"))
            continue
        if line.kind == "expense":
            number = _normal_receipt(line.receipt)
            if number in claimed_receipts:
                results.append(LineResult(line, Decimal(0), "duplicate"))
                continue
            claimed_receipts.add(number)
            receipt = receipts.get(number)
            if receipt is None or receipt.date != line.date or receipt.project != world.code:
                results.append(LineResult(line, Decimal(0), "no_receipt"))
                continue
            approved = min(receipt.amount, line.amount)
        else:
            rate = world.governing_rate(world.role_on(line.staff, line.date), line.date)
            approved = q2(hours[line.key] * (world.onsite(rate) if line.onsite else rate))
        results.append(LineResult(line, approved, "ok" if approved == line.amount else "adjusted"))
    claimed = {inv.id: inv.line_sum for inv in world.invoices}
    approved_by = {
        inv.id: sum((r.approved for r in results if r.line.invoice == inv.id), Decimal(0)) for inv in world.invoices
    }
    errors = [inv.id for inv in world.invoices if abs(inv.printed_total - inv.line_sum) >= ROUNDING_TOLERANCE]
    return Reconciliation(results, claimed, approved_by, allocate(world), errors)


def allocate(world: World) -> dict[str, Decimal]:
    """Payments per invoice: in the order named, each up to its printed total; returns cancel by bank ref."""
    printed = {inv.id: inv.printed_total for inv in world.invoices}
    paid = {inv.id: Decimal(0) for inv in world.invoices}
    by_bank: dict[str, dict[str, Decimal]] = {}
    for payment in sorted(world.payments, key=lambda p: p.date):
        if payment.returns:
            for invoice, share in by_bank.get(payment.returns, {}).items():
                paid[invoice] -= share
            continue
        left, shares = payment.amount, {}
        for position, invoice in enumerate(payment.allocations):
            last = position == len(payment.allocations) - 1
            share = left if last else min(left, max(Decimal(0), printed[invoice] - paid[invoice]))
            paid[invoice] += share
            shares[invoice] = share
            left -= share
        by_bank[payment.bank_ref] = shares
    return paid
