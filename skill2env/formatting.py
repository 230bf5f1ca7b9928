"""Render frames for people: Markdown tables for the Dagster UI and plain tables for the terminal."""

from __future__ import annotations

import csv
import io

import polars as pl
from rich.console import Console
from rich.table import Table

CELL_CHARS = 60


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    text = text.replace("\n", " ").replace("|", "\\|")
    return text if len(text) <= CELL_CHARS else text[: CELL_CHARS - 1] + "…"


def markdown_table(frame: pl.DataFrame, max_rows: int = 20) -> str:
    """A GitHub-flavoured Markdown table of the first `max_rows` rows, long cells cut and marked."""
    header = "| " + " | ".join(frame.columns) + " |"
    rule = "| " + " | ".join("---" for _ in frame.columns) + " |"
    body = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in frame.head(max_rows).iter_rows()]
    more = [f"\n*{frame.height - max_rows} more rows*"] if frame.height > max_rows else []
    return "\n".join([header, rule, *body, *more])


CELL_PADDING = 2
"""Spaces rich puts around each cell (one either side)."""


def _longest_word(text: str) -> int:
    return max((len(word) for word in text.split()), default=0)


def fit_widths(columns: list[list[str]], available: int) -> list[int] | None:
    """Widths (cell padding included) for columns of texts (header first) that fit `available`
    characters without breaking a word, narrowing the widest first; None when even one word per line
    does not fit."""
    widths = [max((len(text) for text in texts), default=0) + CELL_PADDING for texts in columns]
    floors = [max((_longest_word(text) for text in texts), default=0) + CELL_PADDING for texts in columns]
    budget = available - (len(columns) + 1)  # the vertical rules of the table
    if sum(floors) > budget:
        return None
    while sum(widths) > budget:
        index = max(range(len(widths)), key=lambda i: widths[i] - floors[i])
        widths[index] -= 1
    return widths


def print_frame(
    console: Console,
    title: str,
    frame: pl.DataFrame,
    *,
    labels: dict[str, str] | None = None,
    bold_first: str | None = None,
) -> None:
    """A frame for a person at a terminal: a rich table that wraps cells at word boundaries only; when
    the console is not a terminal (piped, CI) or no such table fits, the title and CSV-like rows.
    In the table, a snake_case header shows its words apart (`mean reward`), so it can wrap between them.

    `labels` renames columns; rows whose first cell is `bold_first` are bold in the table."""
    header = [(labels or {}).get(column, column) for column in frame.columns]
    rows = [["" if value is None else str(value) for value in row] for row in frame.iter_rows()]
    titles = [name.replace("_", " ") for name in header]  # snake_case headers wrap between their words
    widths = fit_widths([[name, *(row[i] for row in rows)] for i, name in enumerate(titles)], console.width)
    if not console.is_terminal or widths is None:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        if title:
            console.print(f"{title}:", highlight=False)
        console.out(buffer.getvalue().rstrip("\n"), highlight=False)
        return
    table = Table(title=title or None)
    for name, width, dtype in zip(titles, widths, frame.dtypes, strict=True):
        table.add_column(name, width=width - CELL_PADDING, justify="right" if dtype.is_numeric() else "left")
    for row in rows:
        table.add_row(*row, style="bold" if bold_first is not None and row[0] == bold_first else None)
    console.print(table)
