#!/usr/bin/env python3
"""Reconcile vendor invoices against contract rates and a payment ledger.

Inputs (CSV or JSON list-of-objects, chosen by file extension):

  invoices:  invoice_id, vendor, invoice_date, item, quantity, unit_price, line_total[, currency]
             (one row per invoice line)
  contracts: vendor, item, unit_rate, currency, valid_from[, valid_to]
  payments:  payment_id, invoice_id, paid_on, amount

Findings (code, severity): OVERBILLED, DUPLICATE_LINE, DUPLICATE_INVOICE,
DUPLICATE_PAYMENT, OVERPAID, ORPHAN_PAYMENT, CURRENCY_MISMATCH (high);
LINE_MATH, NO_CONTRACT_RATE, CONTRACT_OVERLAP, PARTIAL_PAYMENT (medium);
UNPAID (low). All money is handled as Decimal. Standard library only.

Exit codes: 0 no findings, 1 findings reported, 2 usage or input error.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
SEVERITY = {
    "OVERBILLED": "high", "DUPLICATE_LINE": "high", "DUPLICATE_INVOICE": "high", "DUPLICATE_PAYMENT": "high",
    "OVERPAID": "high", "ORPHAN_PAYMENT": "high", "CURRENCY_MISMATCH": "high",
    "LINE_MATH": "medium", "NO_CONTRACT_RATE": "medium", "CONTRACT_OVERLAP": "medium", "PARTIAL_PAYMENT": "medium",
    "UNPAID": "low",
}
REQUIRED = {
    "invoices": ["invoice_id", "vendor", "invoice_date", "item", "quantity", "unit_price", "line_total"],
    "contracts": ["vendor", "item", "unit_rate", "currency", "valid_from"],
    "payments": ["payment_id", "invoice_id", "paid_on", "amount"],
}
CENT = Decimal("0.01")


class InputError(Exception):
    """An input file is missing or malformed."""


@dataclass
class Finding:
    code: str
    severity: str
    invoice_id: str
    reference: str
    detail: str
    amount_at_risk: str


def load_rows(path: Path, kind: str) -> list[dict[str, Any]]:
    """Load CSV or JSON rows, tagging each with its source location for error messages."""
    if not path.is_file():
        raise InputError(f"{kind} file not found: {path}")
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: invalid JSON ({exc})") from None
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise InputError(f"{path}: expected a JSON list of objects")
        rows = [{**r, "_where": f"{path} item {i}"} for i, r in enumerate(data)]
    else:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            rows = []
            for row in reader:
                if not any((v or "").strip() for k, v in row.items() if k is not None):
                    continue
                clean = {k.strip(): (v or "").strip() for k, v in row.items() if k}
                rows.append({**clean, "_where": f"{path} line {reader.line_num}"})
    for row in rows:
        missing = [c for c in REQUIRED[kind] if row.get(c) in (None, "")]
        if missing:
            raise InputError(f"{row['_where']}: missing {', '.join(missing)}")
    return rows


def money(row: dict[str, Any], key: str) -> Decimal:
    try:
        value = Decimal(str(row[key]).replace(",", ""))
    except InvalidOperation:
        raise InputError(f"{row['_where']}: {key} {row[key]!r} is not a number") from None
    if not value.is_finite():
        raise InputError(f"{row['_where']}: {key} {row[key]!r} is not a finite number")
    return value


def day(row: dict[str, Any], key: str) -> date | None:
    value = row.get(key)
    if value in (None, ""):
        return None
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        raise InputError(f"{row['_where']}: {key} {value!r} is not an ISO date (YYYY-MM-DD)") from None


def fmt(value: Decimal) -> str:
    return str(value.quantize(CENT))


def reconcile(invoices: list[dict[str, Any]], contracts: list[dict[str, Any]], payments: list[dict[str, Any]],
              tolerance: Decimal) -> tuple[list[Finding], dict[str, Any]]:
    findings: list[Finding] = []

    def add(code: str, invoice_id: str, reference: str, detail: str, at_risk: Decimal = Decimal(0)) -> None:
        findings.append(Finding(code, SEVERITY[code], invoice_id, reference, detail, fmt(at_risk)))

    rates: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for c in contracts:
        rates[(c["vendor"].strip().lower(), c["item"].strip().lower())].append(
            {"rate": money(c, "unit_rate"), "currency": str(c["currency"]).upper(),
             "from": day(c, "valid_from"), "to": day(c, "valid_to")})

    by_invoice: dict[str, list[dict[str, Any]]] = defaultdict(list)
    seen_lines: dict[tuple[Any, ...], str] = {}
    for row in invoices:
        inv = str(row["invoice_id"])
        qty, price, total = money(row, "quantity"), money(row, "unit_price"), money(row, "line_total")
        when = day(row, "invoice_date")
        currency = str(row.get("currency") or "").upper()
        line = {"vendor": row["vendor"], "item": row["item"], "qty": qty, "price": price, "total": total,
                "date": when, "currency": currency}
        by_invoice[inv].append(line)
        ref = f"{row['item']} ({row['_where']})"
        key = (inv, row["item"].lower(), qty, price, total)
        if key in seen_lines:
            add("DUPLICATE_LINE", inv, ref, f"same item/qty/price as {seen_lines[key]}", total)
            line["duplicate"] = True
        else:
            seen_lines[key] = row["_where"]
        expected = (qty * price).quantize(CENT)
        if abs(expected - total) > tolerance:
            add("LINE_MATH", inv, ref, f"line_total {fmt(total)} != quantity x unit_price = {fmt(expected)}",
                max(total - expected, Decimal(0)))
        candidates = [c for c in rates.get((row["vendor"].strip().lower(), row["item"].strip().lower()), [])
                      if c["from"] <= when and (c["to"] is None or when <= c["to"])]
        if not candidates:
            add("NO_CONTRACT_RATE", inv, ref, f"no contract rate for {row['vendor']} / {row['item']} on {when}")
            continue
        if len(candidates) > 1:
            add("CONTRACT_OVERLAP", inv, ref,
                f"{len(candidates)} contract rates valid on {when}; compared with the lowest")
        contract = min(candidates, key=lambda c: c["rate"])
        if currency and currency != contract["currency"]:
            add("CURRENCY_MISMATCH", inv, ref, f"billed in {currency}, contract is in {contract['currency']}", total)
            continue
        if price > contract["rate"]:
            add("OVERBILLED", inv, ref,
                f"unit_price {price} > contract rate {contract['rate']} valid on {when}",
                ((price - contract["rate"]) * qty).quantize(CENT))

    totals = {inv: sum((ln["total"] for ln in lines), Decimal(0)) for inv, lines in by_invoice.items()}
    signatures: dict[tuple[Any, ...], str] = {}
    for inv, lines in by_invoice.items():
        sig = (lines[0]["vendor"].lower(), totals[inv],
               tuple(sorted((ln["item"].lower(), ln["qty"], ln["price"]) for ln in lines)))
        if sig in signatures:
            add("DUPLICATE_INVOICE", inv, f"looks like {signatures[sig]}",
                f"same vendor, lines and total ({fmt(totals[inv])}) as {signatures[sig]}", totals[inv])
        else:
            signatures[sig] = inv

    paid: dict[str, Decimal] = defaultdict(Decimal)
    seen_payments: dict[tuple[str, Decimal], str] = {}
    for p in payments:
        inv, amount, pid = str(p["invoice_id"]), money(p, "amount"), str(p["payment_id"])
        day(p, "paid_on")
        if inv not in by_invoice:
            add("ORPHAN_PAYMENT", inv, pid, f"payment {pid} of {fmt(amount)} references an unknown invoice", amount)
            continue
        key = (inv, amount)
        if key in seen_payments:
            add("DUPLICATE_PAYMENT", inv, pid, f"same amount {fmt(amount)} as {seen_payments[key]}", amount)
            continue  # excluded from the paid total so OVERPAID does not count it twice
        seen_payments[key] = pid
        paid[inv] += amount

    for inv, total in totals.items():
        got = paid.get(inv, Decimal(0))
        if inv not in paid:
            add("UNPAID", inv, "", f"no payment recorded; {fmt(total)} outstanding")
        elif got < total - tolerance:
            add("PARTIAL_PAYMENT", inv, "", f"paid {fmt(got)} of {fmt(total)}; {fmt(total - got)} outstanding")
        elif got > total + tolerance:
            add("OVERPAID", inv, "", f"paid {fmt(got)} against {fmt(total)}", got - total)

    invoiced: dict[str, Decimal] = defaultdict(Decimal)
    for inv, lines in by_invoice.items():
        invoiced[lines[0]["currency"] or "?"] += totals[inv]
    summary = {
        "invoices": len(by_invoice),
        "invoice_lines": len(invoices),
        "payments": len(payments),
        "invoiced_by_currency": {k: fmt(v) for k, v in sorted(invoiced.items())},
        "findings_by_code": dict(sorted(Counter(f.code for f in findings).items())),
        "findings_by_severity": dict(Counter(f.severity for f in findings)),
    }
    return findings, summary


def render_markdown(findings: list[Finding], summary: dict[str, Any]) -> str:
    out = ["# Invoice reconciliation", "",
           f"- Invoices: {summary['invoices']} ({summary['invoice_lines']} lines); payments: {summary['payments']}",
           "- Invoiced: " + ", ".join(f"{v} {k}" for k, v in summary["invoiced_by_currency"].items()),
           f"- Findings: {len(findings)} " + str(summary["findings_by_severity"]),
           "", "Amounts at risk can overlap between findings on the same invoice; do not add them up blindly.",
           "", "| severity | code | invoice | reference | detail | at risk |", "|---|---|---|---|---|---:|"]
    order = {"high": 0, "medium": 1, "low": 2}
    for f in sorted(findings, key=lambda f: (order[f.severity], f.invoice_id, f.code)):
        out.append(f"| {f.severity} | {f.code} | {f.invoice_id} | {f.reference} | {f.detail} | {f.amount_at_risk} |")
    return "\n".join(out) + "\n"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Reconcile invoices against contract rates and a payment ledger; report anomalies.",
        epilog="Exit codes: 0 no findings, 1 findings reported, 2 usage/input error.",
    )
    parser.add_argument("--invoices", required=True, help="invoice lines (.csv or .json)")
    parser.add_argument("--contracts", required=True, help="contract rates (.csv or .json)")
    parser.add_argument("--payments", required=True, help="payment ledger (.csv or .json)")
    parser.add_argument("--tolerance", default="0.01", help="rounding tolerance for amounts (default 0.01)")
    parser.add_argument("--findings-csv", help="also write findings to this CSV file")
    parser.add_argument("--format", choices=["markdown", "json"], default="markdown", help="stdout format")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        tolerance = Decimal(args.tolerance)
    except InvalidOperation:
        parser.error(f"--tolerance {args.tolerance!r} is not a number")
    try:
        findings, summary = reconcile(load_rows(Path(args.invoices), "invoices"),
                                      load_rows(Path(args.contracts), "contracts"),
                                      load_rows(Path(args.payments), "payments"), tolerance)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.findings_csv:
        with Path(args.findings_csv).open("w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(Finding.__dataclass_fields__))
            writer.writeheader()
            writer.writerows(asdict(f) for f in findings)
    if args.format == "json":
        print(json.dumps({"summary": summary, "findings": [asdict(f) for f in findings]}, indent=2))
    else:
        sys.stdout.write(render_markdown(findings, summary))
    return EXIT_FINDINGS if findings else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
