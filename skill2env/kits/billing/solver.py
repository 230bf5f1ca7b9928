"""Reference solver for the billing kit.

It reads every workspace document the way an agent must (DOCX XML, pdftotext, OCR for scans and
images, the XLSX ledger), applies the rules the documents state, and writes the three deliverables.
It never sees the world the files were rendered from.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime

CENT = Decimal("0.01")
TOLERANCE = Decimal("0.05")
CODE = r"[A-Z]{2}"
DAY = r"\d{4}-\d{2}-\d{2}"


def q2(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def dec(text: str) -> Decimal:
    return Decimal(re.sub(r"[^0-9.\-]", "", text.replace(",", "")))


def spaced(pattern: str) -> re.Pattern[str]:
    """A regex whose spaces match any whitespace run (documents wrap lines)."""
    return re.compile(pattern.replace(" ", r"\s+"), re.S)


def read_documents() -> dict[str, str]:
    texts = {}
    for path in rt.files():
        name = rt.rel(path)
        if name.startswith("tools/") or path.suffix.lower() in (".xlsx", ".sh"):
            continue
        texts[name] = rt.document_text(path)
    return texts


class Terms:
    """Rates, caps and precedence, as the contract and the documents changing it state them."""

    def __init__(self, texts: dict[str, str]) -> None:
        contract = next(t for t in texts.values() if "SERVICES AGREEMENT" in t)
        everything = "\n".join(texts.values())
        self.scope = spaced(r"Only work for project (PRJ-\d+) is billable").search(contract).group(1)  # type: ignore[union-attr]
        self.rates: dict[str, Decimal] = {}
        self.titles: dict[str, str] = {}
        for code, title, rate in re.findall(rf"^\s*({CODE}) \| (.+?) \| (\d+\.\d{{2}})\s*$", contract, re.M):
            self.rates[code], self.titles[title.strip()] = Decimal(rate), code
        self.annex: dict[str, Decimal] = {}
        for text in texts.values():
            if "Rate annex" in text:
                for code, _, rate in re.findall(rf"^\s*({CODE}) \| (.+?) \| (\d+\.\d{{2}})\s*$", text, re.M):
                    self.annex[code] = Decimal(rate)
        self.annex_prevails = "the rate annex prevails" in re.sub(r"\s+", " ", everything.lower())
        self.daily_cap = dec(spaced(r"capped at ([\d.]+) hours per person per day").search(contract).group(1))  # type: ignore[union-attr]
        uplift = spaced(r"On-site work is billed at (\d+)% of the hourly rate").search(contract)
        self.onsite = Decimal(uplift.group(1)) / 100 if uplift else Decimal(1)
        weekly = spaced(r"hours above ([\d.]+) per person per calendar week").search(contract)
        self.weekly_cap = dec(weekly.group(1)) if weekly else None
        self.changes: list[tuple[date, str, Decimal]] = []
        sentence = spaced(rf"the hourly rate for (.+?) \(({CODE})\) is ([\d.]+) EUR with effect from ({DAY})")
        for text in texts.values():
            if "DRAFT" in text:
                continue  # unsigned drafts have no effect
            for _, code, rate, effective in sentence.findall(text):
                self.changes.append((date.fromisoformat(effective), code, Decimal(rate)))
        self.changes.sort()

    def rate(self, code: str, day: date) -> Decimal:
        rate = self.annex[code] if self.annex_prevails and code in self.annex else self.rates[code]
        for effective, changed, new in self.changes:
            if changed == code and effective <= day:
                rate = new
        return rate


def staff_roles(texts: dict[str, str], staff: set[str], codes: set[str]) -> dict[str, str]:
    """Staff → role code from any table in the workspace that pairs a known name with a role code."""
    found: dict[str, str] = {}
    rows: list[list[str]] = []
    for text in texts.values():
        rows += [[c.strip() for c in re.split(r"[|,]", line)] for line in text.splitlines()]
    for path in rt.files("**/*.xlsx"):
        for sheet in rt.xlsx_sheets(path):
            rows += [[str(v).strip() for v in row if v is not None] for row in sheet["rows"]]
    for cells in rows:
        names = [c for c in cells if c in staff]
        roles = [c for c in cells if c in codes]
        if len(names) == 1 and len(roles) == 1:
            found[names[0]] = roles[0]
    return found


def role_changes(texts: dict[str, str]) -> list[tuple[date, str, str]]:
    pattern = spaced(rf"from ({DAY}), (.+?) bills as (.+?) \(({CODE})\)")
    return sorted(
        (date.fromisoformat(d), name.strip(), code) for t in texts.values() for d, name, _, code in pattern.findall(t)
    )


def parse_invoices(texts: dict[str, str]) -> list[dict[str, Any]]:
    invoices = []
    for text in texts.values():
        head = re.search(r"INVOICE (INV-\d{4}-\d{4})", text)
        if not head:
            continue
        rows, header = [], None
        for line in text.splitlines():
            if " | " not in line:
                continue
            cells = [c.strip() for c in re.split(r"\s*\|\s*", line.strip())]
            if cells[0] == "No":
                header = cells
            elif header and cells[0].isdigit() and len(cells) == len(header):
                rows.append(dict(zip(header, cells, strict=True)))
        total = dec(re.search(r"Total due:\s*([-\d.,]+)", text).group(1))  # type: ignore[union-attr]
        issued = re.search(rf"Issued:\s*({DAY})", text).group(1)  # type: ignore[union-attr]
        invoices.append({"id": head.group(1), "issued": issued, "rows": rows, "printed_total": total})
    return sorted(invoices, key=lambda inv: (inv["issued"], inv["id"]))


def parse_receipts(texts: dict[str, str]) -> dict[str, dict[str, Any]]:
    receipts: dict[str, dict[str, Any]] = {}
    for text in texts.values():
        if not re.search(r"(?m)^\s*RECEIPT\s*$", text):
            continue
        for chunk in re.split(r"(?m)^\s*RECEIPT\s*$", text)[1:]:
            number = re.search(r"Receipt\s*No\.?\s*:?\s*(R-?\s?\d{4})(?!\d)", chunk)
            day = re.search(rf"Date\s*:?\s*({DAY})", chunk)
            project = re.search(r"Project\s*:?\s*\S*?(\d{4}(?:-[A-Z]+)?)\b", chunk)
            amount = re.search(r"Amount\s*:?\s*EUR\s*(\d[\d,]*\.\d{2})(?!\d)", chunk)
            if number and day and project and amount:
                receipts[normal(number.group(1))] = {
                    "date": day.group(1),
                    "project": "PRJ-" + project.group(1),
                    "amount": dec(amount.group(1)),
                }
    return receipts


def normal(number: str) -> str:
    return "".join(ch for ch in number.upper() if ch.isalnum())


def credit_notes(texts: dict[str, str]) -> dict[tuple[str, int], Decimal]:
    notes = []
    for text in texts.values():
        head = re.search(r"Credit note (CN-\d+)", text)
        if not head:
            continue
        issued = re.search(rf"Issued ({DAY})", text)
        replaces = re.search(r"replaces credit note (CN-\d+)", text) or re.search(
            r"Credit note (CN-\d+) is withdrawn", text
        )
        fixes = spaced(r"Invoice (INV-\d{4}-\d{4}), line (\d+): billable hours are corrected to ([\d.]+)").findall(text)
        notes.append((issued.group(1) if issued else "", head.group(1), replaces.group(1) if replaces else "", fixes))
    superseded = {replaced for _, _, replaced, _ in notes if replaced}
    hours: dict[tuple[str, int], Decimal] = {}
    for _, note, _, fixes in sorted(notes):
        if note not in superseded:
            for invoice, line, value in fixes:
                hours[(invoice, int(line))] = Decimal(value)
    return hours


def payments(printed: dict[str, Decimal]) -> dict[str, Decimal]:
    paid = {invoice: Decimal(0) for invoice in printed}
    rows = []
    for path in rt.files("**/*.xlsx"):
        for sheet in rt.xlsx_sheets(path):
            if sheet["name"] == "Payments" or (sheet["rows"] and list(sheet["rows"][0][:2]) == ["Date", "Reference"]):
                rows += [r for r in sheet["rows"][1:] if r and r[0]]
    by_bank: dict[str, dict[str, Decimal]] = {}
    for _day, reference, bank, amount, *_ in sorted(rows, key=lambda r: str(r[0])):
        reference, value = str(reference), q2(Decimal(str(amount)))
        returned = re.search(r"Returned payment (BT-\d+)", reference)
        if returned:
            for invoice, share in by_bank.get(returned.group(1), {}).items():
                paid[invoice] -= share
            continue
        named = [i for i in re.findall(r"INV-\d{4}-\d{4}", reference) if i in paid]
        left, shares = value, {}
        for position, invoice in enumerate(named):
            last = position == len(named) - 1
            share = left if last else min(left, max(Decimal(0), printed[invoice] - paid[invoice]))
            paid[invoice] += share
            shares[invoice] = share
            left -= share
        by_bank[str(bank)] = shares
    return paid


def main() -> None:
    texts = read_documents()
    terms = Terms(texts)
    invoices = parse_invoices(texts)
    lines = []
    for invoice in invoices:
        for row in invoice["rows"]:
            lines.append(
                {
                    "invoice": invoice["id"],
                    "row": row,
                    "number": int(row["No"]),
                    "date": date.fromisoformat(row["Date"]),
                    "amount": dec(row["Amount"]),
                    "qty": dec(row["Qty"]),
                    "staff": row["Staff"],
                }
            )
    staff = {line["staff"] for line in lines if line["staff"] != "-"}
    mapping = staff_roles(texts, staff, set(terms.rates))
    changes = role_changes(texts)
    orders: dict[str, str] = {}
    for path in rt.files("**/*.csv"):
        for row in rt.read_text(path).splitlines()[1:]:
            cells = row.split(",")
            if len(cells) >= 2 and cells[0].startswith("WO-"):
                orders[cells[0]] = cells[1]

    def in_scope(line: dict[str, Any]) -> bool:
        row = line["row"]
        project = row["Project"] if "Project" in row else orders.get(row.get("WO", ""), "")
        return project == terms.scope

    def role(line: dict[str, Any]) -> str:
        if "Role" in line["row"]:
            return line["row"]["Role"]
        code = mapping[line["staff"]]
        for effective, name, new in changes:
            if name == line["staff"] and line["date"] >= effective:
                code = new
        return code

    corrected = credit_notes(texts)
    labour = [x for x in lines if x["staff"] != "-" and in_scope(x)]
    for line in labour:
        times = re.search(r"\((\d{2}:\d{2})-(\d{2}:\d{2})\)$", line["row"]["Description"])
        line["start"] = times.group(1) if times else ""
    approved_hours: dict[tuple[str, int], Decimal] = {}
    chronological = sorted(labour, key=lambda x: (x["date"], x["start"], x["invoice"], x["number"]))
    per_day: dict[tuple[str, date], Decimal] = {}
    for line in chronological:
        key = (line["invoice"], line["number"])
        spent = per_day.get((line["staff"], line["date"]), Decimal(0))
        approved_hours[key] = max(Decimal(0), min(corrected.get(key, line["qty"]), terms.daily_cap - spent))
        per_day[(line["staff"], line["date"])] = spent + approved_hours[key]
    if terms.weekly_cap is not None:  # the weekly limit applies after the daily cap
        per_week: dict[tuple[str, int], Decimal] = {}
        for line in chronological:
            key, week = (line["invoice"], line["number"]), (line["staff"], line["date"].isocalendar()[1])
            spent = per_week.get(week, Decimal(0))
            approved_hours[key] = max(Decimal(0), min(approved_hours[key], terms.weekly_cap - spent))
            per_week[week] = spent + approved_hours[key]
    receipts = parse_receipts(texts)
    seen: set[str] = set()
    for line in lines:
        if not in_scope(line):
            line["approved"], line["status"] = Decimal(0), "out_of_scope"
            continue
        if line["staff"] == "-":
            number = normal(re.search(r"\(receipt ([A-Z0-9-]+)\)", line["row"]["Description"]).group(1))  # type: ignore[union-attr]
            if number in seen:
                line["approved"], line["status"] = Decimal(0), "duplicate"
                continue
            seen.add(number)
            receipt = receipts.get(number)
            if not receipt or receipt["date"] != line["row"]["Date"] or receipt["project"] != terms.scope:
                line["approved"], line["status"] = Decimal(0), "no_receipt"
                continue
            line["approved"] = min(receipt["amount"], line["amount"])
        else:
            rate = terms.rate(role(line), line["date"])
            if line["row"]["Description"].startswith("On-site"):
                rate = q2(rate * terms.onsite)
            line["approved"] = q2(approved_hours[(line["invoice"], line["number"])] * rate)
        line["status"] = "ok" if line["approved"] == line["amount"] else "adjusted"
    rt.write_csv(
        "reconciliation.csv",
        ["invoice", "line", "date", "description", "billed_amount", "approved_amount", "status"],
        [
            [
                x["invoice"],
                x["number"],
                x["row"]["Date"],
                x["row"]["Description"],
                rt.money(x["amount"]),
                rt.money(x["approved"]),
                x["status"],
            ]
            for x in lines
        ],
    )
    if rt.partial_mode():
        return
    printed = {inv["id"]: inv["printed_total"] for inv in invoices}
    paid = payments(printed)
    summary: dict[str, Any] = {"invoices": {}}
    for invoice in invoices:
        mine = [x for x in lines if x["invoice"] == invoice["id"]]
        claimed = sum((x["amount"] for x in mine), Decimal(0))
        approved = sum((x["approved"] for x in mine), Decimal(0))
        summary["invoices"][invoice["id"]] = {
            "claimed": float(claimed),
            "approved": float(approved),
            "paid": float(paid[invoice["id"]]),
            "balance": float(approved - paid[invoice["id"]]),
        }
    claimed = sum((x["amount"] for x in lines), Decimal(0))
    approved = sum((x["approved"] for x in lines), Decimal(0))
    paid_total = sum(paid.values(), Decimal(0))
    summary["totals"] = {
        "claimed": float(claimed),
        "approved": float(approved),
        "paid": float(paid_total),
        "balance_due": float(approved - paid_total),
    }
    excluded = [
        f"{x['invoice']}/{x['number']}" for x in lines if x["status"] in ("out_of_scope", "duplicate", "no_receipt")
    ]
    errors = [
        inv["id"]
        for inv in invoices
        if abs(inv["printed_total"] - sum((x["amount"] for x in lines if x["invoice"] == inv["id"]), Decimal(0)))
        >= TOLERANCE
    ]
    summary["excluded_lines"] = excluded
    summary["arithmetic_errors"] = errors
    summary["line_counts"] = {
        "total": len(lines),
        "excluded": len(excluded),
        "adjusted": sum(x["status"] == "adjusted" for x in lines),
    }
    rt.write_json("summary.json", summary)
    changed = sorted({f"{inv}/{line}" for inv, line in corrected})
    note = [
        f"# Audit note: {terms.scope}",
        "",
        f"Balance due: {rt.money(approved - paid_total)}",
        f"Lines excluded: {len(excluded)}",
        "",
        "## Excluded lines",
        "",
    ]
    status = {f"{x['invoice']}/{x['number']}": x["status"] for x in lines}
    note += [f"- {key}: {status[key]}" for key in excluded]
    note += [
        "",
        "## Arithmetic errors",
        "",
        *(f"- {i}" for i in errors),
        "",
        "## Credit notes applied",
        "",
        *(f"- {key}" for key in changed),
    ]
    rt.write_text("audit_note.md", "\n".join(note) + "\n")


if __name__ == "__main__":
    main()
