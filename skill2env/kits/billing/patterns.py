"""Billing pattern transformers: each builds one pool pattern into the world at intensity 1, 2 or 3.

A transformer changes the world's ground truth and how it is rendered, tags the lines that carry the
challenge, and records the challenge's form and the facts it planted (with the file that holds each).
Some intensity-1 and -2 forms are drawn "benign" now and then (the designed trap exists but the
obvious reading happens to be right), which is what lets a naive policy's full-credit rate fall
gradually as intensity rises.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal

from skill2env.kits.billing.world import (
    MERCHANTS,
    Correction,
    Line,
    Payment,
    RateChange,
    Receipt,
    World,
    business_days,
)
from skill2env.kits.spec import Design

ANNEX = "rate_annex.html"
NOTES = "notes.md"
CONTRACT = "contract.docx"
LEDGER = "payments_ledger.xlsx"


Transformer = Callable[[World, int, random.Random, Design], None]


def _labour(world: World, code: str | None = None) -> list[Line]:
    return [
        line
        for line in world.lines()
        if line.kind == "labour"
        and line.project == world.code
        and (code is None or world.role_on(line.staff, line.date) == code)
    ]


HOURS_PATTERNS = {"cap_across_tiers", "cross_deliverable_agreement"}


def _free_labour(world: World) -> list[Line]:
    """In-scope labour lines whose hours no other pattern changed (untagged ones first)."""
    lines = _labour(world)
    untagged = [line for line in lines if not line.patterns]
    return untagged or [line for line in lines if not line.patterns & HOURS_PATTERNS]


def _billed_codes(world: World) -> list[str]:
    return sorted({world.role_on(line.staff, line.date) for line in _labour(world)})


def new_expense(world: World, rng: random.Random, invoice_index: int, *, project: str | None = None) -> Line:
    """A fresh expense line with its (text) receipt, in the given invoice's month."""
    invoice = world.invoices[invoice_index]
    merchant, city = rng.choice(MERCHANTS)
    used = {r.number for r in world.receipts} | {line.receipt for line in world.lines()}
    number = next(n for n in (f"R-{rng.randint(1000, 9899)}" for _ in range(100)) if n not in used)
    day = rng.choice(business_days(invoice.month)[1:-3])
    amount = Decimal(rng.randint(9000, 61000)) / 100
    line = Line(
        invoice.id,
        day,
        "expense",
        f"Travel: {merchant}, {city}",
        project or world.code,
        "",
        rate=amount,
        receipt=number,
    )
    invoice.lines.append(line)
    world.receipts.append(Receipt(number, day, f"{merchant} {city}", project or world.code, amount))
    return line


def receipt_of(world: World, line: Line) -> Receipt:
    return next(r for r in world.receipts if r.number == line.receipt)


# -- environment understanding ---------------------------------------------------------------------


def distributed_evidence(world: World, level: int, rng: random.Random, design: Design) -> None:
    source = {1: "staff_md", 2: "assignments_csv", 3: "ledger_sheet"}[level]
    world.render["role_source"] = source
    world.render["assignment_header"] = ["staff", "role"] if rng.random() < 0.6 else ["person", "billing_category"]
    where = {"staff_md": "staff.md", "assignments_csv": "team/assignments.csv", "ledger_sheet": LEDGER}[source]
    for line in _labour(world):
        line.patterns.add("distributed_evidence")
    for name, code in sorted(world.staff.items()):
        design.plant("distributed_evidence", f"staff.{name}", f"{name} bills as {code}", code, where)
    form = {
        1: "Invoices name staff but not roles; the staff → role table is in staff.md, listed in the README index.",
        2: "Invoices name staff but not roles; the mapping sits in team/assignments.csv under other column "
        "names, and no index points to it.",
        3: "The staff → role mapping is a second sheet of the payments ledger, and an e-mail moves one person "
        "to another role mid-quarter.",
    }[level]
    if level == 3:
        later = [line for line in _labour(world) if line.date >= world.months[1] + timedelta(days=10)]
        line = rng.choice(later) if later else _labour(world)[-1]
        old = world.staff[line.staff]
        new = rng.choice([c for c in world.roles if c != old])
        effective = max(world.months[1], line.date - timedelta(days=rng.randint(0, 6)))
        world.role_changes.append((line.staff, new, effective))
        design.plant(
            "distributed_evidence",
            "staff.role-change",
            f"{line.staff} bills as {new} from {effective}",
            new,
            "mail/role_change.eml",
        )
    design.forms["distributed_evidence"] = form


def authority_resolution(world: World, level: int, rng: random.Random, design: Design) -> None:
    billed = _billed_codes(world)
    annex_code = rng.choice(billed)
    world.annex = {code: role.rate for code, role in world.roles.items()}
    world.annex[annex_code] = world.roles[annex_code].rate + Decimal(rng.choice((10, 15, 20)))
    world.annex_prevails = level == 1 and rng.random() < 0.3
    world.render["precedence"] = level
    for line in _labour(world, annex_code):
        line.patterns.add("authority_resolution")
    design.plant(
        "authority_resolution",
        "annex.rate",
        f"the rate annex names {world.annex[annex_code]} for {annex_code}",
        str(world.annex[annex_code]),
        ANNEX,
    )
    winner = "the rate annex" if world.annex_prevails else "the contract schedule"
    clause = {
        1: f"{winner} prevails",
        2: "this agreement prevails over any annex",
        3: "The contract schedule prevails over any annex",
    }[level]
    design.plant(
        "authority_resolution",
        "precedence.annex",
        f"{winner} prevails where annex and contract differ",
        clause,
        NOTES if level == 1 else CONTRACT,
    )
    if level == 1:
        design.forms["authority_resolution"] = (
            f"The rate annex (HTML) and the contract disagree on {annex_code}; "
            f"a one-line rule in notes.md says {winner} prevails."
        )
        return
    unbilled = [c for c in world.roles if c not in billed]
    benign = rng.random() < {2: 0.6, 3: 0.15}[level]
    target = unbilled[0] if benign and level == 2 and unbilled else rng.choice(billed)
    effective = world.start
    if level == 3:
        effective = rng.choice(business_days(world.months[1])[3:-3])
        if benign:  # the amendment takes effect after the role's last billed day
            effective = max([effective, *(line.date for line in _labour(world, target))]) + timedelta(days=1)
    new_rate = world.roles[target].rate + Decimal(rng.choice((10, 15, 20, 25)))
    world.changes.append(
        RateChange(
            target,
            new_rate,
            effective,
            effective - timedelta(days=rng.randint(3, 12)),
            "amendment",
            signed=True,
            file="amendments/amendment_01_signed.docx",
        )
    )
    draft_code = rng.choice([c for c in billed if c != target] or billed)
    draft_rate = max(world.claimable_rates(draft_code, world.end)) + Decimal(rng.choice((10, 20)))
    world.changes.append(
        RateChange(
            draft_code,
            draft_rate,
            world.start,
            world.months[2],
            "amendment",
            signed=False,
            file="amendments/amendment_02_draft.docx",
        )
    )
    for line in _labour(world, target) + _labour(world, draft_code):
        line.patterns.add("authority_resolution")
    design.plant(
        "authority_resolution",
        "amendment.signed",
        f"signed amendment: {target} at {new_rate} from {effective}",
        str(new_rate),
        "amendments/amendment_01_signed.docx",
    )
    design.plant(
        "authority_resolution",
        "amendment.draft",
        f"unsigned draft: {draft_code} at {draft_rate}",
        str(draft_rate),
        "amendments/amendment_02_draft.docx",
    )
    design.forms["authority_resolution"] = (
        "A signed amendment, a newer unsigned draft and the rate annex compete with the contract; the order of "
        "precedence is a clause in the contract's boilerplate."
        if level == 2
        else "The ranking is split: notes.md ranks signed amendments over the contract, the contract ranks its "
        "schedule over the annex, and the signed amendment takes effect mid-quarter so both regimes apply."
    )


def scope_distractor(world: World, level: int, rng: random.Random, design: Design) -> None:
    other = f"{world.code}-LEGACY" if level == 2 else f"PRJ-{rng.randint(1000, 8999)}"
    while other == world.code:
        other = f"PRJ-{rng.randint(1000, 8999)}"
    world.other_projects.append(other)
    invoice = world.invoices[rng.randrange(3)]
    name = rng.choice(sorted(world.staff))
    day = rng.choice(
        [
            d
            for d in business_days(invoice.month)[1:-3]
            if all(line.date != d or line.staff != name for line in invoice.lines)
        ]
    )
    hours = Decimal(rng.choice(("3", "4", "5")))
    mention = f" (follow-up to {world.code})" if level >= 2 else ""
    invoice.lines.append(Line(invoice.id, day, "labour", f"Legacy report support{mention}", other, "", name, hours))
    expense = new_expense(world, rng, rng.randrange(3), project=other)
    expense.description += mention
    for line in world.lines():
        if line.project == other:
            line.patterns.add("scope_distractor")
    location = "work_orders.csv" if level == 3 else "invoices/"
    if level == 3:
        world.render["scope_by_wo"] = True
        pool = rng.sample(range(1100, 1990), 8)
        mine = [f"WO-{n}" for n in pool[:5]]
        theirs = [f"WO-{n}" for n in pool[5:]]
        for wo in mine:
            world.work_orders[wo] = world.code
        for wo in theirs:
            world.work_orders[wo] = other
    design.plant(
        "scope_distractor",
        "scope.other-project",
        f"lines of project {other} are another project's work",
        other,
        location,
    )
    design.forms["scope_distractor"] = {
        1: f"Lines of the vendor's other project {other} sit in the same invoices with a different project code.",
        2: f"The other project's code {other} differs only by a suffix and its descriptions mention {world.code}.",
        3: "Invoices carry work-order numbers instead of project codes; the scope comes from joining work_orders.csv.",
    }[level]


def assign_work_orders(world: World, rng: random.Random) -> None:
    """Give every line a work order of its project (after all lines exist)."""
    if not world.work_orders:
        return
    by_project: dict[str, list[str]] = {}
    for wo, project in sorted(world.work_orders.items()):
        by_project.setdefault(project, []).append(wo)
    for line in world.lines():
        line.work_order = rng.choice(by_project[line.project])


def claim_without_receipt(world: World, level: int, rng: random.Random, design: Design) -> None:
    missing = new_expense(world, rng, rng.randrange(3))
    world.receipts.remove(receipt_of(world, missing))
    missing.patterns.add("claim_without_receipt")
    design.plant(
        "claim_without_receipt",
        "receipt.missing",
        f"no receipt exists for {missing.receipt}",
        missing.receipt,
        "invoices/",
    )
    if level >= 2:
        world.render["receipt_names"] = "generic"
    if level == 3 or (level == 2 and rng.random() >= 0.6):
        stale = new_expense(world, rng, rng.randrange(3))
        receipt = receipt_of(world, stale)
        receipt.date = receipt.date.replace(year=receipt.date.year - 1)
        stale.patterns.add("claim_without_receipt")
        design.plant(
            "claim_without_receipt",
            "receipt.stale",
            f"receipt {stale.receipt} is dated {receipt.date}",
            str(receipt.date),
            "receipts/",
        )
    if level == 3:
        foreign = new_expense(world, rng, rng.randrange(3))
        receipt = receipt_of(world, foreign)
        receipt.project = f"PRJ-{rng.randint(1000, 8999)}"
        foreign.patterns.add("claim_without_receipt")
        design.plant(
            "claim_without_receipt",
            "receipt.foreign",
            f"receipt {foreign.receipt} names {receipt.project}",
            receipt.project,
            "receipts/",
        )
    design.forms["claim_without_receipt"] = {
        1: "One claimed expense has no receipt; receipts are named after their numbers.",
        2: "Receipts carry generic scan names; one claim has none and one receipt is from a different date.",
        3: "As level 2, and one receipt matches number and date but belongs to another project.",
    }[level]


def scanned_evidence_without_text_layer(world: World, level: int, rng: random.Random, design: Design) -> None:
    line = new_expense(world, rng, rng.randrange(3))
    receipt = receipt_of(world, line)
    differs = rng.random() < {1: 0.4, 2: 0.5, 3: 1.0}[level]
    if differs:
        receipt.amount -= Decimal(rng.randint(500, 4000)) / 100
    receipt.form = {1: "png", 2: "scan", 3: "bundle"}[level]
    line.patterns.add("scanned_evidence_without_text_layer")
    if level == 3:
        for other in world.receipts:
            if other.form == "text":
                other.form = "bundle"
        for expense in world.lines():
            if expense.kind == "expense" and any(
                r.number == expense.receipt and r.form == "bundle" for r in world.receipts
            ):
                expense.patterns.add("scanned_evidence_without_text_layer")
    where = {1: f"receipts/{receipt.number}.png", 2: "receipts/", 3: "receipts/receipts_scanned_bundle.pdf"}[level]
    design.plant(
        "scanned_evidence_without_text_layer",
        "receipt.scanned-amount",
        f"the scanned receipt {receipt.number} shows {receipt.amount}",
        str(receipt.amount),
        where,
    )
    design.forms["scanned_evidence_without_text_layer"] = {
        1: "One receipt is a clean PNG scan; its amount decides the reimbursement.",
        2: "One receipt is an image-only PDF, slightly rotated, with the amount and date on it.",
        3: "All receipts are pages of one noisy, rotated image-only PDF bundle.",
    }[level]


# -- long-horizon consistency ----------------------------------------------------------------------


def duplicate_claim_across_periods(world: World, level: int, rng: random.Random, design: Design) -> None:
    first = new_expense(world, rng, 0)
    pairs = [(first, 1)]
    if level == 3:
        pairs.append((new_expense(world, rng, 1), 2))
    for index, (original, target) in enumerate(pairs):
        invoice = world.invoices[target]
        number = original.receipt.replace("-", "") if level == 3 and index == 0 else original.receipt
        day = original.date if level == 1 else rng.choice(business_days(invoice.month)[1:-3])
        suffix = "" if level == 1 else " (resubmitted)"
        amount = original.rate
        if level >= 2 and rng.random() >= 0.6:
            amount = original.rate.quantize(Decimal(1))  # re-typed without the cents
        copy = Line(
            invoice.id, day, "expense", original.description + suffix, world.code, "", rate=amount, receipt=number
        )
        invoice.lines.append(copy)
        original.patterns.add("duplicate_claim_across_periods")
        copy.patterns.add("duplicate_claim_across_periods")
        design.plant(
            "duplicate_claim_across_periods",
            f"duplicate.{index}",
            f"receipt {original.receipt} is claimed again in {invoice.id}",
            original.receipt,
            "invoices/",
        )
    if level == 3:
        recurring = new_expense(world, rng, 2)
        recurring.description, recurring.rate = first.description, first.rate
        receipt_of(world, recurring).amount = first.rate
        recurring.patterns.add("duplicate_claim_across_periods")
    design.forms["duplicate_claim_across_periods"] = {
        1: "An identical expense line (same date, amount and receipt) is claimed in two months.",
        2: "The same receipt is claimed again a month later with another date and wording.",
        3: "Two re-claims over three months, one with the receipt number written without its dash, beside a "
        "legitimate recurring expense of the same amount.",
    }[level]


def cross_deliverable_agreement(world: World, level: int, rng: random.Random, design: Design) -> None:
    world.render["cross"] = level
    design.forms["cross_deliverable_agreement"] = {
        1: "The CSV detail, the JSON summary's line counts and the audit note's count must agree.",
        2: "As level 1, and a late credit note changes one line's hours, which must reach all three deliverables.",
        3: "Credit notes where one replaces an earlier one and another is withdrawn must reach all three deliverables.",
    }[level]
    design.plant(
        "cross_deliverable_agreement", "deliverables.agree", "the three deliverables report the same figures", None, ""
    )
    if level == 1:
        return
    candidates = [line for line in _free_labour(world) if line.hours >= 4]
    chosen = rng.sample(candidates, min(len(candidates), 2 if level == 3 else 1))
    issued = world.invoices[-1].issued + timedelta(days=rng.randint(3, 9))
    for index, line in enumerate(chosen[:1]):
        hours = line.hours - Decimal(rng.choice(("1", "1.5", "2")))
        world.corrections.append(Correction(f"CN-{index + 1:02d}", issued, line.key, hours))
        line.patterns.add("cross_deliverable_agreement")
        design.plant(
            "cross_deliverable_agreement",
            "credit.cn-01",
            f"credit note CN-01 sets {line.key} to {hours} h",
            str(hours),
            "corrections/credit_note_CN-01.md",
        )
    if level == 3:
        first = chosen[0]
        hours = first.hours - Decimal(rng.choice(("2.5", "3")))
        world.corrections.append(Correction("CN-02", issued + timedelta(days=4), first.key, hours, supersedes="CN-01"))
        design.plant(
            "cross_deliverable_agreement",
            "credit.cn-02",
            f"credit note CN-02 replaces CN-01: {hours} h",
            str(hours),
            "corrections/credit_note_CN-02.md",
        )
        if len(chosen) > 1:
            second = chosen[1]
            world.corrections.append(
                Correction("CN-03", issued + timedelta(days=6), second.key, second.hours - Decimal("1"))
            )
            world.corrections.append(
                Correction(
                    "CN-04", issued + timedelta(days=8), second.key, second.hours, supersedes="CN-03", withdraws=True
                )
            )
            second.patterns.add("cross_deliverable_agreement")


def partial_payment_vs_billed(world: World, level: int, rng: random.Random, design: Design) -> None:
    world.render["payments"] = level
    if level == 1:
        payment = rng.choice(world.payments)
        payment.amount = (payment.amount * Decimal(rng.choice(("0.6", "0.7", "0.8"))) / 10).quantize(Decimal(1)) * 10
        design.plant(
            "partial_payment_vs_billed",
            "payment.partial",
            f"{payment.reference} was paid {payment.amount}",
            str(payment.amount),
            LEDGER,
        )
        world.render["paid_items"] = [payment.reference]
        design.forms["partial_payment_vs_billed"] = "One invoice was paid only in part."
        return
    first = rng.randrange(2)
    a, b = world.invoices[first], world.invoices[first + 1]
    pa = next(p for p in world.payments if p.allocations == [a.id])
    pb = next(p for p in world.payments if p.allocations == [b.id])
    world.payments.remove(pb)
    pa.reference = f"{a.id} / {b.id}"
    pa.allocations = [a.id, b.id]
    pa.amount = a.printed_total + (b.printed_total * Decimal(rng.choice(("0.5", "0.6", "0.75")))).quantize(Decimal(1))
    paid_items = [a.id, b.id]
    design.plant(
        "partial_payment_vs_billed",
        "payment.combined",
        f"one payment of {pa.amount} covers {a.id} and {b.id}",
        str(pa.amount),
        LEDGER,
    )
    if level == 3:
        c = world.invoices[2 if first == 0 else 0]
        pc = next(p for p in world.payments if p.allocations == [c.id])
        world.payments.append(
            Payment(
                pc.date + timedelta(days=6),
                f"Returned payment {pc.bank_ref}",
                f"BT-{rng.randint(100000, 999999)}",
                -pc.amount,
                "bounced",
                returns=pc.bank_ref,
            )
        )
        paid_items.append(c.id)
        design.plant(
            "partial_payment_vs_billed",
            "payment.returned",
            f"payment {pc.bank_ref} for {c.id} bounced",
            pc.bank_ref,
            LEDGER,
        )
    world.render["paid_items"] = paid_items
    design.forms["partial_payment_vs_billed"] = (
        "One payment names two invoices and must be allocated in the order named, up to each printed total."
        if level == 2
        else "A combined payment over two invoices, and a bounced payment reversed later under its bank reference."
    )


# -- planning --------------------------------------------------------------------------------------


def date_dependent_rates(world: World, level: int, rng: random.Random, design: Design) -> None:
    billed = _billed_codes(world)
    chosen = rng.sample(billed, 2 if level == 3 and len(billed) > 1 else 1)
    benign = rng.random() < {1: 0.5, 2: 0.6, 3: 0.15}[level]
    for index, code in enumerate(chosen):
        lines = sorted(_labour(world, code), key=lambda line: line.date)
        if benign:
            effective = lines[-1].date + timedelta(days=1)
            if effective > world.end:
                effective = world.end
        else:
            candidates = [line.date for line in lines if line.date > world.start + timedelta(days=5)]
            effective = rng.choice(candidates) if candidates else lines[-1].date
        published = effective if level == 1 else effective - timedelta(days=rng.randint(5, 15))
        source = "email" if level >= 2 and index == 0 else "notice"
        file = "mail/rate_change.eml" if source == "email" else "rate_notice.md"
        rate = world.governing_rate(code, effective) + Decimal(rng.choice((5, 10, 15)))
        world.changes.append(RateChange(code, rate, effective, published, source, file=file))
        for line in lines:
            line.patterns.add("date_dependent_rates")
        design.plant(
            "date_dependent_rates", f"rate-change.{index}", f"{code} costs {rate} from {effective}", str(rate), file
        )
    if level >= 2:
        code = rng.choice(billed)
        next_start = world.end + timedelta(days=rng.randint(1, 20))
        world.changes.append(
            RateChange(
                code,
                world.roles[code].rate + Decimal(25),
                next_start,
                next_start - timedelta(days=30),
                "notice",
                file="rate_notice_next_quarter.md",
            )
        )
    design.forms["date_dependent_rates"] = {
        1: "A rate notice changes one role's rate mid-quarter, effective on its publication date.",
        2: "An e-mail announces a change whose effective date differs from its date, beside a notice for the "
        "next quarter.",
        3: "Two mid-quarter changes for two roles (an e-mail and a notice), beside a next-quarter notice.",
    }[level]


def cap_across_tiers(world: World, level: int, rng: random.Random, design: Design) -> None:
    lines = _free_labour(world)
    if level == 1:
        line = rng.choice(lines)
        line.hours = Decimal(rng.choice(("9.5", "10", "11")))
        line.patterns.add("cap_across_tiers")
        design.plant(
            "cap_across_tiers", "cap.daily", "billable time is capped at 8 h per person per day", "8", CONTRACT
        )
        design.forms["cap_across_tiers"] = "One line bills more than the contract's daily cap of 8 hours."
        return
    world.render["times"] = True
    remote = rng.choice(lines)
    remote.hours = Decimal(rng.choice(("4.5", "5", "5.5")))
    remote.start, remote.end = "13:30", _plus("13:30", remote.hours)
    if rng.random() >= 0.6:
        remote.rank = -1  # printed before the on-site line although worked after it
    remote.patterns.add("cap_across_tiers")
    onsite_hours = Decimal(rng.choice(("5", "5.5", "6")))
    invoice = next(inv for inv in world.invoices if inv.id == remote.invoice)
    onsite = Line(
        invoice.id,
        remote.date,
        "labour",
        "On-site workshop",
        world.code,
        "",
        remote.staff,
        onsite_hours,
        "07:30",
        _plus("07:30", onsite_hours),
        onsite=True,
    )
    onsite.patterns.add("cap_across_tiers")
    invoice.lines.append(onsite)
    design.plant(
        "cap_across_tiers", "cap.order", "the daily cap counts hours in the order they were worked", "start time", NOTES
    )
    if level == 3:
        world.weekly_cap = Decimal(36)
        mondays = [d for d in business_days(world.months[1]) if d.weekday() == 0 and d + timedelta(days=4) <= world.end]
        options = [(name, monday) for name in sorted(world.staff) for monday in mondays]
        free = [
            (n, m)
            for n, m in options
            if not any(line.staff == n and 0 <= (line.date - m).days < 7 for line in world.lines())
        ]
        name, monday = rng.choice(free or options)
        week = {monday + timedelta(days=i) for i in range(7)}
        for inv in world.invoices:
            inv.lines = [line for line in inv.lines if not (line.staff == name and line.date in week)]
        light = rng.random() < 0.15  # the week stays under the weekly cap
        for offset in range(5):
            day = monday + timedelta(days=offset)
            target = next(inv for inv in world.invoices if inv.month.month == day.month)
            hours = Decimal("7") if light else Decimal(rng.choice(("7.5", "8")))
            line = Line(
                target.id,
                day,
                "labour",
                rng.choice(("Pipeline implementation", "Data model review")),
                world.code,
                "",
                name,
                hours,
                "09:00",
                _plus("09:00", hours),
            )
            line.patterns.add("cap_across_tiers")
            target.lines.append(line)
        design.plant(
            "cap_across_tiers", "cap.weekly", "hours above 36 per person per week are not billable", "36", CONTRACT
        )
    design.forms["cap_across_tiers"] = (
        "An on-site line (billed at the uplifted tier) and a remote line on the same day exceed the daily cap; "
        "the FAQ says the cap counts in the order worked, which differs from line order."
        if level == 2
        else "As level 2, plus a weekly cap stated only in a contract footnote that cuts the last day of a full week."
    )


def _plus(start: str, hours: Decimal) -> str:
    hh, mm = (int(x) for x in start.split(":"))
    minutes = hh * 60 + mm + int(hours * 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


# -- error recovery --------------------------------------------------------------------------------


def source_arithmetic_error(world: World, level: int, rng: random.Random, design: Design) -> None:
    first, second = rng.sample(range(3), 2)
    invoice = world.invoices[first]
    if level == 2:
        invoice.labour_delta = Decimal(rng.choice((10, 90, 100)))
    else:
        invoice.total_delta = Decimal(rng.choice((10, -10, 100)))
    design.plant(
        "source_arithmetic_error", "arith.error", f"{invoice.id} prints a total off its lines", invoice.id, "invoices/"
    )
    if level == 3:
        world.invoices[second].total_delta = Decimal("0.01")
        design.plant(
            "source_arithmetic_error",
            "arith.rounding",
            f"{world.invoices[second].id} is off by 0.01 only",
            world.invoices[second].id,
            "invoices/",
        )
    design.forms["source_arithmetic_error"] = {
        1: "One invoice prints a total that differs from its lines by a round amount.",
        2: "One invoice's labour subtotal is wrong and its total agrees with the wrong subtotal.",
        3: "Two discrepancies: a real one and a 0.01 rounding difference inside the stated tolerance.",
    }[level]


def misleading_tool_error(world: World, level: int, rng: random.Random, design: Design) -> None:
    world.render["tool"] = level
    chosen = rng.sample(range(3), 2 if level == 3 else 1)
    world.render["tool_invoices"] = [world.invoices[i].id for i in chosen]
    design.plant(
        "misleading_tool_error",
        "tool.bad-name",
        "the extraction tool splits file names with spaces",
        "tools/extract_invoice.sh",
        "tools/extract_invoice.sh",
    )
    design.forms["misleading_tool_error"] = {
        1: "The documented extraction script fails on an invoice whose file name has a space, and its error "
        "echoes the split name.",
        2: "The script reports only 'unsupported format' for an invoice whose file name has a space.",
        3: "Two invoices fail with the same 'unsupported format' message: a spaced name and an over-long path.",
    }[level]


TRANSFORMERS: dict[str, Transformer] = {
    "distributed_evidence": distributed_evidence,
    "authority_resolution": authority_resolution,
    "date_dependent_rates": date_dependent_rates,
    "scope_distractor": scope_distractor,
    "cap_across_tiers": cap_across_tiers,
    "duplicate_claim_across_periods": duplicate_claim_across_periods,
    "claim_without_receipt": claim_without_receipt,
    "scanned_evidence_without_text_layer": scanned_evidence_without_text_layer,
}
"""Transformers that run before the vendor prices its lines and the lines are numbered, in this order."""

AFTER_NUMBERING: dict[str, Transformer] = {
    "cross_deliverable_agreement": cross_deliverable_agreement,
    "source_arithmetic_error": source_arithmetic_error,
}
AFTER_PAYMENTS: dict[str, Transformer] = {
    "partial_payment_vs_billed": partial_payment_vs_billed,
    "misleading_tool_error": misleading_tool_error,
}
PATTERNS = (*TRANSFORMERS, *AFTER_NUMBERING, *AFTER_PAYMENTS)
