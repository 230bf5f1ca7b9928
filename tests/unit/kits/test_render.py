"""Renderers: deterministic bytes, and scans that only OCR can read."""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest
from pypdf import PdfReader

from skill2env.kits import render as r

BLOCKS = [
    r.heading("INVOICE INV-2024-0101"),
    r.paragraph("Total due: 1425.00 EUR"),
    r.table(["No", "Amount"], [[1, "1425.00"]]),
]


def test_office_documents_are_byte_for_byte_deterministic() -> None:
    sheets = [r.SheetSpec("Payments", ["Date", "Amount"], [["2024-05-02", 12.5]], hidden_rows={0})]
    assert r.docx_bytes(BLOCKS) == r.docx_bytes(BLOCKS)
    assert r.xlsx_bytes(sheets) == r.xlsx_bytes(sheets)
    assert r.pdf_bytes(BLOCKS) == r.pdf_bytes(BLOCKS)
    assert r.tar_gz_bytes({"a.log": b"x"}) == r.tar_gz_bytes({"a.log": b"x"})
    assert r.zip_bytes({"a.csv": b"x"}) == r.zip_bytes({"a.csv": b"x"})


def test_archives_hold_their_members() -> None:
    with tarfile.open(fileobj=io.BytesIO(r.tar_gz_bytes({"x/a.log": b"hello"}))) as archive:
        assert archive.extractfile("x/a.log").read() == b"hello"  # type: ignore[union-attr]
    assert zipfile.ZipFile(io.BytesIO(r.zip_bytes({"b.csv": b"1,2"}))).read("b.csv") == b"1,2"


def test_text_pdf_has_a_text_layer() -> None:
    text = PdfReader(io.BytesIO(r.pdf_bytes(BLOCKS))).pages[0].extract_text()
    assert "INV-2024-0101" in text
    assert "1425.00" in text


def test_scanned_pdf_has_no_text_layer(tmp_path: Path) -> None:
    data = r.scanned_pdf([["RECEIPT", "Receipt No.: R-5531", "Amount: EUR 412.50"]], r.ScanStyle(rotation=1.2))
    assert all(not (page.extract_text() or "").strip() for page in PdfReader(io.BytesIO(data)).pages)
    if shutil.which("pdfimages") is None or shutil.which("tesseract") is None:
        pytest.skip("poppler-utils / tesseract-ocr not installed: OCR not checked")
    (tmp_path / "scan.pdf").write_bytes(data)
    subprocess.run(["pdfimages", "-png", str(tmp_path / "scan.pdf"), str(tmp_path / "img")], check=True)
    image = next(tmp_path.glob("img*.png"))
    text = subprocess.run(["tesseract", str(image), "stdout"], capture_output=True, text=True, check=True).stdout
    assert "R-5531" in text
    assert "412.50" in text
