"""A hand-written task: quarterly vendor-billing reconciliation (the paper's Docling example, iteration 0).

Northwind Analytics bills Contoso monthly for consulting; the agent reconciles Q1 2024 from a
DOCX contract, an HTML rate annex, a CSV timesheet, three PDF invoices, an XLSX payment ledger,
Markdown notes and a JSON vendor record. Designed anomalies: an arithmetic error on INV-2024-032
(1,491.25 printed for 12.5 h × 118.50 = 1,481.25), travel claim TRV-0207 billed in February and
again in March, and a partial payment of INV-2024-033.

Numbers (EUR): rates 118.50 / 84.25; billed 2,870.00 + 3,225.65 + 3,187.90 = 9,283.55; expected
2,870.00 + 2,829.25 + 386.40 + 2,801.50 = 8,887.15; paid 2,870.00 + 3,225.65 + 2,000.00 = 8,095.65;
outstanding 791.50; over-billed 396.40.

Binary files are built with fixed timestamps, so the draft's bytes are the same on every run.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from skill2env.patterns.models import InformationLevel as Level
from skill2env.rubric.models import CheckSpec, Method, Rubric, RubricItem
from skill2env.tasks.authoring import Rejection
from skill2env.tasks.blueprint import (
    AcceptanceCriterion,
    Blueprint,
    Challenge,
    Deliverable,
    Derivation,
    Fact,
    SkillRef,
)
from skill2env.tasks.draft import TaskDraft

FIXED = datetime(2024, 1, 1, tzinfo=UTC)
DOMAIN = "office-documents"
AUTHOR = "offline:billing-kit"
SKILL = SkillRef(skill_id="sk-docling-7f3a", name="docling", path="office/docling", mount="/skills/docling")

# --- document builders (also used by the per-format leak tests) ---------------------------------


def stable_zip(data: bytes) -> bytes:
    """The same archive with every entry dated FIXED (openpyxl and python-docx stamp the current time)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            entry = zipfile.ZipInfo(info.filename, date_time=(2024, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            content = source.read(info.filename)
            if info.filename == "docProps/core.xml":  # openpyxl stamps `modified` with the time of saving
                content = re.sub(rb"(<dcterms:modified[^>]*>)[^<]*", rb"\g<1>2024-01-01T00:00:00Z", content)
            target.writestr(entry, content)
    return out.getvalue()


def pdf_bytes(lines: list[str]) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_creation_date(FIXED)
    pdf.set_producer("skill2env tests")
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for line in lines:
        pdf.cell(0, 7, line, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def xlsx_bytes(sheets: dict[str, list[list[object]]], hidden: frozenset[str] = frozenset()) -> bytes:
    import openpyxl

    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
        if title in hidden:
            sheet.sheet_state = "hidden"
    book.properties.created = book.properties.modified = FIXED.replace(tzinfo=None)
    buffer = io.BytesIO()
    book.save(buffer)
    return stable_zip(buffer.getvalue())


def docx_bytes(paragraphs: list[str], table: list[list[str]] | None = None) -> bytes:
    import docx

    document = docx.Document()
    for text in paragraphs:
        document.add_paragraph(text)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, text in enumerate(row):
                grid.cell(r, c).text = text
    document.core_properties.created = document.core_properties.modified = FIXED.replace(tzinfo=None)
    document.core_properties.last_printed = FIXED.replace(tzinfo=None)
    buffer = io.BytesIO()
    document.save(buffer)
    return stable_zip(buffer.getvalue())


# --- the workspace ------------------------------------------------------------------------------

RATE_ANNEX = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Annex A - Rates</title></head>
<body>
<h1>Annex A to agreement NW-2023-118: hourly rates</h1>
<p>Valid from 1 October 2023 until further notice. Amounts in EUR, excluding VAT (reverse charge).</p>
<table>
  <tr><th>Role</th><th>Rate per hour</th></tr>
  <tr><td>Senior consultant</td><td>118.50</td></tr>
  <tr><td>Analyst</td><td>84.25</td></tr>
</table>
</body></html>
"""

TIMESHEET = """month,role,consultant,hours
2024-01,Senior consultant,M. Okafor,10.0
2024-01,Analyst,J. Lindqvist,20.0
2024-02,Senior consultant,M. Okafor,12.5
2024-02,Analyst,J. Lindqvist,16.0
2024-03,Senior consultant,M. Okafor,8.0
2024-03,Analyst,J. Lindqvist,22.0
"""

NOTES = """# Project notes - Retail analytics (Northwind)

* Kick-off in January; the senior consultant works part-time on the engagement.
* **Hamburg workshop** on March 5, 2024 with the category managers.
* Travel claim `TRV-0207` (train and hotel for the workshop preparation), EUR 386.40, submitted once with
  the February invoice; receipt filed by finance.
* Finance asked us to check the Q1 invoices before the quarter closes.
"""

VENDOR = {
    "vendor_id": "V-10442",
    "name": "Northwind Analytics GmbH",
    "currency": "EUR",
    "payment_terms_days": 30,
    "contact": {"name": "Petra Vogel", "email": "billing@northwind.example"},
}

INVOICES = {
    "INV-2024-031": (
        "2024-02-05",
        "2024-01",
        [("Senior consultant", "10.0 h", "118.50", "1,185.00"), ("Analyst", "20.0 h", "84.25", "1,685.00")],
        "2,870.00",
    ),
    "INV-2024-032": (
        "2024-03-04",
        "2024-02",
        [
            ("Senior consultant", "12.5 h", "118.50", "1,491.25"),
            ("Analyst", "16.0 h", "84.25", "1,348.00"),
            ("Travel TRV-0207", "-", "-", "386.40"),
        ],
        "3,225.65",
    ),
    "INV-2024-033": (
        "2024-04-03",
        "2024-03",
        [
            ("Senior consultant", "8.0 h", "118.50", "948.00"),
            ("Analyst", "22.0 h", "84.25", "1,853.50"),
            ("Travel TRV-0207", "-", "-", "386.40"),
        ],
        "3,187.90",
    ),
}


def invoice_pdf(number: str) -> bytes:
    issued, period, lines, total = INVOICES[number]
    text = [
        "Northwind Analytics GmbH - Invoice",
        f"Invoice number: {number}",
        f"Invoice date: {issued}",
        f"Period: {period}",
        "Customer: Contoso Retail AG, agreement NW-2023-118",
        "Line | Description | Quantity | Rate | Amount (EUR)",
    ]
    text += [f"{i} | {d} | {q} | {r} | {a}" for i, (d, q, r, a) in enumerate(lines, start=1)]
    text += [f"Total due (EUR): {total}", "VAT: reverse charge"]
    return pdf_bytes(text)


@cache
def billing_workspace() -> dict[str, bytes]:
    contract = docx_bytes(
        [
            "Consulting Services Agreement NW-2023-118",
            "Between Contoso Retail AG (customer) and Northwind Analytics GmbH (vendor).",
            "1. Services are billed monthly in arrears at the hourly rates of Annex A (rate_annex.html).",
            "2. Each invoice lists the hours per role for its period, as recorded in the shared timesheet.",
            "3. Travel expenses are reimbursed at cost, once per claim, against a receipt.",
            "4. Payment is due within 30 days of the invoice date.",
        ]
    )
    payments = xlsx_bytes(
        {
            "Payments": [
                ["invoice", "paid_on", "amount", "reference"],
                ["INV-2024-031", datetime(2024, 2, 14), 2870.00, "SEPA-88121"],
                ["INV-2024-032", datetime(2024, 3, 15), 3225.65, "SEPA-88410"],
                ["INV-2024-033", datetime(2024, 4, 12), 2000.00, "SEPA-88795"],
            ]
        }
    )
    files = {
        "contract.docx": contract,
        "rate_annex.html": RATE_ANNEX.encode(),
        "timesheet.csv": TIMESHEET.encode(),
        "payments.xlsx": payments,
        "notes.md": NOTES.encode(),
        "vendor.json": (json.dumps(VENDOR, indent=2) + "\n").encode(),
    }
    files |= {f"invoices/{number}.pdf": invoice_pdf(number) for number in INVOICES}
    return dict(sorted(files.items()))


# --- the blueprint ------------------------------------------------------------------------------

DETAIL_COLUMNS = ["invoice", "line", "billed", "expected", "difference"]
DETAIL_ROWS = [
    ["INV-2024-031", 1, 1185.00, 1185.00, 0.00],
    ["INV-2024-031", 2, 1685.00, 1685.00, 0.00],
    ["INV-2024-032", 1, 1491.25, 1481.25, 10.00],
    ["INV-2024-032", 2, 1348.00, 1348.00, 0.00],
    ["INV-2024-032", 3, 386.40, 386.40, 0.00],
    ["INV-2024-033", 1, 948.00, 948.00, 0.00],
    ["INV-2024-033", 2, 1853.50, 1853.50, 0.00],
    ["INV-2024-033", 3, 386.40, 0.00, 386.40],
]
TOTALS = {"total_billed": 9283.55, "total_expected": 8887.15, "total_paid": 8095.65, "outstanding": 791.50}


def _fact(
    fact_id: str,
    level: Level,
    statement: str,
    value: object,
    location: str | None = None,
    derived_from: tuple[str, ...] = (),
) -> Fact:
    return Fact(
        id=fact_id,
        statement=statement,
        value=value,
        level=level,
        location=location,  # type: ignore[arg-type]
        derived_from=list(derived_from),
    )


FACTS = [
    _fact("quarter", Level.STATED, "The reconciliation covers the first quarter of 2024", "Q1 2024"),
    _fact("contract_number", Level.DISCOVERABLE, "The agreement's number", "NW-2023-118", "contract.docx"),
    _fact("rate_senior", Level.DISCOVERABLE, "Senior consultant hourly rate", "118.50", "rate_annex.html"),
    _fact("rate_analyst", Level.DISCOVERABLE, "Analyst hourly rate", "84.25", "rate_annex.html"),
    _fact("hours_feb_senior", Level.DISCOVERABLE, "Senior consultant hours in February", "12.5", "timesheet.csv"),
    _fact(
        "inv032_printed_senior",
        Level.DISCOVERABLE,
        "INV-2024-032 prints this senior line amount",
        "1,491.25",
        "invoices/INV-2024-032.pdf",
    ),
    _fact("travel_claim_amount", Level.DISCOVERABLE, "Travel claim TRV-0207 amount", "386.40", "notes.md"),
    _fact(
        "travel_rebilled",
        Level.DISCOVERABLE,
        "INV-2024-033 bills TRV-0207 again",
        "TRV-0207",
        "invoices/INV-2024-033.pdf",
    ),
    _fact("workshop_date", Level.DISCOVERABLE, "The Hamburg workshop date", "2024-03-05", "notes.md"),
    _fact("partial_payment", Level.DISCOVERABLE, "Amount paid on INV-2024-033", 2000.00, "payments.xlsx"),
    _fact("partial_payment_date", Level.DISCOVERABLE, "Date INV-2024-033 was paid", "2024-04-12", "payments.xlsx"),
    _fact("vendor_id", Level.DISCOVERABLE, "The vendor's master-data id", "V-10442", "vendor.json"),
    _fact(
        "inv032_correct_senior",
        Level.INFERABLE,
        "The correct senior line of INV-2024-032",
        "1481.25",
        derived_from=("rate_senior", "hours_feb_senior"),
    ),
    _fact(
        "overbilled",
        Level.INFERABLE,
        "Over-billed in Q1 (arithmetic error + duplicate travel)",
        "396.40",
        derived_from=("inv032_printed_senior", "inv032_correct_senior", "travel_claim_amount", "travel_rebilled"),
    ),
    _fact(
        "total_billed",
        Level.AUTHOR_ONLY,
        "Sum of the three invoice totals",
        "9283.55",
        derived_from=("inv032_printed_senior",),
    ),
    _fact(
        "total_expected",
        Level.AUTHOR_ONLY,
        "What Q1 should have cost",
        "8887.15",
        derived_from=("rate_senior", "rate_analyst", "hours_feb_senior", "travel_claim_amount"),
    ),
    _fact("total_paid", Level.AUTHOR_ONLY, "Sum of the payments", "8095.65", derived_from=("partial_payment",)),
    _fact(
        "outstanding", Level.AUTHOR_ONLY, "Expected minus paid", "791.50", derived_from=("total_expected", "total_paid")
    ),
]


def _item(
    item_id: str,
    weight: float,
    description: str,
    check: str | None = None,
    params: dict | None = None,
    targets: tuple[str, ...] = (),
    judge: str | None = None,
) -> RubricItem:
    return RubricItem(
        id=item_id,
        description=description,
        weight=weight,
        method=Method.llm_judge if judge else Method.deterministic,
        target_files=list(targets),
        check=CheckSpec(check=check, params=params or {}) if check else None,
        judge_instruction=judge,
    )


def billing_rubric(workspace: dict[str, bytes]) -> Rubric:
    digests = {
        path: hashlib.sha256(workspace[path]).hexdigest()
        for path in workspace
        if path.startswith("invoices/") or path == "payments.xlsx"
    }
    return Rubric(
        summary="Line-level detail, totals, flagged anomalies, untouched sources, and an audit note with evidence.",
        items=[
            _item(
                "detail_lines",
                0.25,
                "detail.csv has one correct row per invoice line",
                "csv_equals",
                {
                    "path": "reconciliation/detail.csv",
                    "expected_file": "expected/detail.csv",
                    "key_columns": ["invoice", "line"],
                    "allow_extra_columns": True,
                    "tolerance": 0.01,
                },
                ("reconciliation/detail.csv",),
            ),
            _item(
                "summary_totals",
                0.30,
                "summary.json has the correct quarter totals",
                "json_path_equals",
                {
                    "path": "reconciliation/summary.json",
                    "values": {f"$.{k}": v for k, v in TOTALS.items()},
                    "tolerance": 0.01,
                },
                ("reconciliation/summary.json",),
            ),
            _item(
                "anomalies_flagged",
                0.20,
                "summary.json flags the three anomalies",
                "text_contains",
                {"path": "reconciliation/summary.json", "contains": ["INV-2024-032", "TRV-0207", "INV-2024-033"]},
                ("reconciliation/summary.json",),
            ),
            _item(
                "sources_untouched",
                0.05,
                "The invoices and the payment ledger are unchanged",
                "file_unchanged",
                {"files": digests},
                tuple(sorted(digests)),
            ),
            _item(
                "audit_note_evidence",
                0.20,
                "The audit note explains each discrepancy with its evidence",
                targets=("reconciliation/audit_note.md",),
                judge="Score 1 if the note explains the INV-2024-032 arithmetic error, the duplicate TRV-0207 "
                "claim and the partial payment of INV-2024-033, each citing the document that shows it; 0.5 if "
                "one is missing or unsupported; 0 otherwise.",
            ),
        ],
    )


def billing_blueprint(workspace: dict[str, bytes] | None = None) -> Blueprint:
    workspace = workspace if workspace is not None else billing_workspace()
    rubric = billing_rubric(workspace)
    return Blueprint(
        task_name="vendor-billing-reconciliation",
        goal="Finance wants Northwind's Q1 2024 consulting invoices reconciled against the contract, the rate "
        "annex, the timesheet and the payments before the quarter closes.",
        skill=SKILL,
        domain=DOMAIN,
        challenges=[
            Challenge(
                pattern_id="source_arithmetic_error",
                intensity=1,
                form="INV-2024-032 prints 1,491.25 for 12.5 h at 118.50 (should be 1,481.25).",
                facts=["inv032_printed_senior", "inv032_correct_senior"],
            ),
            Challenge(
                pattern_id="duplicate_claim_across_periods",
                intensity=1,
                form="Travel claim TRV-0207 is billed in February and again in March.",
                facts=["travel_claim_amount", "travel_rebilled"],
            ),
            Challenge(
                pattern_id="partial_payment_vs_billed",
                intensity=1,
                form="INV-2024-033 was paid 2,000.00 of 3,187.90 billed.",
                facts=["partial_payment", "partial_payment_date"],
            ),
            Challenge(
                pattern_id="distributed_evidence",
                intensity=2,
                form="Rates live in the HTML annex, hours in the CSV timesheet, amounts in the PDFs.",
                facts=["rate_senior", "rate_analyst", "hours_feb_senior"],
            ),
        ],
        facts=FACTS,
        derivations=[
            Derivation(
                result="inv032_correct_senior",
                from_facts=["rate_senior", "hours_feb_senior"],
                reasoning="12.5 h x 118.50 = 1,481.25",
            ),
            Derivation(
                result="total_expected",
                from_facts=["rate_senior", "rate_analyst", "travel_claim_amount"],
                reasoning="Hours x rates per month plus TRV-0207 once: 2,870.00 + 2,829.25 + 386.40 + 2,801.50",
            ),
            Derivation(
                result="outstanding",
                from_facts=["total_expected", "total_paid"],
                reasoning="8,887.15 - 8,095.65 = 791.50",
            ),
        ],
        deliverables=[
            Deliverable(path="reconciliation/detail.csv", format="csv", description="One row per invoice line"),
            Deliverable(path="reconciliation/summary.json", format="json", description="Totals and anomalies"),
            Deliverable(path="reconciliation/audit_note.md", format="md", description="Note for the controller"),
        ],
        acceptance_criteria=[
            AcceptanceCriterion(
                id="ac-lines",
                description="Every invoice line is recomputed from the sources",
                rubric_item="detail_lines",
            ),
            AcceptanceCriterion(
                id="ac-totals",
                description="Billed, expected, paid and outstanding totals are right",
                rubric_item="summary_totals",
            ),
            AcceptanceCriterion(
                id="ac-anomalies", description="Each designed anomaly is flagged", rubric_item="anomalies_flagged"
            ),
            AcceptanceCriterion(
                id="ac-sources",
                description="The source documents are left as they were",
                rubric_item="sources_untouched",
            ),
            AcceptanceCriterion(
                id="ac-note",
                description="The audit note supports each finding with evidence",
                rubric_item="audit_note_evidence",
            ),
        ],
        rubric=rubric,
    )


INSTRUCTION = """# Q1 2024 vendor billing reconciliation

The `docling` skill is available at `/skills/docling`; read its `SKILL.md` before you start.

Northwind Analytics GmbH bills us monthly for consulting. Before the quarter closes, finance needs
their Q1 2024 invoices reconciled against what we agreed and what we paid. Everything you need is in
`/workspace`: the agreement, its rate annex, the shared timesheet, the invoices, the payment ledger,
the project notes and the vendor record.

Produce, in `/workspace/reconciliation/`:

1. `reconciliation/detail.csv` with the columns `invoice,line,description,hours,rate,billed,expected,difference`:
   one row per invoice line, where `expected` is what the line should have been under the agreement.
2. `reconciliation/summary.json` with the numbers `total_billed`, `total_expected`, `total_paid` and
   `outstanding` (expected minus paid), and `anomalies`: a list of `{invoice, kind, amount, explanation}`.
3. `reconciliation/audit_note.md`: a short note for the controller explaining every discrepancy and
   pointing at the document that shows it.

Amounts are in EUR with two decimals. Do not modify the invoices or the payment ledger.
"""

SOLVE_SH = r"""#!/usr/bin/env bash
# Reference solution: recompute every invoice line from the annex rates and the timesheet hours,
# count each travel claim once, compare with the payments.
set -euo pipefail
cd "${SKILL2ENV_WORKSPACE:-/workspace}"
mkdir -p reconciliation
python3 - <<'PY'
import csv, json, re
from decimal import Decimal
from pathlib import Path

import openpyxl
import pypdf

def money(text):
    return Decimal(text.replace(",", ""))

annex = Path("rate_annex.html").read_text()
rates = {role: Decimal(rate) for role, rate in re.findall(r"<td>([^<]+)</td><td>([\d.]+)</td>", annex)}
hours = {}
with open("timesheet.csv", newline="") as handle:
    for row in csv.DictReader(handle):
        hours[(row["month"], row["role"])] = Decimal(row["hours"])

rows, billed_totals, seen_claims, anomalies = [], {}, set(), []
for pdf in sorted(Path("invoices").glob("*.pdf")):
    text = "\n".join(page.extract_text() for page in pypdf.PdfReader(pdf).pages)
    invoice = re.search(r"Invoice number: (\S+)", text).group(1)
    period = re.search(r"Period: (\d{4}-\d{2})", text).group(1)
    billed_totals[invoice] = money(re.search(r"Total due \(EUR\): ([\d,.]+)", text).group(1))
    for line, description, quantity, rate, amount in re.findall(
        r"^(\d+) \| ([^|]+?) \| ([^|]+?) \| ([^|]+?) \| ([\d,.]+)$", text, re.M
    ):
        billed = money(amount)
        claim = re.search(r"TRV-\d+", description)
        if claim:
            expected = Decimal("0.00") if claim.group(0) in seen_claims else billed
            if claim.group(0) in seen_claims:
                anomalies.append({"invoice": invoice, "kind": "duplicate_claim", "amount": float(billed),
                                  "explanation": f"{claim.group(0)} was already billed"})
            seen_claims.add(claim.group(0))
            row_hours, row_rate = "", ""
        else:
            row_hours = hours[(period, description)]
            row_rate = rates[description]
            expected = (row_hours * row_rate).quantize(Decimal("0.01"))
            if expected != billed:
                anomalies.append({"invoice": invoice, "kind": "arithmetic_error", "amount": float(billed - expected),
                                  "explanation": f"{row_hours} h x {row_rate} is {expected}, not {billed}"})
        rows.append([invoice, line, description, row_hours, row_rate, billed, expected, billed - expected])

paid = {}
sheet = openpyxl.load_workbook("payments.xlsx", data_only=True)["Payments"]
for invoice, _, amount, _ in sheet.iter_rows(min_row=2, values_only=True):
    paid[invoice] = paid.get(invoice, Decimal("0")) + Decimal(str(amount)).quantize(Decimal("0.01"))
for invoice, total in billed_totals.items():
    if paid.get(invoice, Decimal("0")) < total:
        anomalies.append({"invoice": invoice, "kind": "partial_payment", "amount": float(total - paid[invoice]),
                          "explanation": f"paid {paid[invoice]} of {total}"})

with open("reconciliation/detail.csv", "w", newline="") as handle:
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(["invoice", "line", "description", "hours", "rate", "billed", "expected", "difference"])
    writer.writerows(rows)
expected_total = sum(r[6] for r in rows)
paid_total = sum(paid.values())
summary = {
    "total_billed": float(sum(billed_totals.values())),
    "total_expected": float(expected_total),
    "total_paid": float(paid_total),
    "outstanding": float(expected_total - paid_total),
    "anomalies": anomalies,
}
Path("reconciliation/summary.json").write_text(json.dumps(summary, indent=2) + "\n")
note = ["# Q1 2024 reconciliation: Northwind Analytics", ""]
note += [f"* {a['invoice']}: {a['kind']} ({a['amount']:.2f} EUR): {a['explanation']}." for a in anomalies]
Path("reconciliation/audit_note.md").write_text("\n".join(note) + "\n")
PY
"""


def expected_detail_csv() -> bytes:
    lines = [",".join(DETAIL_COLUMNS)]
    lines += [",".join(f"{v:.2f}" if isinstance(v, float) else str(v) for v in row) for row in DETAIL_ROWS]
    return ("\n".join(lines) + "\n").encode()


@cache
def billing_draft() -> TaskDraft:
    workspace = billing_workspace()
    return TaskDraft(
        blueprint=billing_blueprint(workspace),
        instruction=INSTRUCTION,
        workspace=workspace,
        solve_sh=SOLVE_SH,
        verifier_files={"expected/detail.csv": expected_detail_csv()},
        author=AUTHOR,
    )


SKILL_MD = """---
name: docling
description: Convert PDF, DOCX, XLSX and HTML documents to Markdown or JSON with Docling, then extract tables.
---

# Docling

Run `python scripts/convert.py INPUT --to md` to convert a document; tables come out as Markdown tables.
"""


def make_skill_dir(root: Path) -> Path:
    """A small skill folder for the writer to copy (SKILL.md, an executable script, a reference)."""
    skill = root / "office" / "docling"
    (skill / "scripts").mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    script = skill / "scripts" / "convert.py"
    script.write_text("#!/usr/bin/env python3\nprint('converted')\n")
    script.chmod(0o755)
    (skill / "references.md").write_text("See the Docling documentation for table options.\n")
    return skill


class SampleAuthor:
    """An `Author` that drafts the billing task for whatever skill it is given (for pipeline tests)."""

    name = "offline:billing-kit"

    def draft(self, skill_row: Mapping[str, Any], selection_rows: Sequence[Mapping[str, Any]]) -> TaskDraft:
        draft = billing_draft()
        skill = SkillRef(skill_id=skill_row["skill_id"], name=skill_row["name"], path=skill_row["path"],
                         mount=f"/skills/{skill_row['name']}")  # fmt: skip
        data = draft.blueprint.model_dump(mode="json")
        data |= {"skill": skill.model_dump(mode="json"), "domain": skill_row["domain"],
                 "task_name": f"billing-{skill_row['name']}"}  # fmt: skip
        instruction = draft.instruction.replace("`docling` skill is available at `/skills/docling`",
                                                f"`{skill.name}` skill is available at `{skill.mount}`")  # fmt: skip
        return replace(draft, blueprint=Blueprint.model_validate(data), instruction=instruction)


class DecliningAuthor:
    name = "offline:declines"

    def draft(self, skill_row: Mapping[str, Any], selection_rows: Sequence[Mapping[str, Any]]) -> Rejection:
        return Rejection("no world kit fits this skill", self.name)


class BrokenAuthor:
    name = "offline:broken"

    def draft(self, skill_row: Mapping[str, Any], selection_rows: Sequence[Mapping[str, Any]]) -> TaskDraft:
        raise RuntimeError("the kit crashed")
