"""Helpers for the kit scripts (reference solver, naive and partial policies) that run in the sandbox.

This file is copied verbatim in front of each script, so it uses only what the base image has: the
Python standard library, openpyxl and pypdf, and the programs pdftotext, pdfimages, pdftoppm and
tesseract (poppler-utils, tesseract-ocr).
Scripts reach these helpers as `rt.<name>` both here (imported) and in the sandbox (concatenated).
Extraction is what an agent would have to do too: text PDFs through pdftotext, scans through OCR.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def workspace() -> Path:
    return Path(os.environ.get("WORKSPACE") or "/workspace")


def partial_mode() -> bool:
    """The partial policy: the reference solver stopped after its first deliverable."""
    return os.environ.get("KIT_SOLVER_MODE") == "partial"


def files(pattern: str = "**/*") -> list[Path]:
    """Workspace files (not output/), sorted by relative path."""
    root = workspace()
    found = [p for p in root.glob(pattern) if p.is_file() and not p.relative_to(root).as_posix().startswith("output/")]
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def rel(path: Path) -> str:
    return path.relative_to(workspace()).as_posix()


def decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_text(path: Path) -> str:
    return decode(path.read_bytes())


def docx_text(data: bytes) -> str:
    """Paragraphs and table rows (cells joined by ' | ') of a DOCX body, in order."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        root = ElementTree.fromstring(archive.read("word/document.xml"))  # noqa: S314 - the task's own file; no defusedxml in the image
    body = root.find(f"{_W}body")
    lines: list[str] = []
    for child in body if body is not None else []:
        if child.tag == f"{_W}p":
            lines.append("".join(t.text or "" for t in child.iter(f"{_W}t")))
        elif child.tag == f"{_W}tbl":
            for row in child.iter(f"{_W}tr"):
                cells = ["".join(t.text or "" for t in cell.iter(f"{_W}t")) for cell in row.iter(f"{_W}tc")]
                lines.append(" | ".join(cells))
    return "\n".join(lines)


def pdf_text(path: Path) -> str:
    """The PDF's text layer ('' when it has none)."""
    if shutil.which("pdftotext"):
        done = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, check=False)
        if done.returncode == 0:
            return decode(done.stdout)
    from pypdf import PdfReader

    return "\n".join(page.extract_text() or "" for page in PdfReader(str(path)).pages)


def ocr(path: Path) -> str:
    """OCR of an image, or of every page of an image-only PDF (its embedded images, else pages at 300 dpi)."""
    with tempfile.TemporaryDirectory() as tmp:
        images = [path]
        if path.suffix.lower() == ".pdf":
            subprocess.run(["pdfimages", "-png", str(path), f"{tmp}/img"], check=False, capture_output=True)
            images = sorted(Path(tmp).glob("img*.png"))
            if not images:
                subprocess.run(["pdftoppm", "-r", "300", "-gray", "-png", str(path), f"{tmp}/page"], check=True)
                images = sorted(Path(tmp).glob("page*.png"))
        texts = []
        for image in images:
            done = subprocess.run(["tesseract", str(image), "stdout"], capture_output=True, check=True)
            texts.append(decode(done.stdout))
    return "\n".join(texts)


class _HTMLText(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.cells: list[str] | None = None
        self.current: list[str] = []
        self.struck = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.cells = []
        elif tag in ("td", "th"):
            self.current = []
        elif tag in ("del", "s", "strike"):
            self.struck += 1
            self.current.append("~~")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("del", "s", "strike"):
            self.struck -= 1
            self.current.append("~~")
        elif tag in ("td", "th") and self.cells is not None:
            self.cells.append("".join(self.current).strip())
            self.current = []
        elif tag == "tr" and self.cells is not None:
            self.lines.append(" | ".join(self.cells))
            self.cells = None
        elif tag in ("p", "h1", "h2", "h3", "li", "title") and self.cells is None:
            text = "".join(self.current).strip()
            if text:
                self.lines.append(text)
            self.current = []

    def handle_data(self, data: str) -> None:
        self.current.append(data)


def html_text(text: str) -> str:
    """Visible text of an HTML page: table rows as 'a | b', struck-through text wrapped in '~~'."""
    parser = _HTMLText()
    parser.feed(text)
    return "\n".join(parser.lines)


def document_text(path: Path) -> str:
    """What a reader gets from a document, OCR included: the text an agent would work from."""
    suffix = path.suffix.lower()
    if suffix == ".docx":
        return docx_text(path.read_bytes())
    if suffix == ".pdf":
        text = pdf_text(path)
        return text if text.strip() else ocr(path)
    if suffix in (".png", ".jpg", ".jpeg", ".tif", ".tiff"):
        return ocr(path)
    if suffix in (".html", ".htm"):
        return html_text(read_text(path))
    return read_text(path)


def xlsx_sheets(path: Path) -> list[dict[str, Any]]:
    """Every sheet (hidden ones too): name, state, rows of values, hidden row / column indexes, comments."""
    import openpyxl

    book = openpyxl.load_workbook(path, data_only=True)
    sheets = []
    for sheet in book.worksheets:
        rows = [list(row) for row in sheet.iter_rows(values_only=True)]
        hidden_rows = {r - 1 for r, dim in sheet.row_dimensions.items() if dim.hidden}
        hidden_cols = {
            openpyxl.utils.column_index_from_string(c) - 1 for c, dim in sheet.column_dimensions.items() if dim.hidden
        }
        comments = {
            (cell.row - 1, cell.column - 1): cell.comment.text
            for row in sheet.iter_rows()
            for cell in row
            if cell.comment
        }
        sheets.append(
            {
                "name": sheet.title,
                "state": sheet.sheet_state,
                "rows": rows,
                "hidden_rows": hidden_rows,
                "hidden_cols": hidden_cols,
                "comments": comments,
            }
        )
    return sheets


def members(name: str, data: bytes) -> Iterator[tuple[str, bytes]]:
    """(path, bytes) of a file, unpacking .gz, .tar(.gz), .tgz and .zip archives recursively."""
    lower = name.lower()
    if lower.endswith((".tar.gz", ".tgz", ".tar")):
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            for member in archive.getmembers():
                handle = archive.extractfile(member) if member.isfile() else None
                if handle is not None:
                    yield from members(f"{name}!/{member.name}", handle.read())
    elif lower.endswith(".gz"):
        yield from members(name[:-3], gzip.decompress(data))
    elif lower.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for entry in archive.namelist():
                if not entry.endswith("/"):
                    yield from members(f"{name}!/{entry}", archive.read(entry))
    else:
        yield name, data


def amount(text: str) -> float:
    """A money amount from '1,234.50', 'EUR 1234.5' or '-12.00'."""
    cleaned = re.sub(r"[^0-9.\-]", "", text.replace(",", ""))
    return float(cleaned)


def money(value: float) -> str:
    return f"{value:.2f}"


def out(relpath: str) -> Path:
    path = workspace() / "output" / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def write_csv(relpath: str, header: list[str], rows: list[list[Any]]) -> None:
    with out(relpath).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def write_json(relpath: str, data: Any) -> None:
    out(relpath).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def write_text(relpath: str, text: str) -> None:
    out(relpath).write_text(text, encoding="utf-8")


rt = sys.modules[__name__]
