#!/usr/bin/env python3
"""Normalise a messy CSV export to a target schema.

Reads a CSV export, maps its header onto the columns of a JSON schema, parses
every cell strictly (dates, numbers, enums, booleans, null spellings), drops
exact duplicates and rows that repeat a unique key, and writes:

* a clean CSV with exactly the schema's columns, in schema order, with
  canonical values (ISO dates, '.' decimals, canonical enum spellings);
* a rejects CSV with the source line, every reason the row was rejected and
  the row's original cells, so nothing is silently lost.

Only the Python standard library is used. Exit codes: 0 success (rejects may
exist unless --fail-on-rejects), 1 rejects found with --fail-on-rejects,
2 usage or input error (missing file, bad schema, missing required column).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_REJECTS, EXIT_USAGE = 0, 1, 2
TYPES = {"string", "int", "decimal", "date", "bool", "enum"}
DEFAULT_NULLS = ["", "null", "none", "nil", "n/a", "#n/a", "nan", "-", "--", "?"]
SPACES = " \t\u00a0\u2007\u202f"
MONTHS = {
    name: number
    for number, names in enumerate(
        [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
         ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
         ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
         ("dec", "december")],
        start=1,
    )
    for name in names
}
TRUE_WORDS = {"true", "t", "yes", "y", "1"}
FALSE_WORDS = {"false", "f", "no", "n", "0"}


class SchemaError(Exception):
    """The schema file or the CSV header cannot be used."""


class CellError(ValueError):
    """A single cell cannot be converted to its column type."""


def header_key(name: str) -> str:
    """Canonical form used to match CSV headers to schema names and aliases."""
    return re.sub(r"[^a-z0-9]+", "_", name.replace("\ufeff", "").strip().lower()).strip("_")


def load_schema(path: Path) -> dict[str, Any]:
    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SchemaError(f"schema file not found: {path}") from None
    except json.JSONDecodeError as exc:
        raise SchemaError(f"schema {path} is not valid JSON: {exc}") from None
    if not isinstance(schema, dict) or not isinstance(schema.get("columns"), list) or not schema["columns"]:
        raise SchemaError("schema must be an object with a non-empty 'columns' list")
    if schema.get("date_order") not in (None, "DMY", "MDY"):
        raise SchemaError("date_order must be 'DMY' or 'MDY'")
    if schema.get("decimal_separator", "auto") not in ("auto", ".", ","):
        raise SchemaError("decimal_separator must be 'auto', '.' or ','")
    seen: set[str] = set()
    for col in schema["columns"]:
        name = col.get("name") if isinstance(col, dict) else None
        if not isinstance(name, str) or not name:
            raise SchemaError(f"every column needs a 'name': {col!r}")
        if name in seen:
            raise SchemaError(f"column {name!r} is defined twice")
        seen.add(name)
        if col.get("type", "string") not in TYPES:
            raise SchemaError(f"column {name!r}: type must be one of {sorted(TYPES)}")
        if col.get("type") == "enum" and not col.get("values"):
            raise SchemaError(f"column {name!r}: enum columns need a 'values' list")
        places = col.get("places")
        if places is not None and (not isinstance(places, int) or places < 0):
            raise SchemaError(f"column {name!r}: 'places' must be a non-negative integer")
    return schema


def map_header(header: list[str], schema: dict[str, Any]) -> tuple[dict[str, int], list[str]]:
    """Return schema column -> CSV index, plus the CSV columns that are ignored."""
    index = {header_key(h): i for i, h in enumerate(header)}
    mapping: dict[str, int] = {}
    missing = []
    for col in schema["columns"]:
        names = [col["name"], *col.get("aliases", [])]
        found = next((index[header_key(n)] for n in names if header_key(n) in index), None)
        if found is None:
            if col.get("required"):
                missing.append(col["name"])
            continue
        mapping[col["name"]] = found
    if missing:
        raise SchemaError(f"required column(s) missing from CSV header: {', '.join(missing)}")
    used = set(mapping.values())
    ignored = [h.strip() for i, h in enumerate(header) if i not in used]
    return mapping, ignored


def parse_date(text: str, order: str | None) -> date:
    s = text.strip(SPACES)
    m = re.fullmatch(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ](\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(.*))?", s)
    if m:
        if m.group(4) and m.group(5).strip():
            raise CellError(f"timestamp {s!r} carries a timezone; convert it explicitly before cleaning")
        return _make_date(int(m.group(1)), int(m.group(2)), int(m.group(3)), s)
    m = re.fullmatch(r"(\d{4})(\d{2})(\d{2})", s)
    if m:
        return _make_date(int(m.group(1)), int(m.group(2)), int(m.group(3)), s)
    m = re.fullmatch(r"(\d{1,2})([-/.])(\d{1,2})\2(\d{2,4})", s)
    if m:
        a, b, year_text = int(m.group(1)), int(m.group(3)), m.group(4)
        if len(year_text) != 4:
            raise CellError(f"date {s!r} has a two-digit year; the century is ambiguous")
        year = int(year_text)
        if order is None:
            if a <= 12 and b <= 12 and a != b:
                raise CellError(f"date {s!r} is ambiguous (day/month order); set date_order in the schema")
            day, month = (a, b) if a > 12 else (b, a)
            return _make_date(year, month, day, s)
        day, month = (a, b) if order == "DMY" else (b, a)
        try:
            return _make_date(year, month, day, s)
        except CellError:
            other = "MDY" if order == "DMY" else "DMY"
            try:
                _make_date(year, day, month, s)
            except CellError:
                raise CellError(f"invalid date {s!r}") from None
            raise CellError(f"date {s!r} is not valid as {order} (looks {other}); fix the source") from None
    m = re.fullmatch(r"(\d{1,2})[ -]([A-Za-z]{3,9})\.?[ -]?,?\s*(\d{4})", s)
    if m and m.group(2).lower() in MONTHS:
        return _make_date(int(m.group(3)), MONTHS[m.group(2).lower()], int(m.group(1)), s)
    m = re.fullmatch(r"([A-Za-z]{3,9})\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})", s)
    if m and m.group(1).lower() in MONTHS:
        return _make_date(int(m.group(3)), MONTHS[m.group(1).lower()], int(m.group(2)), s)
    raise CellError(f"unrecognised date {s!r}")


def _make_date(year: int, month: int, day: int, source: str) -> date:
    try:
        return date(year, month, day)
    except ValueError as exc:
        raise CellError(f"invalid date {source!r} ({exc})") from None


def _check_grouping(digits: str, sep: str, source: str) -> str:
    groups = digits.split(sep)
    if not (1 <= len(groups[0]) <= 3) or any(len(g) != 3 for g in groups[1:]):
        raise CellError(f"number {source!r} has malformed thousands grouping")
    return "".join(groups)


def parse_decimal(text: str, decimal_sep: str) -> Decimal:
    """Parse '1,234.50', '1.234,50', '€ 99,90', '(45.00)', '12-' and similar."""
    source = text.strip(SPACES)
    s = source
    negative = False
    if s.startswith("(") and s.endswith(")"):
        negative, s = True, s[1:-1]
    s = s.strip(SPACES + "$€£¥")
    if s.endswith("-"):
        negative, s = not negative, s[:-1]
    elif s.startswith(("-", "+")):
        negative, s = (s[0] == "-") != negative, s[1:]
    s = s.strip(SPACES + "$€£¥")
    for ch in SPACES + "'":
        s = s.replace(ch, "")
    if not re.fullmatch(r"[0-9][0-9.,]*|[.,][0-9]+", s) or s.endswith((".", ",")):
        raise CellError(f"not a number: {source!r}")
    dots, commas = s.count("."), s.count(",")
    if dots and commas:
        dec = "." if s.rfind(".") > s.rfind(",") else ","
        thousands = "," if dec == "." else "."
        whole, _, frac = s.rpartition(dec)
        if thousands in frac or whole.count(dec):
            raise CellError(f"number {source!r} mixes separators inconsistently")
        s = _check_grouping(whole, thousands, source) + "." + frac
    elif dots or commas:
        sep = "." if dots else ","
        whole, _, frac = s.rpartition(sep)
        if dots + commas > 1:
            s = _check_grouping(s, sep, source)
        elif decimal_sep != "auto":
            s = whole + "." + frac if sep == decimal_sep else _check_grouping(s, sep, source)
        elif len(frac) != 3 or whole in ("", "0"):
            s = whole + "." + frac
        else:
            raise CellError(
                f"number {source!r} is ambiguous ('{sep}' may be a decimal or thousands separator); "
                "set decimal_separator"
            )
    try:
        value = Decimal(s)
    except InvalidOperation:
        raise CellError(f"not a number: {source!r}") from None
    return -value if negative else value


def convert(raw: str, col: dict[str, Any], schema: dict[str, Any]) -> str:
    """Convert one non-null cell to its canonical text form or raise CellError."""
    kind = col.get("type", "string")
    value = raw.strip(SPACES)
    if kind == "string":
        if col.get("collapse_spaces"):
            value = re.sub(f"[{SPACES}]+", " ", value)
        return value
    if kind == "date":
        return parse_date(value, schema.get("date_order")).isoformat()
    if kind == "bool":
        word = value.lower()
        if word in TRUE_WORDS:
            return "true"
        if word in FALSE_WORDS:
            return "false"
        raise CellError(f"not a boolean: {value!r}")
    if kind == "enum":
        synonyms = {k.lower(): v for k, v in col.get("map", {}).items()}
        canonical = {v.lower(): v for v in col["values"]}
        word = synonyms.get(value.lower(), value).lower()
        if word not in canonical:
            raise CellError(f"{value!r} is not one of {', '.join(col['values'])}")
        return canonical[word]
    if kind == "int":
        compact = value.replace(" ", "").replace("\u00a0", "")
        m = re.fullmatch(r"([+-]?)(\d{1,3}(?:([.,'])\d{3})(?:\3\d{3})*|\d+)", compact)
        if not m:
            raise CellError(f"not an integer: {value!r}")
        number = Decimal(re.sub(r"[.,']", "", m.group(2)))
        number = -number if m.group(1) == "-" else number
    else:
        sep = col.get("decimal_separator", schema.get("decimal_separator", "auto"))
        number = parse_decimal(value, sep)
        places = col.get("places")
        if places is not None:
            exponent = number.as_tuple().exponent
            if isinstance(exponent, int) and -exponent > places:
                raise CellError(f"{value!r} has more than {places} decimal places; refusing to round")
            number = number.quantize(Decimal(1).scaleb(-places))
    if "min" in col and number < Decimal(str(col["min"])):
        raise CellError(f"{value!r} is below the minimum {col['min']}")
    if "max" in col and number > Decimal(str(col["max"])):
        raise CellError(f"{value!r} is above the maximum {col['max']}")
    return str(number)


def clean(args: argparse.Namespace) -> dict[str, Any]:
    schema = load_schema(Path(args.schema))
    columns = schema["columns"]
    nulls = {n.strip().lower() for n in schema.get("null_values", DEFAULT_NULLS)}
    source = Path(args.input)
    if not source.is_file():
        raise SchemaError(f"input CSV not found: {source}")
    stats: dict[str, Any] = {"rows_read": 0, "clean": 0, "rejected": 0, "duplicates": 0, "blank_lines": 0}
    with source.open(newline="", encoding=args.encoding) as fh:
        sample = fh.read(65536)
        fh.seek(0)
        delimiter = args.delimiter
        if delimiter is None:
            try:
                delimiter = csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
            except csv.Error:
                delimiter = ","
        reader = csv.reader(fh, delimiter=delimiter)
        try:
            header = next(reader)
        except StopIteration:
            raise SchemaError(f"input CSV is empty: {source}") from None
        mapping, ignored = map_header(header, schema)
        stats["ignored_columns"] = ignored
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.rejects).parent.mkdir(parents=True, exist_ok=True)
        with Path(args.output).open("w", newline="", encoding="utf-8") as out_fh, Path(args.rejects).open(
            "w", newline="", encoding="utf-8"
        ) as rej_fh:
            out = csv.writer(out_fh)
            rej = csv.writer(rej_fh)
            out.writerow([c["name"] for c in columns])
            rej.writerow(["line", "reasons", *[h.replace("\ufeff", "").strip() for h in header]])
            seen_rows: dict[tuple[str, ...], int] = {}
            seen_keys: dict[tuple[str, str], int] = {}
            last_line = reader.line_num
            for row in reader:
                line = last_line + 1
                last_line = reader.line_num
                if not any(cell.strip(SPACES) for cell in row):
                    stats["blank_lines"] += 1
                    continue
                stats["rows_read"] += 1
                reasons: list[str] = []
                values: list[str] = []
                if len(row) != len(header):
                    reasons.append(f"expected {len(header)} fields, got {len(row)}")
                else:
                    for col in columns:
                        idx = mapping.get(col["name"])
                        raw = row[idx] if idx is not None else ""
                        if raw.strip(SPACES).lower() in nulls:
                            if col.get("required"):
                                shown = f" (got {raw.strip()!r})" if raw.strip() else ""
                                reasons.append(f"{col['name']}: required value missing{shown}")
                            values.append("")
                            continue
                        try:
                            values.append(convert(raw, col, schema))
                        except CellError as exc:
                            reasons.append(f"{col['name']}: {exc}")
                            values.append("")
                if not reasons:
                    key = tuple(values)
                    if key in seen_rows and schema.get("dedupe", True):
                        reasons.append(f"duplicate of line {seen_rows[key]}")
                        stats["duplicates"] += 1
                    else:
                        for col, value in zip(columns, values, strict=True):
                            if col.get("unique") and value:
                                first = seen_keys.get((col["name"], value))
                                if first is not None:
                                    reasons.append(
                                        f"{col['name']}: duplicate key {value} (first seen on line {first}) "
                                        "with different values"
                                    )
                if reasons:
                    stats["rejected"] += 1
                    rej.writerow([line, "; ".join(reasons), *row])
                    continue
                seen_rows[tuple(values)] = line
                for col, value in zip(columns, values, strict=True):
                    if col.get("unique") and value:
                        seen_keys[(col["name"], value)] = line
                stats["clean"] += 1
                out.writerow(values)
    return stats


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Normalise a messy CSV export to a JSON schema; write clean rows and rejects with reasons.",
        epilog="Exit codes: 0 ok, 1 rejects present (with --fail-on-rejects), 2 usage/input error.",
    )
    parser.add_argument("input", help="CSV export to clean")
    parser.add_argument("--schema", required=True, help="JSON schema file (see SKILL.md)")
    parser.add_argument("--output", required=True, help="path for the clean CSV")
    parser.add_argument("--rejects", required=True, help="path for the rejected rows CSV")
    parser.add_argument("--delimiter", help="field delimiter (default: sniffed from , ; tab |)")
    parser.add_argument("--encoding", default="utf-8-sig", help="input encoding (default: utf-8-sig)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--fail-on-rejects", action="store_true", help="exit 1 if any row was rejected")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        stats = clean(args)
    except SchemaError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except UnicodeDecodeError as exc:
        print(f"error: cannot decode {args.input} as {args.encoding}: {exc}; try --encoding cp1252", file=sys.stderr)
        return EXIT_USAGE
    except csv.Error as exc:
        print(f"error: malformed CSV in {args.input}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(stats, indent=2))
    else:
        print(
            f"rows read: {stats['rows_read']}  clean: {stats['clean']}  rejected: {stats['rejected']} "
            f"(duplicates: {stats['duplicates']})  blank lines skipped: {stats['blank_lines']}"
        )
        if stats["ignored_columns"]:
            print(f"ignored columns: {', '.join(stats['ignored_columns'])}")
    if args.fail_on_rejects and stats["rejected"]:
        return EXIT_REJECTS
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
