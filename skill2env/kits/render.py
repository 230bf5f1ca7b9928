"""Renderers: write a world's facts into workspace files in realistic formats, byte-for-byte deterministic.

Every renderer returns bytes. Office files (DOCX, XLSX) and archives are re-zipped with fixed
timestamps so the same world always gives the same files (a task's identity is its content hash).
A scanned document is text drawn onto an image with Pillow's built-in font, embedded in a PDF with
no text layer: text extraction returns nothing and only OCR recovers the facts.
"""

from __future__ import annotations

import csv
import gzip
import html
import io
import json
import re
import tarfile
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from skill2env.kits.spec import seeded

FIXED_TIME = datetime(2024, 1, 1, tzinfo=UTC)
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
SCAN_DPI = 150
"""Scans are drawn at this resolution: a 1240-pixel-wide page is a little over 8 inches."""
_CORE_TIMES = re.compile(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)")

Cell = str | int | float | None


def csv_bytes(header: Sequence[str], rows: Sequence[Sequence[Any]], *, delimiter: str = ",") -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(["" if value is None else value for value in row] for row in rows)
    return buffer.getvalue().encode()


def json_bytes(data: Any) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Cell]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join("" if v is None else str(v) for v in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def html_page(title: str, blocks: Sequence[str]) -> bytes:
    """A small HTML document; `blocks` are HTML fragments (use `html_table` / `html_paragraph`)."""
    body = "\n".join(blocks)
    page = (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title></head>\n'
        f"<body>\n<h1>{html.escape(title)}</h1>\n{body}\n</body></html>\n"
    )
    return page.encode()


def html_paragraph(text: str, *, struck: bool = False) -> str:
    inner = html.escape(text)
    return f"<p><del>{inner}</del></p>" if struck else f"<p>{inner}</p>"


def html_table(header: Sequence[str], rows: Sequence[Sequence[Cell]], *, struck_rows: Sequence[int] = ()) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = []
    for index, row in enumerate(rows):
        cells = ["" if v is None else html.escape(str(v)) for v in row]
        if index in struck_rows:
            cells = [f"<del>{c}</del>" for c in cells]
        body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(body) + "\n</tbody>\n</table>"


@dataclass(frozen=True)
class DocBlock:
    """One block of a document: a heading, a paragraph or a table."""

    kind: str
    """`heading`, `paragraph` or `table`."""
    text: str = ""
    header: tuple[str, ...] = ()
    rows: tuple[tuple[Cell, ...], ...] = ()


def heading(text: str) -> DocBlock:
    return DocBlock("heading", text)


def paragraph(text: str) -> DocBlock:
    return DocBlock("paragraph", text)


def table(header: Sequence[str], rows: Sequence[Sequence[Cell]]) -> DocBlock:
    return DocBlock("table", header=tuple(header), rows=tuple(tuple(r) for r in rows))


def blocks_text(blocks: Sequence[DocBlock]) -> str:
    """The plain text of a document's blocks (what the leak guard searches)."""
    lines: list[str] = []
    for block in blocks:
        if block.kind == "table":
            lines.append(" | ".join(block.header))
            lines += [" | ".join("" if v is None else str(v) for v in row) for row in block.rows]
        else:
            lines.append(block.text)
    return "\n".join(lines)


def docx_bytes(blocks: Sequence[DocBlock]) -> bytes:
    import docx

    document = docx.Document()
    document.core_properties.created = FIXED_TIME
    document.core_properties.modified = FIXED_TIME
    document.core_properties.author = "records"
    for block in blocks:
        if block.kind == "heading":
            document.add_heading(block.text, level=1)
        elif block.kind == "paragraph":
            document.add_paragraph(block.text)
        else:
            grid = document.add_table(rows=1 + len(block.rows), cols=len(block.header))
            for col, name in enumerate(block.header):
                grid.cell(0, col).text = name
            for r, row in enumerate(block.rows, start=1):
                for col, value in enumerate(row):
                    grid.cell(r, col).text = "" if value is None else str(value)
    buffer = io.BytesIO()
    document.save(buffer)
    return normalize_zip(buffer.getvalue())


def _latin1(text: str) -> str:
    return text.encode("latin-1", "replace").decode("latin-1")


def pdf_bytes(blocks: Sequence[DocBlock], *, title: str = "", landscape: bool = False) -> bytes:
    """A PDF with a text layer (core fonts, so Latin-1 text only). Tables print as ' | '-separated
    rows in a fixed-pitch font, the way many billing systems export them."""
    from fpdf import FPDF

    pdf = FPDF(orientation="L" if landscape else "P", unit="mm", format="A4")
    pdf.set_creation_date(FIXED_TIME)
    pdf.set_title(_latin1(title))
    pdf.set_auto_page_break(auto=True, margin=15)
    pdf.add_page()
    width = pdf.w - pdf.l_margin - pdf.r_margin
    for block in blocks:
        if block.kind == "heading":
            pdf.set_font("Helvetica", style="B", size=14)
            pdf.multi_cell(width, 8, _latin1(block.text), new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
        elif block.kind == "paragraph":
            pdf.set_font("Helvetica", size=10)
            pdf.multi_cell(width, 5, _latin1(block.text), new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1)
        else:
            pdf.set_font("Courier", size=8)
            for row in (block.header, *block.rows):
                line = " | ".join("" if value is None else str(value) for value in row)
                pdf.cell(width, 4.5, _latin1(line), new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
    return bytes(pdf.output())


@dataclass(frozen=True)
class ScanStyle:
    """How a scan looks: rotation in degrees, a little noise, the pixel width of the page image."""

    rotation: float = 0.0
    noise: int = 0
    """Number of speckles sprinkled over the page."""
    width: int = 1240
    font_size: int = 36
    seed: int = 0


def scan_image(lines: Sequence[str], style: ScanStyle = ScanStyle()) -> bytes:
    """Text drawn onto a page image (PNG): what a scanner returns."""

    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=style.font_size)
    line_height = int(style.font_size * 1.8)
    height = 180 + line_height * len(lines)
    image = Image.new("L", (style.width, height), 255)
    draw = ImageDraw.Draw(image)
    y = 90
    for line in lines:
        draw.text((90, y), line, font=font, fill=25)
        y += line_height
    rng = seeded("scan", style.seed)
    for _ in range(style.noise):
        x, yy = rng.randrange(style.width), rng.randrange(height)
        draw.point((x, yy), fill=rng.randrange(170, 230))
    if style.rotation:
        image = image.rotate(style.rotation, resample=Image.Resampling.BICUBIC, fillcolor=255)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def scanned_pdf(pages: Sequence[Sequence[str]], style: ScanStyle = ScanStyle()) -> bytes:
    """An image-only PDF: each page is a scanned image, there is no text layer."""
    from fpdf import FPDF
    from PIL import Image

    pdf = FPDF(unit="pt", format="A4")
    pdf.set_creation_date(FIXED_TIME)
    for number, lines in enumerate(pages):
        page_style = ScanStyle(style.rotation, style.noise, style.width, style.font_size, style.seed + number)
        png = scan_image(lines, page_style)
        width, height = Image.open(io.BytesIO(png)).size
        points = 72 / SCAN_DPI
        pdf.add_page(format=(width * points, height * points))
        pdf.image(io.BytesIO(png), x=0, y=0, w=width * points, h=height * points)
    return bytes(pdf.output())


@dataclass
class SheetSpec:
    """One worksheet of a workbook."""

    name: str
    header: Sequence[str]
    rows: Sequence[Sequence[Any]]
    state: str = "visible"
    """`visible`, `hidden` or `veryHidden`."""
    hidden_rows: set[int] = field(default_factory=set)
    """Indexes into `rows` whose spreadsheet rows are hidden."""
    hidden_columns: set[int] = field(default_factory=set)
    comments: dict[tuple[int, int], str] = field(default_factory=dict)
    """(row index, column index) → comment text; row -1 is the header."""
    title: str | None = None
    """A title row above the header (a default reader takes it for the header)."""


def xlsx_bytes(sheets: Sequence[SheetSpec]) -> bytes:
    import openpyxl
    from openpyxl.comments import Comment
    from openpyxl.utils import get_column_letter

    book = openpyxl.Workbook()
    book.remove(book.active)
    naive_time = FIXED_TIME.replace(tzinfo=None)
    book.properties.created = naive_time
    book.properties.modified = naive_time
    book.properties.creator = "records"
    for spec in sheets:
        sheet = book.create_sheet(spec.name)
        offset = 1
        if spec.title:
            sheet.append([spec.title])
            offset = 2
        sheet.append(list(spec.header))
        for row in spec.rows:
            sheet.append(list(row))
        for index in spec.hidden_rows:
            sheet.row_dimensions[offset + 1 + index].hidden = True
        for col in spec.hidden_columns:
            sheet.column_dimensions[get_column_letter(col + 1)].hidden = True
        for (row_index, col), text in spec.comments.items():
            sheet.cell(row=offset + 1 + row_index, column=col + 1).comment = Comment(text, "records")
        sheet.sheet_state = spec.state
    buffer = io.BytesIO()
    book.save(buffer)
    return normalize_zip(buffer.getvalue())


def sheets_text(sheets: Sequence[SheetSpec]) -> str:
    lines: list[str] = []
    for spec in sheets:
        lines.append(spec.name)
        if spec.title:
            lines.append(spec.title)
        lines.append(" | ".join(spec.header))
        lines += [" | ".join("" if v is None else str(v) for v in row) for row in spec.rows]
        lines += list(spec.comments.values())
    return "\n".join(lines)


def normalize_zip(data: bytes) -> bytes:
    """The same archive with fixed entry timestamps and document-property times (deterministic bytes)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            content = source.read(info.filename)
            if info.filename == "docProps/core.xml":
                content = _CORE_TIMES.sub(rb"\g<1>2024-01-01T00:00:00Z\g<2>", content)
            entry = zipfile.ZipInfo(info.filename, date_time=_ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            target.writestr(entry, content)
    return buffer.getvalue()


def gzip_bytes(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=6, mtime=0)


def tar_gz_bytes(members: Mapping[str, bytes]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            info.mtime = 0
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(content))
    return gzip_bytes(raw.getvalue())


def zip_bytes(members: Mapping[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            entry = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, content)
    return buffer.getvalue()
