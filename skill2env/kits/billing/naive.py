"""Naive baseline for the billing kit: the obvious reconciliation, blind to the designed anomalies.

It reads the contract's rate table (the first rate it sees for a role, ignoring annexes, amendments and
notices), the invoices through the documented extraction tool when there is one (skipping any file
the tool fails on), trusts the printed subtotals, caps hours per day in invoice line order, treats a
receipt as present when a receipt file is named after it or a text receipt shows its number (never
reading scans or comparing amounts), drops only re-claims of the same receipt and amount, applies
credit notes in file order, and counts only payments whose reference is exactly an invoice id.
"""

from __future__ import annotations

import re
import subprocess
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime


def q2(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def invoice_text(path: Path) -> str:
    tool = rt.workspace() / "tools" / "extract_invoice.sh"
    if tool.exists():
        done = subprocess.run(
            ["bash", str(tool), rt.rel(path)], capture_output=True, text=True, check=False, cwd=rt.workspace()
        )
        return done.stdout if done.returncode == 0 else ""
    return rt.pdf_text(path)


def staff_mapping(codes: set[str]) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for path in rt.files("**/*"):
        if path.suffix not in (".md", ".csv"):
            continue
        lines = rt.read_text(path).splitlines()
        header = lines[0].lower() if lines else ""
        if "staff" not in path.name and not ("staff" in header and "role" in header):
            continue
        for line in lines:
            cells = [c.strip() for c in re.split(r"[|,]", line.strip().strip("|"))]
            if len(cells) == 2 and cells[1] in codes:
                mapping[cells[0]] = cells[1]
    return mapping


def known_receipts() -> set[str]:
    files = rt.files("receipts/*")
    named = {p.stem for p in files if p.stem.startswith("R-")}
    if named:
        return named
    found = set()
    for path in files:
        if path.suffix == ".pdf":
            found.update(re.findall(r"Receipt No\.: (R-\d+)", rt.pdf_text(path)))
    return found


def main() -> None:
    contract = rt.docx_text((rt.workspace() / "contract.docx").read_bytes())
    rates = {code: Decimal(rate) for code, rate in re.findall(r"^([A-Z]{2}) \| .+? \| (\d+\.\d{2})$", contract, re.M)}
    scope = re.search(r"project (PRJ-\d+)", contract).group(1)  # type: ignore[union-attr]
    cap = Decimal(re.search(r"capped at ([\d.]+) hours", contract).group(1))  # type: ignore[union-attr]
    uplift = Decimal(re.search(r"billed at (\d+)%", contract).group(1)) / 100  # type: ignore[union-attr]
    mapping = staff_mapping(set(rates))
    corrected: dict[tuple[str, str], Decimal] = {}
    for path in rt.files("corrections/*.md"):
        for invoice, line, hours in re.findall(
            r"Invoice (INV-\S+), line (\d+): billable hours are corrected to "
            r"([\d.]+)",
            rt.read_text(path),
        ):
            corrected[(invoice, line)] = Decimal(hours)
    lines: list[dict[str, Any]] = []
    subtotals: dict[str, Decimal] = {}
    printed: dict[str, Decimal] = {}
    for path in rt.files("invoices/*.pdf"):
        text = invoice_text(path)
        head = re.search(r"INVOICE (INV-\d{4}-\d{4})", text)
        if not head:
            continue
        figures = {
            k: Decimal(v) for k, v in re.findall(r"(Labour subtotal|Expenses subtotal|Total due): ([-\d.]+)", text)
        }
        subtotals[head.group(1)] = figures["Labour subtotal"] + figures["Expenses subtotal"]
        printed[head.group(1)] = figures["Total due"]
        header = None
        for raw in text.splitlines():
            cells = [c.strip() for c in raw.split("|")]
            if cells[0] == "No":
                header = cells
            elif header and cells[0].isdigit() and len(cells) == len(header):
                lines.append({"invoice": head.group(1), **dict(zip(header, cells, strict=True))})
    receipts = known_receipts()
    seen: set[tuple[str, str]] = set()
    per_day: dict[tuple[str, str], Decimal] = {}
    for line in lines:
        amount = Decimal(line["Amount"])
        line["status"], line["approved"] = "ok", amount
        if "Project" in line and line["Project"] != scope:
            line["status"], line["approved"] = "out_of_scope", Decimal(0)
        elif line["Staff"] == "-":
            number = re.search(r"\(receipt (\S+)\)", line["Description"]).group(1)  # type: ignore[union-attr]
            if (number, line["Amount"]) in seen:
                line["status"], line["approved"] = "duplicate", Decimal(0)
            elif number not in receipts:
                line["status"], line["approved"] = "no_receipt", Decimal(0)
            seen.add((number, line["Amount"]))
        else:
            code = line.get("Role") or mapping.get(line["Staff"]) or next(iter(rates))
            rate = q2(rates[code] * uplift) if line["Description"].startswith("On-site") else rates[code]
            hours = corrected.get((line["invoice"], line["No"]), Decimal(line["Qty"]))
            used = per_day.get((line["Staff"], line["Date"]), Decimal(0))
            hours = max(Decimal(0), min(hours, cap - used))
            per_day[(line["Staff"], line["Date"])] = used + hours
            line["approved"] = q2(hours * rate)
            line["status"] = "ok" if line["approved"] == amount else "adjusted"
    rt.write_csv(
        "reconciliation.csv",
        ["invoice", "line", "date", "description", "billed_amount", "approved_amount", "status"],
        [
            [x["invoice"], x["No"], x["Date"], x["Description"], x["Amount"], rt.money(x["approved"]), x["status"]]
            for x in lines
        ],
    )
    paid = dict.fromkeys(printed, Decimal(0))
    for sheet in rt.xlsx_sheets(rt.workspace() / "payments_ledger.xlsx")[:1]:
        for row in sheet["rows"][1:]:
            if row and str(row[1]) in paid:
                paid[str(row[1])] += q2(Decimal(str(row[3])))
    approved = {i: sum((x["approved"] for x in lines if x["invoice"] == i), Decimal(0)) for i in printed}
    excluded = [
        f"{x['invoice']}/{x['No']}" for x in lines if x["status"] in ("out_of_scope", "duplicate", "no_receipt")
    ]
    errors = [i for i in printed if printed[i] != subtotals[i]]
    summary = {
        "invoices": {
            i: {
                "claimed": float(subtotals[i]),
                "approved": float(approved[i]),
                "paid": float(paid[i]),
                "balance": float(approved[i] - paid[i]),
            }
            for i in printed
        },
        "totals": {
            "claimed": float(sum(subtotals.values())),
            "approved": float(sum(approved.values())),
            "paid": float(sum(paid.values())),
            "balance_due": float(sum(approved.values()) - sum(paid.values())),
        },
        "excluded_lines": excluded,
        "arithmetic_errors": errors,
        "line_counts": {
            "total": len(lines),
            "excluded": len(excluded),
            "adjusted": sum(x["status"] == "adjusted" for x in lines),
        },
    }
    rt.write_json("summary.json", summary)
    balance = sum(approved.values()) - sum(paid.values())
    changed = [f"{invoice}/{line}" for invoice, line in corrected]
    note = [
        f"Balance due: {rt.money(balance)}",
        f"Lines excluded: {len(excluded)}",
        "",
        *(f"- {key}" for key in [*excluded, *errors, *changed]),
    ]
    rt.write_text("audit_note.md", "\n".join(note) + "\n")


if __name__ == "__main__":
    main()
