"""Kit 1: vendor billing reconciliation (the paper's worked Docling example).

Contract and amendments with rates, monthly invoices, receipts (some scanned), a payments ledger and
accounts-payable notes → a reconciled CSV, a JSON summary and an audit note.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from decimal import Decimal
from typing import ClassVar

from skill2env.kits import checks
from skill2env.kits.base import Kit
from skill2env.kits.billing.docs import render_world
from skill2env.kits.billing.patterns import (
    AFTER_NUMBERING,
    AFTER_PAYMENTS,
    PATTERNS,
    TRANSFORMERS,
    assign_work_orders,
)
from skill2env.kits.billing.world import (
    LineResult,
    Reconciliation,
    World,
    add_payments,
    generate,
    number_lines,
    reconcile,
    reprice,
)
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item, Workspace, apply_patterns, seeded
from skill2env.patterns.models import InformationLevel, Trait

CSV = "output/reconciliation.csv"
SUMMARY = "output/summary.json"
NOTE = "output/audit_note.md"
KEY = ("invoice", "line")


def _f(value: Decimal) -> float:
    return float(value)


class BillingKit(Kit):
    name = "billing"
    title = "Vendor billing reconciliation"
    formats = ("docx", "html", "pdf", "pdf-scanned", "png", "xlsx", "markdown", "csv", "json", "eml", "shell")
    patterns = PATTERNS
    traits: ClassVar[Mapping[Trait, float]] = {
        Trait.FINANCE: 1.2,
        Trait.DOCUMENTS: 1.0,
        Trait.SCANNED_MEDIA: 1.0,
        Trait.TABULAR_DATA: 0.6,
        Trait.NUMERIC_COMPUTATION: 0.8,
        Trait.TEMPORAL_DATA: 0.3,
        Trait.VERSION_HISTORY: 0.2,
    }
    lead = (Trait.FINANCE, Trait.DOCUMENTS, Trait.SCANNED_MEDIA)
    """Money matters, or the documents and scans the evidence sits in."""
    tool_patterns: ClassVar[Mapping[Trait, str]] = {
        Trait.FINANCE: "partial_payment_vs_billed",
        Trait.SCANNED_MEDIA: "scanned_evidence_without_text_layer",
        Trait.DOCUMENTS: "scanned_evidence_without_text_layer",
        Trait.TABULAR_DATA: "partial_payment_vs_billed",
        Trait.NUMERIC_COMPUTATION: "source_arithmetic_error",
        Trait.TEMPORAL_DATA: "date_dependent_rates",
        Trait.SKILL_SCRIPTS: "misleading_tool_error",
        Trait.CLI_TOOLS: "misleading_tool_error",
    }
    starters = (
        "authority_resolution",
        "duplicate_claim_across_periods",
        "partial_payment_vs_billed",
        "scope_distractor",
        "cross_deliverable_agreement",
    )
    solver_module = "skill2env.kits.billing.solver"
    naive_module = "skill2env.kits.billing.naive"

    def generate_world(self, seed: int, salt: int) -> World:
        return generate(seed, salt)

    def world(self, seed: int, patterns: Mapping[str, int], salt: int = 0) -> tuple[World, Design]:
        """The base world plus the billing steps that run between pattern stages (work orders, prices,
        line numbers, payments), each stage's patterns applied after the step it depends on."""
        world, design = self.generate_world(seed, salt), Design()

        def rng(pattern: str) -> random.Random:
            return seeded("billing", seed, salt, pattern)

        apply_patterns("billing", TRANSFORMERS, world, patterns, design, seed=seed, salt=salt)
        assign_work_orders(world, rng("work-orders"))
        reprice(world)
        number_lines(world)
        apply_patterns("billing", AFTER_NUMBERING, world, patterns, design, seed=seed, salt=salt)
        add_payments(world, rng("payments"))
        apply_patterns("billing", AFTER_PAYMENTS, world, patterns, design, seed=seed, salt=salt)
        return world, design

    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        world, design = self.world(seed, patterns, salt)
        workspace = render_world(world)
        truth = reconcile(world)
        composition = Composition(
            title=f"Reconcile {world.vendor}'s {world.period} invoices",
            goal=f"Reconcile the {world.period} invoices of {world.vendor} for project {world.code} against the "
            "contract, receipts and payments, and report what is owed.",
            body=instruction_body(world),
            workspace=workspace,
            facts=[],
            challenges=[],
            deliverables=[
                (CSV, "csv", "one row per invoice line with its approved amount and status", 0.4),
                (SUMMARY, "json", "per-invoice and total claimed / approved / paid / balance", 0.4),
                (NOTE, "markdown", "the audit note for the accounts-payable lead", 0.2),
            ],
            items=[],
        )
        base_facts(composition, world, workspace)
        composition.plant(design)
        for pattern_id, level in patterns.items():
            composition.challenges.append(
                ChallengeSpec(
                    pattern_id, level, design.forms[pattern_id], tuple(design.pattern_facts.get(pattern_id, ()))
                )
            )
        composition.items = items(world, truth, design, patterns)
        return composition


def base_facts(composition: Composition, world: World, workspace: Workspace) -> None:
    stated, found = InformationLevel.STATED, InformationLevel.DISCOVERABLE
    composition.fact("goal.project", f"only project {world.code} is in scope", stated, world.code)
    composition.fact("goal.period", f"the reconciliation covers {world.period}", stated, world.period)
    rates = ", ".join(f"{c}={r.rate:.2f}" for c, r in world.roles.items())
    composition.fact("contract.rates", "the contract schedule's hourly rates", found, rates, location="contract.docx")
    composition.fact(
        "contract.terms",
        "daily cap, on-site uplift and rate-change clause",
        found,
        "capped at 8 hours per person per day",
        location="contract.docx",
    )
    composition.fact(
        "invoices.lines",
        "the invoices' lines, subtotals and printed totals",
        found,
        ", ".join(i.id for i in world.invoices),
        location="invoices/",
    )
    composition.fact("receipts", "the receipts for claimed expenses", found, len(world.receipts), location="receipts/")
    composition.fact(
        "payments", "the payments made to the vendor", found, len(world.payments), location="payments_ledger.xlsx"
    )
    composition.fact(
        "notes.rules",
        "expense, rounding and payment-allocation rules",
        found,
        "Each receipt is reimbursed once",
        location="notes.md",
    )


def instruction_body(world: World) -> str:
    cross = world.render.get("cross", 0)
    counts = (
        ',\n    "line_counts": {"total": <lines>, "excluded": <excluded lines>, "adjusted": <adjusted lines>}'
        if cross
        else ""
    )
    count_line = "\n   - a line `Lines excluded: <count>` with the number of excluded lines;" if cross else ""
    corrected = " and every line a credit note changed" if cross and cross >= 2 else ""
    return f"""Accounts payable must release the balance owed to **{world.vendor}** for project **{world.code}**
({world.project_name}), {world.period}. Reconcile the vendor's invoices for the quarter against the contract and
every document that changes its terms, the expense receipts, the payments ledger and the accounts-payable notes,
all in the workspace.

Rules for the result:

- Only work for project {world.code} is reimbursable; a line for other work is approved at 0.
- A labour line is approved at the hours the contract allows times the rate in force on the line's date.
- Expenses are reimbursed as the accounts-payable notes say.
- `status` of a line is the first that applies of: `out_of_scope`, `duplicate`, `no_receipt`, `adjusted`
  (approved amount differs from the billed amount), `ok`.
- Money with two decimals, dot as decimal separator, no thousands separators. A line is identified by its
  invoice id and its line number, written `<invoice>/<line>` in prose and lists.

Formats:

1. `output/reconciliation.csv` with the header `invoice,line,date,description,billed_amount,approved_amount,status`
   and one row per invoice line, excluded lines included (`billed_amount` as printed on the line).
2. `output/summary.json`:
   ```
   {{"invoices": {{"<invoice id>": {{"claimed": <sum of its line amounts>, "approved": <approved>,
                                   "paid": <paid>, "balance": <approved - paid>}}}},
    "totals": {{"claimed": ..., "approved": ..., "paid": ..., "balance_due": <approved - paid>}},
    "excluded_lines": ["<invoice>/<line>", ...],
    "arithmetic_errors": ["<invoice id whose printed total differs from the sum of its lines>", ...]{counts}}}
   ```
   (`excluded_lines`: lines approved at 0 because of their status; numbers as JSON numbers.)
3. `output/audit_note.md`: a short note for the accounts-payable lead with
   - a line `Balance due: <totals.balance_due>`;{count_line}
   - every excluded line{corrected} and every invoice with an arithmetic error, named by its id.
"""


def items(world: World, truth: Reconciliation, design: Design, patterns: Mapping[str, int]) -> list[Item]:
    result: list[Item] = []

    def row(lr: LineResult, columns: tuple[str, ...]) -> dict[str, object]:
        values = {
            "invoice": lr.line.invoice,
            "line": str(lr.line.number),
            "billed_amount": _f(lr.line.amount),
            "approved_amount": _f(lr.approved),
            "status": lr.status,
        }
        return {k: values[k] for k in (*KEY, *columns)}

    every = [row(x, ("billed_amount",)) for x in truth.lines]
    result.append(
        Item(
            "csv.lines",
            "The CSV lists every invoice line of the quarter exactly once, with its billed amount.",
            CSV,
            checks.csv_rows(CSV, KEY, ["billed_amount"], every, exact_keys=True),
            every,
            ("invoices.lines",),
            "Every line of every invoice PDF, as printed.",
        )
    )
    base = [row(x, ("approved_amount", "status")) for x in truth.lines if not x.line.patterns]
    if base:
        result.append(
            Item(
                "csv.base",
                "Lines without designed anomalies have the right approved amount and status.",
                CSV,
                checks.csv_rows(CSV, KEY, ["approved_amount", "status"], base),
                base,
                ("invoices.lines", "contract.rates", "receipts", "notes.rules"),
                "Hours times the contract rate; expenses at the receipt amount.",
            )
        )
    for pattern_id in patterns:
        if pattern_id == "misleading_tool_error":
            chosen = set(world.render.get("tool_invoices", []))
            rows = [
                row(x, ("billed_amount", "approved_amount", "status")) for x in truth.lines if x.line.invoice in chosen
            ]
            columns: tuple[str, ...] = ("billed_amount", "approved_amount", "status")
        else:
            rows = [row(x, ("approved_amount", "status")) for x in truth.lines if pattern_id in x.line.patterns]
            columns = ("approved_amount", "status")
        if rows:
            result.append(
                Item(
                    f"csv.{pattern_id}",
                    f"Lines carrying the {pattern_id.replace('_', ' ')} challenge "
                    "have the right approved amount and status.",
                    CSV,
                    checks.csv_rows(CSV, KEY, list(columns), rows),
                    rows,
                    tuple(design.pattern_facts.get(pattern_id, ())) or ("invoices.lines",),
                    design.forms[pattern_id],
                    patterns=(pattern_id,),
                )
            )
    totals = truth.totals()
    for key, fact_ids in (
        ("claimed", ("invoices.lines",)),
        ("approved", ("invoices.lines", "contract.rates")),
        ("paid", ("payments", "notes.rules")),
        ("balance_due", ("payments", "invoices.lines")),
    ):
        value = _f(totals[key])
        result.append(
            Item(
                f"json.{key}",
                f"summary.json reports totals.{key} correctly.",
                SUMMARY,
                checks.json_value(SUMMARY, f"$.totals.{key}", value),
                value,
                fact_ids,
                f"Sum over the invoices of {key} (derived line by line).",
                secret=key != "paid" and abs(value) >= 100,
            )
        )
    excluded = sorted(truth.excluded)
    result.append(
        Item(
            "json.excluded",
            "summary.json lists exactly the excluded lines.",
            SUMMARY,
            checks.json_value(SUMMARY, "$.excluded_lines", excluded, unordered=True),
            excluded,
            ("invoices.lines", "notes.rules"),
            "Lines approved at 0 by status.",
        )
    )
    arith_links = ("source_arithmetic_error",) if "source_arithmetic_error" in patterns else ()
    result.append(
        Item(
            "json.arithmetic_errors",
            "summary.json lists exactly the invoices whose printed total differs from their lines.",
            SUMMARY,
            checks.json_value(SUMMARY, "$.arithmetic_errors", truth.arithmetic_errors, unordered=True),
            truth.arithmetic_errors,
            ("invoices.lines", "notes.rules"),
            "Printed total minus the sum of line amounts, outside the 0.05 tolerance.",
            patterns=arith_links,
        )
    )
    for invoice in world.render.get("paid_items", []):
        value = _f(truth.paid[invoice])
        result.append(
            Item(
                f"json.paid.{invoice.lower()}",
                f"summary.json reports what was paid on {invoice}.",
                SUMMARY,
                checks.json_value(SUMMARY, f'$.invoices["{invoice}"].paid', value),
                value,
                tuple(design.pattern_facts["partial_payment_vs_billed"]),
                "Payments allocated in the order named, returns cancelled by bank reference.",
                patterns=("partial_payment_vs_billed",),
            )
        )
    cross = ("cross_deliverable_agreement",) if "cross_deliverable_agreement" in patterns else ()
    if cross:
        counts = truth.counts()
        result.append(
            Item(
                "json.line_counts",
                "summary.json's line counts agree with the CSV.",
                SUMMARY,
                checks.json_value(SUMMARY, "$.line_counts", counts),
                counts,
                tuple(design.pattern_facts["cross_deliverable_agreement"]),
                "Counts of CSV rows by status.",
                patterns=cross,
            )
        )
    balance = _f(totals["balance_due"])
    result.append(
        Item(
            "note.balance",
            "The audit note states the balance due as in the summary.",
            NOTE,
            checks.text_matches(NOTE, checks.labelled_number("Balance due", balance)),
            balance,
            ("payments", "invoices.lines"),
            "totals.balance_due, repeated in prose.",
            secret=abs(balance) >= 100,
        )
    )
    if cross:
        count = len(excluded)
        result.append(
            Item(
                "note.excluded_count",
                "The audit note's excluded-line count agrees with the CSV.",
                NOTE,
                checks.text_matches(NOTE, checks.labelled_number("Lines excluded", count, decimals=0)),
                count,
                tuple(design.pattern_facts["cross_deliverable_agreement"]),
                "The number of excluded lines.",
                patterns=cross,
            )
        )
    named = [*excluded, *truth.arithmetic_errors]
    if cross and world.render.get("cross", 0) >= 2:
        superseded = {c.supersedes for c in world.corrections if c.supersedes}
        named += sorted({c.line_key for c in world.corrections if c.note not in superseded and not c.withdraws})
    if named:
        result.append(
            Item(
                "note.findings",
                "The audit note names every excluded line and every invoice with an arithmetic error.",
                NOTE,
                checks.text_contains(NOTE, sorted(set(named))),
                sorted(set(named)),
                ("invoices.lines", "notes.rules"),
                "The ids behind the summary's lists.",
            )
        )
    return result


KIT = BillingKit()
