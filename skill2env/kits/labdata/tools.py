"""The lab's scripts in `tools/`: a fitting script and an export reader, each with defaults a
pattern makes wrong for this series, and the README that documents them (or sends the reader to
`--help`)."""

from __future__ import annotations

from skill2env.kits.labdata.patterns import FIT_TOOL, READER_TOOL, TOOL_README
from skill2env.kits.labdata.world import FitTool, ReaderTool, World

TOOL_SOURCE = '''#!/usr/bin/env python3
"""Fit a straight line (ordinary least squares) to dose-response readings.

Usage: python3 tools/fit_response.py READINGS.csv [options]

READINGS.csv holds one reading per row with the columns `dose` and `signal` (calibrated, in the
study's units). The result is printed as JSON: slope, intercept and n (the readings fitted).
"""

import argparse
import csv
import json


def main():
    parser = argparse.ArgumentParser(description="Straight-line fit of signal against dose.")
    parser.add_argument("readings", help="CSV with the columns dose and signal")
    parser.add_argument("--BLANK_FLAG", action="store_true", help="BLANK_HELP")
    parser.add_argument("--digits", type=int, default=DIGITS, help="decimals of the printed results (default DIGITS)")
    args = parser.parse_args()
    with open(args.readings, newline="") as handle:
        points = [(float(row["dose"]), float(row["signal"])) for row in csv.DictReader(handle)]
    if BLANK_TEST:
        points = [(x, y) for x, y in points if x != 0]
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    slope = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)
    intercept = my - slope * mx
    print(json.dumps({"slope": round(slope, args.digits), "intercept": round(intercept, args.digits), "n": n}))


if __name__ == "__main__":
    main()
'''


READER_SOURCE = """#!/usr/bin/env python3
\"\"\"Read an instrument export (CSV, TSV or the vendor's text export) into one CSV on stdout.

Usage: python3 tools/read_export.py EXPORT [options]

The output has the columns instrument, run_date, sample, dose and signal, the numbers as the export
writes them (no unit conversion, no blank, no calibration).
\"\"\"

import argparse
import csv
import re
import sys


def number(text, decimal_comma):
    text = text.strip()
    text = text.replace(",", ".") if decimal_comma else text.replace(",", "")
    try:
        return float(text)
    except ValueError:
        return text


def main():
    parser = argparse.ArgumentParser(description="Instrument export to CSV.")
    parser.add_argument("export", help="a CSV, TSV or vendor text export")
    parser.add_argument("--decimal-comma", action="store_true",
                        help="read commas as decimal marks (by default a comma separates thousands)")
    args = parser.parse_args()
    with open(args.export, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    head = re.compile(r"^#?\\s*(instrument|instrument id|run date|run_date)\\s*:\\s*(\\S+)", re.I)
    fields = {}
    for line in lines:
        found = head.match(line)
        if found:
            fields[found.group(1).lower().replace(" ", "_").replace("_id", "")] = found.group(2)
    if "[DATA]" in lines:
        lines = lines[lines.index("[DATA]") + 1 :]
    table = [line for line in lines if line.strip() and not line.startswith("#") and ("\\t" in line or "," in line)]
    delimiter = "\\t" if "\\t" in table[0] else ","
    columns = [c.strip().lower() for c in table[0].split(delimiter)]
    dose = next(i for i, c in enumerate(columns) if c.startswith("dose"))
    signal = next(i for i, c in enumerate(columns) if c.startswith("signal"))
    sample = next(i for i, c in enumerate(columns) if c.startswith("sample"))
    writer = csv.writer(sys.stdout, lineterminator="\\n")
    writer.writerow(["instrument", "run_date", "sample", "dose", "signal"])
    for line in table[1:]:
        cells = line.split(delimiter)
        writer.writerow([fields.get("instrument", ""), fields.get("run_date", ""), cells[sample].strip(),
                         number(cells[dose], args.decimal_comma), number(cells[signal], args.decimal_comma)])


if __name__ == "__main__":
    main()
"""


def fit_source(tool: FitTool) -> str:
    if tool.skips_blanks:
        flag, helptext, test = (
            "keep-blanks",
            "also fit the zero-dose (blank) readings; by default they are left "
            "out, as for blank-subtracted standard curves",
            "not args.keep_blanks",
        )
    else:
        flag, helptext, test = "skip-blanks", "leave the zero-dose (blank) readings out of the fit", "args.skip_blanks"
    return (TOOL_SOURCE.replace("BLANK_FLAG", flag).replace("BLANK_HELP", helptext).replace("BLANK_TEST", test)
            .replace("DIGITS", str(tool.digits)))  # fmt: skip


def fit_readme(tool: FitTool) -> list[str]:
    lines = [
        "## fit_response.py",
        "",
        "Fits signal against dose by ordinary least squares and prints the slope, the intercept and n as JSON:",
        "",
        "    python3 tools/fit_response.py readings.csv [options]",
        "",
        "`readings.csv` has the columns `dose` and `signal`, one calibrated reading per row.",
        "",
    ]
    if not tool.documented:
        return [*lines, "Run it with `--help` for its options.", ""]
    blanks = (
        "By default it leaves the zero-dose (blank) readings out of the fit; `--keep-blanks` fits them too."
        if tool.skips_blanks
        else "It fits every reading it is given; `--skip-blanks` leaves the zero-dose readings out."
    )
    return [*lines, blanks, f"It prints {tool.digits} decimals unless `--digits` says otherwise.", ""]


def reader_readme(tool: ReaderTool) -> list[str]:
    lines = [
        "## read_export.py",
        "",
        "Reads one instrument export (CSV, TSV or the vendor's text export) and writes its readings as CSV",
        "(instrument, run_date, sample, dose, signal), the numbers as exported:",
        "",
        "    python3 tools/read_export.py data/runs/<export> [options]",
        "",
    ]
    if not tool.documented:
        return [*lines, "Run it with `--help` for its options.", ""]
    return [*lines, "A comma in a number is read as a thousands separator unless `--decimal-comma` is given.", ""]


def lab_tools(world: World) -> dict[str, str]:
    """The scripts the series' patterns put in `tools/`, with their README (none without a pattern)."""
    files, readme = {}, ["# Lab tools", ""]
    if world.tool is not None:
        files[FIT_TOOL] = fit_source(world.tool)
        readme += fit_readme(world.tool)
    if world.reader is not None:
        files[READER_TOOL] = READER_SOURCE
        readme += reader_readme(world.reader)
    if files:
        files[TOOL_README] = "\n".join(readme)
    return files
