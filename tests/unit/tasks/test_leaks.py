"""The leak check (c): author-only values and inferable conclusions, planted in any format the writer
carries, in the instruction or in a file name, are caught; the clean sample passes."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from task_samples import billing_blueprint, billing_draft, billing_workspace, docx_bytes, pdf_bytes, xlsx_bytes

from skill2env.tasks.checks import Severity, check_leaks, read_workspace

Builder = Callable[[str | None], tuple[str, bytes]]


def _csv(leak: str | None) -> tuple[str, bytes]:
    rows = ["invoice,amount", "INV-2024-031,2870.00"] + ([f"CHECK,{leak}"] if leak else [])
    return "extra/ledger_export.csv", ("\n".join(rows) + "\n").encode()


def _json(leak: str | None) -> tuple[str, bytes]:
    record: dict[str, object] = {"vendor": "V-10442", "status": "open"}
    if leak:
        record["cache"] = {"q1": float(leak.replace(",", ""))}
    return "extra/cache.json", json.dumps(record).encode()


def _md(leak: str | None) -> tuple[str, bytes]:
    text = "# Scratch\n\n| item | value |\n|---|---|\n| invoices | 3 |\n"
    return "extra/scratch.md", (text + (f"| expected | **{leak}** |\n" if leak else "")).encode()


def _html(leak: str | None) -> tuple[str, bytes]:
    comment = f"<!-- reviewer: {leak} -->" if leak else ""
    return "extra/annex_b.html", f"<html><body><p>Annex B</p>{comment}</body></html>".encode()


def _xlsx(leak: str | None) -> tuple[str, bytes]:
    sheets: dict[str, list[list[object]]] = {"Data": [["invoice", "amount"], ["INV-2024-031", 2870.0]]}
    if leak:
        sheets["Working"] = [["q1"], [float(leak.replace(".", "").replace(",", "."))]]
    return "extra/workbook.xlsx", xlsx_bytes(sheets, hidden=frozenset({"Working"}))


def _docx(leak: str | None) -> tuple[str, bytes]:
    table = [["Item", "Amount"], ["Q1", leak]] if leak else None
    return "extra/memo.docx", docx_bytes(["Internal memo", "Please review the Q1 invoices."], table)


def _pdf(leak: str | None) -> tuple[str, bytes]:
    return "extra/report.pdf", pdf_bytes(["Quarterly report", *([f"Expected EUR {leak}"] if leak else [])])


# The author-only total_expected (8887.15), spelled as each format would carry it.
FORMATS: dict[str, tuple[Builder, str]] = {
    "csv": (_csv, "8887.15"),
    "json": (_json, "8887.15"),
    "md": (_md, "8.887,15"),
    "html": (_html, "8,887.15"),
    "xlsx": (_xlsx, "8.887,15"),
    "docx": (_docx, "8 887.15".replace(" ", ",")),
    "pdf": (_pdf, "8,887.15"),
}


def leaks_with(extra: tuple[str, bytes], instruction: str | None = None) -> tuple[int, int, list[str]]:
    workspace = dict(billing_workspace())
    workspace[extra[0]] = extra[1]
    result = check_leaks(billing_blueprint(), instruction or billing_draft().instruction, read_workspace(workspace))
    errors = [f.message for f in result.findings if f.severity == Severity.error]
    unsearched = [f for f in result.findings if f.code == "unsearched"]
    assert not unsearched, unsearched
    return result.checked, result.leaked, errors


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_planted_leak_is_caught(fmt: str) -> None:
    build, spelling = FORMATS[fmt]
    path, _ = build(None)
    checked, leaked, errors = leaks_with(build(spelling))
    assert (checked, leaked) == (6, 1)
    assert errors == [f"author_only fact total_expected ('8887.15') appears in {path}"]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_the_same_file_without_the_value_is_clean(fmt: str) -> None:
    build, _ = FORMATS[fmt]
    assert leaks_with(build(None)) == (6, 0, [])


def test_an_inferable_conclusion_in_the_instruction_is_a_leak() -> None:
    instruction = billing_draft().instruction + "\nHint: we were over-billed by about EUR 396.40.\n"
    _, leaked, errors = leaks_with(_csv(None), instruction)
    assert leaked == 1 and errors == ["inferable fact overbilled ('396.40') appears in instruction.md"]


def test_a_value_in_a_file_name_is_a_leak() -> None:
    _, leaked, errors = leaks_with(("extra/total_8887.15.txt", b"see name"))
    assert leaked == 1 and "(workspace file names)" in errors[0]


def test_a_date_leaks_in_any_spelling() -> None:
    blueprint = billing_blueprint()
    data = blueprint.model_dump(mode="json")
    data["facts"].append(
        {
            "id": "settlement_date",
            "statement": "When Northwind must refund",
            "value": "2024-06-30",
            "level": "author_only",
            "derived_from": ["total_expected"],
        }
    )
    workspace = dict(billing_workspace())
    workspace["extra/memo.docx"] = docx_bytes(["Refund due by 30/06/2024."])
    result = check_leaks(type(blueprint).model_validate(data), billing_draft().instruction, read_workspace(workspace))
    assert (result.checked, result.leaked) == (7, 1)


def test_values_the_agent_may_see_anyway_are_not_counted() -> None:
    blueprint = billing_blueprint()
    data = blueprint.model_dump(mode="json")
    data["facts"].append(
        {
            "id": "claim_again",
            "statement": "The duplicated claim",
            "value": "TRV-0207",
            "level": "inferable",
            "derived_from": ["travel_rebilled"],
        }
    )
    data["facts"].append({"id": "few", "statement": "Designed anomalies", "value": 3, "level": "author_only"})
    result = check_leaks(
        type(blueprint).model_validate(data), billing_draft().instruction, read_workspace(billing_workspace())
    )
    assert (result.checked, result.leaked) == (6, 0)
    assert sorted((f.code, f.subject) for f in result.findings) == [
        ("shared_value", "claim_again"),
        ("unchecked", "few"),
    ]


def test_a_file_that_cannot_be_read_is_reported_as_unsearched() -> None:
    workspace = dict(billing_workspace())
    workspace["extra/scan.png"] = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
    result = check_leaks(billing_blueprint(), billing_draft().instruction, read_workspace(workspace))
    assert [(f.code, f.severity) for f in result.findings] == [("unsearched", Severity.warning)]


def test_the_leak_rate() -> None:
    workspace = dict(billing_workspace())
    workspace["extra/cache.json"] = json.dumps({"a": 8887.15, "b": "791.50", "c": 1481.25}).encode()
    result = check_leaks(billing_blueprint(), billing_draft().instruction, read_workspace(workspace))
    assert (result.checked, result.leaked) == (6, 3)
    assert result.rate == pytest.approx(0.5)
