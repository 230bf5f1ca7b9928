"""Render frames for people: Markdown tables for the Dagster UI and plain tables for the terminal."""

from __future__ import annotations

import polars as pl

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
