#!/usr/bin/env python3
"""Inspect a SQLite database and run one read-only query file, printing the
result as a Markdown table or CSV.

  --schema            tables and views with columns, keys and row counts
  --query FILE.sql    run exactly one SELECT/WITH statement with named :params

The database is opened read-only (URI mode=ro plus PRAGMA query_only), so a
report can never modify it. --db may also point at a .sql dump, which is loaded
into a private in-memory database. Standard library only.

Exit codes: 0 success, 1 the query returned no rows and --fail-on-empty was
given, 2 usage, input or SQL error.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sqlite3
import sys
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_EMPTY, EXIT_USAGE = 0, 1, 2


class ReportError(Exception):
    """The database, query or parameters cannot be used."""


def connect(db: Path) -> sqlite3.Connection:
    if not db.is_file():
        raise ReportError(f"database not found: {db}")
    if db.suffix.lower() == ".sql":
        conn = sqlite3.connect(":memory:")
        try:
            conn.executescript(db.read_text(encoding="utf-8"))
        except sqlite3.Error as exc:
            raise ReportError(f"cannot load SQL dump {db}: {exc}") from None
    else:
        with db.open("rb") as fh:
            if fh.read(16) != b"SQLite format 3\x00":
                raise ReportError(f"not a SQLite database: {db}")
        conn = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
    conn.execute("PRAGMA query_only = ON")
    return conn


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def schema_markdown(conn: sqlite3.Connection) -> str:
    objects = conn.execute(
        "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') "
        "AND name NOT LIKE 'sqlite_%' ORDER BY type, name").fetchall()
    if not objects:
        return "_The database has no tables or views._\n"
    out = []
    for kind, name in objects:
        count = conn.execute(f"SELECT COUNT(*) FROM {quote_ident(name)}").fetchone()[0]
        out += [f"## {kind} `{name}` ({count} rows)", "", "| column | type | not null | pk | default |",
                "|---|---|---|---|---|"]
        for _cid, col, ctype, notnull, default, pk in conn.execute(f"PRAGMA table_info({quote_ident(name)})"):
            out.append(f"| {col} | {ctype or ''} | {'yes' if notnull else ''} | {pk or ''} | "
                       f"{'' if default is None else default} |")
        fks = conn.execute(f"PRAGMA foreign_key_list({quote_ident(name)})").fetchall()
        if fks:
            out += ["", "Foreign keys: " + ", ".join(f"`{fk[3]}` -> `{fk[2]}.{fk[4]}`" for fk in fks)]
        indexes = [r[1] for r in conn.execute(f"PRAGMA index_list({quote_ident(name)})")
                   if not r[1].startswith("sqlite_autoindex")]
        if indexes:
            out += ["", "Indexes: " + ", ".join(f"`{i}`" for i in indexes)]
        out.append("")
    return "\n".join(out)


def parse_params(items: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise ReportError(f"--param needs NAME=VALUE, got {item!r}")
        name, value = item.split("=", 1)
        name = name.strip().lstrip(":")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ReportError(f"invalid parameter name {name!r}")
        params[name] = int(value) if re.fullmatch(r"-?\d+", value) else value
    return params


def run_query(conn: sqlite3.Connection, sql: str, params: dict[str, Any], max_rows: int
              ) -> tuple[list[str], list[tuple[Any, ...]], bool]:
    if not sql.strip():
        raise ReportError("query file is empty")
    code = re.sub(r"'(?:[^']|'')*'|--[^\n]*|/\*.*?\*/", " ", sql, flags=re.DOTALL)  # drop strings, comments
    used = set(re.findall(r"(?<![:\w]):([A-Za-z_][A-Za-z0-9_]*)", code))
    missing = sorted(used - set(params))
    if missing:
        raise ReportError(f"query needs parameter(s) {', '.join(missing)}; pass --param NAME=VALUE")
    unused = sorted(set(params) - used)
    if unused:
        print(f"warning: unused parameter(s): {', '.join(unused)}", file=sys.stderr)
    try:
        cursor = conn.execute(sql, {k: params[k] for k in used})
    except sqlite3.ProgrammingError as exc:
        hint = " (put one statement per file)" if "one statement" in str(exc) else " (use :name parameters)"
        raise ReportError(f"query rejected: {exc}{hint}") from None
    except sqlite3.OperationalError as exc:
        hint = " (the database is opened read-only)" if "readonly" in str(exc) or "write" in str(exc) else ""
        raise ReportError(f"SQL error: {exc}{hint}") from None
    if cursor.description is None:
        raise ReportError("the statement returned no result set; reports need a SELECT or WITH query")
    columns = [d[0] for d in cursor.description]
    rows = cursor.fetchmany(max_rows + 1)
    truncated = len(rows) > max_rows
    return columns, rows[:max_rows], truncated


def cell(value: Any, null: str) -> str:
    if value is None:
        return null
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def to_markdown(columns: list[str], rows: list[tuple[Any, ...]], truncated: bool, title: str | None) -> str:
    def esc(text: str) -> str:
        return text.replace("|", "\\|").replace("\r\n", "<br>").replace("\n", "<br>")

    numeric = [all(isinstance(r[i], (int, float)) for r in rows if r[i] is not None) and
               any(r[i] is not None for r in rows) for i in range(len(columns))]
    out = [f"## {title}", ""] if title else []
    out.append("| " + " | ".join(esc(c) for c in columns) + " |")
    out.append("|" + "|".join("---:" if n else "---" for n in numeric) + "|")
    for row in rows:
        out.append("| " + " | ".join(esc(cell(v, "NULL")) for v in row) + " |")
    note = f"{len(rows)} row{'s' if len(rows) != 1 else ''}"
    out += ["", f"_{note}{' (truncated; raise --max-rows)' if truncated else ''}._"]
    return "\n".join(out) + "\n"


def to_csv(columns: list[str], rows: list[tuple[Any, ...]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([cell(v, "") for v in row] for row in rows)
    return buf.getvalue()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Inspect a SQLite database or run one read-only query file; print Markdown or CSV.",
        epilog="Exit codes: 0 ok, 1 empty result with --fail-on-empty, 2 usage/input/SQL error.",
    )
    parser.add_argument("--db", required=True, help="SQLite database file, or a .sql dump loaded into memory")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--schema", action="store_true", help="describe tables, views, keys and row counts")
    mode.add_argument("--query", help="file with exactly one SELECT/WITH statement")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="bind :NAME (integers are bound as integers); repeatable")
    parser.add_argument("--format", choices=["markdown", "csv"], default="markdown")
    parser.add_argument("--title", help="heading above the Markdown table")
    parser.add_argument("--max-rows", type=int, default=1000, help="row limit (default 1000)")
    parser.add_argument("--output", help="write the result here instead of stdout")
    parser.add_argument("--fail-on-empty", action="store_true", help="exit 1 when the query returns no rows")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    rows: list[tuple[Any, ...]] = []
    try:
        conn = connect(Path(args.db))
        try:
            if args.schema:
                text = schema_markdown(conn)
            else:
                query = Path(args.query)
                if not query.is_file():
                    raise ReportError(f"query file not found: {query}")
                columns, rows, truncated = run_query(conn, query.read_text(encoding="utf-8"),
                                                     parse_params(args.param), args.max_rows)
                text = (to_csv(columns, rows) if args.format == "csv"
                        else to_markdown(columns, rows, truncated, args.title))
        finally:
            conn.close()
    except ReportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except sqlite3.DatabaseError as exc:
        print(f"error: {args.db}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if args.query and not rows and args.fail_on_empty:
        return EXIT_EMPTY
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
