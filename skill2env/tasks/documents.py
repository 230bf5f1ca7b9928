"""Read the text out of workspace files, per format, for the author-side checks.

Each reader returns *segments* (a CSV cell, a JSON leaf, a spreadsheet cell, a paragraph, a PDF
page) so that numbers are read inside one value and never across a separator. A file that
cannot be read as text (an image, a scanned PDF with no text layer, a format whose parser is
missing) yields no segments and a note saying why; the checks turn it into a finding.
"""

from __future__ import annotations

import csv
import io
import json
import posixpath
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time
from html.parser import HTMLParser
from importlib.util import find_spec

IMAGE_EXTENSIONS = frozenset({"png", "jpg", "jpeg", "gif", "bmp", "tif", "tiff", "webp"})
PARSERS = {"xlsx": "openpyxl", "xlsm": "openpyxl", "docx": "docx", "pdf": "pypdf"}
"""Formats read through an optional package: extension → importable module."""


@dataclass(frozen=True)
class Extracted:
    """The text of one file, as segments; `note` says why some or all of it could not be read."""

    path: str
    format: str
    segments: tuple[str, ...]
    note: str = ""

    @property
    def readable(self) -> bool:
        return not self.note


def file_format(path: str) -> str:
    """The format name of a workspace path: its lower-case extension (`csv`, `xlsx`), or `none`."""
    name = posixpath.basename(path)
    return name.rsplit(".", 1)[1].lower() if "." in name.strip(".") else "none"


def extract(path: str, data: bytes) -> Extracted:
    """The text segments of one file (`path` only decides the format)."""
    fmt = file_format(path)
    module = PARSERS.get(fmt)
    if module and find_spec(module) is None:
        return Extracted(path, fmt, (), f"the {module} package is not installed: {fmt} files were not read")
    reader = _READERS.get(fmt)
    if reader is None:
        if fmt in IMAGE_EXTENSIONS:
            return Extracted(path, fmt, (), "an image: its text (if any) needs OCR and was not read")
        return _plain(path, fmt, data)
    try:
        segments = tuple(s for s in reader(data) if s and s.strip())
    except Exception as exc:  # a malformed document is a finding, not a crash
        return Extracted(path, fmt, (), f"could not be parsed as {fmt}: {type(exc).__name__}: {exc}")
    if fmt == "pdf" and not segments:
        return Extracted(path, fmt, (), "a PDF without a text layer (scanned): its text needs OCR and was not read")
    return Extracted(path, fmt, segments)


def _plain(path: str, fmt: str, data: bytes) -> Extracted:
    if b"\0" in data[:8192]:
        return Extracted(path, fmt, (), "a binary file of an unknown format: not read")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return Extracted(path, fmt, tuple(line for line in text.splitlines() if line.strip()))


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _csv(data: bytes) -> list[str]:
    text = _decode(data)
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    return [cell for row in csv.reader(io.StringIO(text), dialect) for cell in row]


def _tsv(data: bytes) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(_decode(data)), delimiter="\t") for cell in row]


def _json(data: bytes) -> list[str]:
    text = _decode(data)
    try:
        values = [json.loads(text)]
    except json.JSONDecodeError:
        values = [json.loads(line) for line in text.splitlines() if line.strip()]  # JSON Lines
    segments: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                segments.append(str(key))
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
        elif node is not None:
            segments.append(json.dumps(node) if isinstance(node, bool) else str(node))

    for value in values:
        walk(value)
    return segments


class _HtmlText(HTMLParser):
    """Visible text, comments and attribute values: an agent reading the raw file sees them all."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.segments: list[str] = []

    def handle_data(self, data: str) -> None:
        self.segments.append(data)

    def handle_comment(self, data: str) -> None:
        self.segments.append(data)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.segments.extend(value for name, value in attrs if value and name not in {"class", "id", "style"})


def _html(data: bytes) -> list[str]:
    parser = _HtmlText()
    parser.feed(_decode(data))
    parser.close()
    return parser.segments


def _cell_text(value: object) -> str:
    if isinstance(value, datetime):
        return value.date().isoformat() if value.time() == time() else value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    return "" if value is None else str(value)


def _xlsx(data: bytes) -> list[str]:
    import openpyxl

    segments: list[str] = []
    # Formulas and their cached results both: a hidden sheet or a cached total is as visible as a cell.
    for data_only in (False, True):
        book = openpyxl.load_workbook(io.BytesIO(data), data_only=data_only, read_only=False)
        try:
            for sheet in book.worksheets:
                if not data_only:
                    segments.append(sheet.title)
                for row in sheet.iter_rows():
                    for cell in row:
                        segments.append(_cell_text(cell.value))
                        if not data_only and cell.comment is not None:
                            segments.append(cell.comment.text)
            if not data_only:
                segments.extend(str(getattr(book.properties, name) or "") for name in ("title", "subject",
                                "description", "keywords", "creator"))  # fmt: skip
        finally:
            book.close()
    return segments


def _docx(data: bytes) -> list[str]:
    import docx

    document = docx.Document(io.BytesIO(data))
    segments = [paragraph.text for paragraph in document.paragraphs]
    for table in document.tables:
        segments.extend(cell.text for row in table.rows for cell in row.cells)
    for section in document.sections:
        for part in (section.header, section.footer):
            segments.extend(paragraph.text for paragraph in part.paragraphs)
    props = document.core_properties
    segments.extend(str(v or "") for v in (props.title, props.subject, props.comments, props.keywords, props.author))
    with zipfile.ZipFile(io.BytesIO(data)) as archive:  # comments and notes live outside the body
        for name in ("word/comments.xml", "word/footnotes.xml", "word/endnotes.xml"):
            if name in archive.namelist():
                segments.extend(_xml_text(archive.read(name)))
    return segments


def _xml_text(data: bytes) -> list[str]:
    parser = _HtmlText()
    parser.feed(_decode(data))
    parser.close()
    return parser.segments


def _pdf(data: bytes) -> list[str]:
    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(data))
    segments = [page.extract_text() or "" for page in reader.pages]
    if reader.metadata:
        segments.extend(str(value) for value in reader.metadata.values() if value)
    return segments if any(s.strip() for s in segments[: len(reader.pages)]) else []


_READERS: dict[str, Callable[[bytes], list[str]]] = {
    "csv": _csv,
    "tsv": _tsv,
    "json": _json,
    "jsonl": _json,
    "html": _html,
    "htm": _html,
    "xlsx": _xlsx,
    "xlsm": _xlsx,
    "docx": _docx,
    "pdf": _pdf,
}
