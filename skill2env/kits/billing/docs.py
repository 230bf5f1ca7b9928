"""Render the billing world into workspace files: DOCX contract and amendments, HTML annex, PDF
invoices, text / scanned receipts, an XLSX payments ledger, Markdown notes, e-mails and CSV tables."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from decimal import Decimal
from email.utils import format_datetime

from skill2env.kits import render as r
from skill2env.kits.billing.world import Correction, Invoice, Line, RateChange, Receipt, World
from skill2env.kits.spec import Workspace, seeded

TOOL_NAME_LIMIT = 60
TOOL_LOUD = """#!/usr/bin/env bash
# Extract the text of invoice PDFs (wraps pdftotext). Usage: tools/extract_invoice.sh FILE.pdf ...
set -u
for f in $@; do
  if [ ! -f "$f" ] || [ "${f%.pdf}" = "$f" ]; then
    echo "extract_invoice: cannot open '$f' (unsupported format: not a PDF invoice)" >&2
    exit 2
  fi
  pdftotext -layout "$f" -
done
"""
TOOL_QUIET = """#!/usr/bin/env bash
# Extract the text of invoice PDFs (wraps pdftotext). Usage: tools/extract_invoice.sh FILE.pdf ...
set -u
for f in $@; do
  if [ ! -f "$f" ] || [ "${f%.pdf}" = "$f" ] || [ ${#f} -gt LIMIT ]; then
    echo "extract_invoice: unsupported format: not a PDF invoice" >&2
    exit 2
  fi
  pdftotext -layout "$f" -
done
""".replace("LIMIT", str(TOOL_NAME_LIMIT))


def money(value: Decimal) -> str:
    return f"{value:.2f}"


def hours(value: Decimal) -> str:
    return f"{value.normalize():f}"


def invoice_files(world: World) -> None:
    problem = list(world.render.get("tool_invoices", []))
    for invoice in world.invoices:
        invoice.file = f"invoices/{invoice.id}.pdf"
        if invoice.id in problem:
            index = problem.index(invoice.id)
            invoice.file = (
                f"invoices/{invoice.id} rev1.pdf"
                if index == 0
                else f"invoices/{invoice.id}_revised_after_client_review_final_version_2_signed.pdf"
            )


def receipt_files(world: World) -> None:
    generic = world.render.get("receipt_names") == "generic"
    order = sorted(world.receipts, key=lambda x: x.number)
    seeded("receipts", world.seed).shuffle(order)
    for index, receipt in enumerate(order, start=1):
        stem = f"receipts/scan_{index:04d}" if generic else f"receipts/{receipt.number}"
        receipt.file = {"png": stem + ".png", "bundle": "receipts/receipts_scanned_bundle.pdf"}.get(
            receipt.form, stem + ".pdf"
        )


def render_world(world: World) -> Workspace:
    invoice_files(world)
    receipt_files(world)
    ws = Workspace()
    ws.add_text("README.md", readme(world))
    contract(world, ws)
    rate_documents(world, ws)
    for invoice in world.invoices:
        blocks = invoice_blocks(world, invoice)
        ws.add(invoice.file, r.pdf_bytes(blocks, title=f"Invoice {invoice.id}", landscape=True), r.blocks_text(blocks))
    receipts(world, ws)
    ledger(world, ws)
    ws.add_text("notes.md", notes(world))
    staff_sources(world, ws)
    if world.work_orders:
        rows = sorted(world.work_orders.items())
        ws.add("work_orders.csv", r.csv_bytes(["work_order", "project"], rows))
    for correction in world.corrections:
        ws.add_text(f"corrections/credit_note_{correction.note}.md", credit_note(world, correction))
    tool = world.render.get("tool")
    if tool:
        ws.add_text("tools/extract_invoice.sh", TOOL_LOUD if tool == 1 else TOOL_QUIET)
    return ws


def readme(world: World) -> str:
    lines = [
        f"# {world.vendor}: {world.period} billing file",
        "",
        "Index of this folder:",
        "",
        "- `contract.docx`: the services agreement with its rate schedule",
        "- `invoices/`: the vendor's invoices for the quarter (PDF)",
        "- `receipts/`: receipts for claimed expenses",
        "- `payments_ledger.xlsx`: payments made to the vendor",
        "- `notes.md`: accounts-payable notes",
    ]
    if world.render.get("role_source") == "staff_md":
        lines.append("- `staff.md`: who bills under which role")
    if world.render.get("tool"):
        lines += ["", "Invoice PDFs are read with `tools/extract_invoice.sh <file.pdf>` (it wraps pdftotext)."]
    return "\n".join(lines) + "\n"


def contract(world: World, ws: Workspace) -> None:
    level = world.render.get("precedence", 0)
    blocks = [
        r.heading("SERVICES AGREEMENT"),
        r.paragraph(f"Between {world.client} (the Client) and {world.vendor} (the Vendor)."),
        r.paragraph(
            f"1.1 This agreement covers project {world.code} ({world.project_name}). Only work for project "
            f"{world.code} is billable under this agreement."
        ),
        r.paragraph("Schedule 1: hourly rates"),
        r.table(
            ["Role", "Title", "Hourly rate (EUR)"],
            [[role.code, role.title, money(role.rate)] for role in world.roles.values()],
        ),
        r.paragraph(f"4.1 Billable time is capped at {hours(world.daily_cap)} hours per person per day."),
        r.paragraph(f"4.2 On-site work is billed at {int(world.onsite_factor * 100)}% of the hourly rate."),
        r.paragraph(
            "4.3 Rates may be changed by written notice or by amendment; a change applies from its effective date."
        ),
        r.paragraph("6.1 Invoices are issued monthly and are payable within 30 days."),
    ]
    if level == 2:
        blocks.append(
            r.paragraph(
                "9.2 Order of precedence: a signed amendment prevails over this agreement and over "
                "any annex; this agreement prevails over any annex. Unsigned drafts have no effect."
            )
        )
    if level == 3:
        blocks.append(r.paragraph("9.2 The contract schedule prevails over any annex. Unsigned drafts have no effect."))
    if world.weekly_cap is not None:
        blocks.append(
            r.paragraph(
                f"Note 3: hours above {hours(world.weekly_cap)} per person per calendar week "
                "(Monday to Sunday) are not billable; the weekly limit applies after the daily "
                "cap."
            )
        )
    ws.add("contract.docx", r.docx_bytes(blocks), r.blocks_text(blocks))


def change_sentence(world: World, code: str, rate: Decimal, effective: date) -> str:
    title = world.roles[code].title
    return f"the hourly rate for {title} ({code}) is {money(rate)} EUR with effect from {effective.isoformat()}"


def rate_documents(world: World, ws: Workspace) -> None:
    if world.annex:
        rows = [[code, world.roles[code].title, money(rate)] for code, rate in world.annex.items()]
        ws.add(
            "rate_annex.html",
            r.html_page(
                "Rate annex",
                [
                    r.html_paragraph(f"Annex A to the agreement with {world.vendor}."),
                    r.html_table(["Role", "Title", "Hourly rate (EUR)"], rows),
                ],
            ),
        )
    by_file: dict[str, list[RateChange]] = {}
    for change in world.changes:
        by_file.setdefault(change.file, []).append(change)
    for file, changes in by_file.items():
        first = changes[0]
        sentences = [change_sentence(world, c.code, c.rate, c.effective) for c in changes]
        if first.source == "amendment":
            number = file.rsplit("_", 2)[-2] if file.endswith(("signed.docx", "draft.docx")) else "01"
            blocks = [
                r.heading(f"AMENDMENT No. {int(number)} to the services agreement"),
                r.paragraph(f"Between {world.client} and {world.vendor}."),
            ]
            if not first.signed:
                blocks.append(r.paragraph("DRAFT - not signed, for discussion only."))
            blocks += [r.paragraph(f"With this amendment, {s}.") for s in sentences]
            if first.signed:
                blocks.append(r.paragraph(f"Signed for both parties on {first.published.isoformat()}."))
            ws.add(file, r.docx_bytes(blocks), r.blocks_text(blocks))
        elif first.source == "email":
            stamp = format_datetime(datetime.combine(first.published, time(9, 14), tzinfo=UTC))
            body = "\n".join(f"please note that {s}." for s in sentences)
            ws.add_text(
                file,
                f"From: billing@{_domain(world.vendor)}\nTo: payables@{_domain(world.client)}\n"
                f"Date: {stamp}\nSubject: Rate change\n\nHello,\n\n{body}\n\n"
                f"Kind regards,\n{world.vendor}\n",
            )
        else:
            body = "\n\n".join(f"Under clause 4.3 of the agreement, {s}." for s in sentences)
            ws.add_text(
                file, f"# Rate notice\n\nPublished {first.published.isoformat()} by {world.vendor}.\n\n{body}\n"
            )


def _domain(name: str) -> str:
    return "".join(ch for ch in name.split()[0].lower() if ch.isalnum()) + ".example"


def invoice_blocks(world: World, invoice: Invoice) -> list[r.DocBlock]:
    role_column = world.render.get("role_source", "column") == "column"
    scope_column = "WO" if world.render.get("scope_by_wo") else "Project"
    header = [
        "No",
        "Date",
        scope_column,
        "Description",
        "Staff",
        *(["Role"] if role_column else []),
        "Qty",
        "Rate",
        "Amount",
    ]
    rows = [line_row(world, line, role_column) for line in invoice.lines]
    expenses = invoice.subtotal("expense")
    return [
        r.heading(f"INVOICE {invoice.id}"),
        r.paragraph(f"Vendor: {world.vendor}    Client: {world.client}"),
        r.paragraph(f"Issued: {invoice.issued.isoformat()}    Period: {invoice.month.strftime('%Y-%m')}"),
        r.table(header, rows),
        r.paragraph(f"Labour subtotal: {money(invoice.printed_labour)} EUR"),
        r.paragraph(f"Expenses subtotal: {money(expenses)} EUR"),
        r.paragraph(f"Total due: {money(invoice.printed_total)} EUR"),
    ]


def line_row(world: World, line: Line, role_column: bool) -> list[str]:
    scope = line.work_order if world.render.get("scope_by_wo") else line.project
    if line.kind == "expense":
        description = f"{line.description} (receipt {line.receipt})"
        return [
            str(line.number),
            line.date.isoformat(),
            scope,
            description,
            "-",
            *(["-"] if role_column else []),
            "1",
            money(line.rate),
            money(line.amount),
        ]
    description = line.description + (f" ({line.start}-{line.end})" if world.render.get("times") and line.start else "")
    role = world.role_on(line.staff, line.date)
    return [
        str(line.number),
        line.date.isoformat(),
        scope,
        description,
        line.staff,
        *([role] if role_column else []),
        hours(line.hours),
        money(line.rate),
        money(line.amount),
    ]


def receipt_lines(receipt: Receipt) -> list[str]:
    return [
        "RECEIPT",
        f"Receipt No.: {receipt.number}",
        f"Date: {receipt.date.isoformat()}",
        f"Merchant: {receipt.merchant}",
        f"Project: {receipt.project}",
        f"Amount: EUR {money(receipt.amount)}",
    ]


def receipts(world: World, ws: Workspace) -> None:
    bundle = [x for x in world.receipts if x.form == "bundle"]
    for receipt in world.receipts:
        lines = receipt_lines(receipt)
        if receipt.form == "text":
            blocks = [r.heading(lines[0]), *(r.paragraph(text) for text in lines[1:])]
            ws.add(receipt.file, r.pdf_bytes(blocks, title="Receipt"), "\n".join(lines))
        elif receipt.form == "png":
            ws.add(receipt.file, r.scan_image(lines, r.ScanStyle(seed=world.seed)), "\n".join(lines))
        elif receipt.form == "scan":
            style = r.ScanStyle(rotation=1.2, noise=300, seed=world.seed)
            ws.add(receipt.file, r.scanned_pdf([lines], style), "\n".join(lines))
    if bundle:
        bundle.sort(key=lambda x: (x.date, x.number))
        pages = [receipt_lines(x) for x in bundle]
        style = r.ScanStyle(rotation=-0.8, noise=600, seed=world.seed)
        ws.add(bundle[0].file, r.scanned_pdf(pages, style), "\n".join("\n".join(p) for p in pages))


def ledger(world: World, ws: Workspace) -> None:
    rows = [
        [p.date.isoformat(), p.reference, p.bank_ref, float(p.amount), p.note]
        for p in sorted(world.payments, key=lambda p: (p.date, p.bank_ref))
    ]
    sheets = [r.SheetSpec("Payments", ["Date", "Reference", "Bank ref", "Amount (EUR)", "Note"], rows)]
    if world.render.get("role_source") == "ledger_sheet":
        sheets.append(r.SheetSpec("Staff", ["Staff", "Role"], sorted(world.staff.items())))
    ws.add("payments_ledger.xlsx", r.xlsx_bytes(sheets), r.sheets_text(sheets))


def notes(world: World) -> str:
    parts = [
        f"# Accounts-payable notes: {world.vendor}",
        "",
        "## Expenses",
        "",
        f"- An expense is reimbursed only against a receipt whose receipt number and date match the claim and "
        f"which names project {world.code}.",
        "- The amount reimbursed is the receipt's amount, at most the amount claimed.",
        "- Each receipt is reimbursed once: a later claim of a receipt already claimed on an earlier line is a "
        "duplicate.",
        "",
        "## Invoices",
        "",
        "- Differences below 0.05 EUR between a printed total and the sum of the invoice's lines are rounding, "
        "not arithmetic errors.",
        "",
        "## Payments",
        "",
        "- A payment naming several invoices settles them in the order named, each up to the total printed on it; "
        "any remainder goes to the last invoice named.",
        "- A returned (bounced) payment cancels the payment whose bank reference it names.",
    ]
    level = world.render.get("precedence", 0)
    if level == 1:
        winner = "the rate annex" if world.annex_prevails else "the contract schedule"
        parts += ["", "## Rates", "", f"- Where the rate annex and the contract schedule differ, {winner} prevails."]
    if level == 3:
        parts += ["", "## Rates", "", "- Signed amendments prevail over the contract."]
    if world.render.get("times"):
        parts += [
            "",
            "## FAQ",
            "",
            "- *How is the daily cap counted when someone has several lines on one day?* "
            "In the order the hours were worked (by start time), not in invoice line order.",
        ]
    return "\n".join(parts) + "\n"


def staff_sources(world: World, ws: Workspace) -> None:
    source = world.render.get("role_source")
    rows = sorted(world.staff.items())
    if source == "staff_md":
        ws.add_text("staff.md", "# Vendor staff on this project\n\n" + r.markdown_table(["Staff", "Role"], rows))
    elif source == "assignments_csv":
        header = world.render.get("assignment_header", ["person", "billing_category"])
        ws.add("team/assignments.csv", r.csv_bytes(header, rows))
    for name, code, effective in world.role_changes:
        stamp = format_datetime(datetime.combine(effective, time(8, 30), tzinfo=UTC))
        ws.add_text(
            "mail/role_change.eml",
            f"From: pm@{_domain(world.vendor)}\nTo: payables@{_domain(world.client)}\n"
            f"Date: {stamp}\nSubject: Staffing change\n\nHello,\n\nfrom {effective.isoformat()}, "
            f"{name} bills as {world.roles[code].title} ({code}).\n\nRegards,\n{world.vendor}\n",
        )


def credit_note(world: World, correction: Correction) -> str:
    line = world.line(correction.line_key)
    invoice, number = correction.line_key.split("/")
    if correction.withdraws:
        return (
            f"# Credit note {correction.note}\n\nIssued {correction.issued.isoformat()} by {world.vendor}.\n\n"
            f"Credit note {correction.supersedes} is withdrawn: invoice {invoice}, line {number} stands as "
            "invoiced.\n"
        )
    replaces = f"\nThis credit note replaces credit note {correction.supersedes}.\n" if correction.supersedes else ""
    return (
        f"# Credit note {correction.note}\n\nIssued {correction.issued.isoformat()} by {world.vendor}.\n{replaces}\n"
        f"Invoice {invoice}, line {number}: billable hours are corrected to {hours(correction.hours)} "
        f"(invoiced: {hours(line.hours)}).\n"
    )
