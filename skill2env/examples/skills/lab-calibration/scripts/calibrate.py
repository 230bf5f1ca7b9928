#!/usr/bin/env python3
"""Calibrate instrument readings and fit a dose-response line.

Inputs:

  readings     one or more CSV/TSV exports (delimiter from the extension or sniffed),
               columns: timestamp, instrument, sample_id, dose (<unit>), signal (<unit>)
               - the unit is part of the header, e.g. "dose (nM)" or "signal [V]"
  calibration  CSV: instrument, valid_from, valid_to, offset, gain, unit
               corrected = (raw - offset) * gain, offset given in `unit`;
               an empty valid_to means "still valid"
  decisions    CSV: date, action (exclude | reinstate), sample_id, reason
               the latest action per sample wins

Every reading is converted to --dose-unit / --signal-unit, calibrated with the
row valid on its date for its instrument, and fitted by ordinary least squares
(signal = slope * dose + intercept). Standard library only.

Exit codes: 0 fit done, 1 fit impossible (fewer than 2 usable readings or one
dose only), 2 usage or input error.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import sys
from datetime import date, datetime
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_NO_FIT, EXIT_USAGE = 0, 1, 2
SCALE = {
    "M": 1.0, "mM": 1e-3, "uM": 1e-6, "µM": 1e-6, "μM": 1e-6, "nM": 1e-9, "pM": 1e-12,
    "V": 1.0, "mV": 1e-3, "uV": 1e-6, "µV": 1e-6, "μV": 1e-6,
}  # fmt: skip
KIND = {u: ("concentration" if u.endswith("M") else "voltage") for u in SCALE}
HEADER = re.compile(r"^\s*([A-Za-z_ ]+?)\s*[(\[]\s*([^)\]]+?)\s*[)\]]\s*$")


class InputError(Exception):
    """An input file is missing or malformed."""


def convert(value: float, unit: str, target: str) -> float:
    if unit not in SCALE or target not in SCALE:
        raise InputError(f"unknown unit {unit if unit not in SCALE else target!r}")
    if KIND[unit] != KIND[target]:
        raise InputError(f"cannot convert {unit} to {target}")
    return value * SCALE[unit] / SCALE[target]


def read_table(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        raise InputError(f"file not found: {path}")
    text = path.read_text(encoding="utf-8-sig")
    if path.suffix.lower() in {".tsv", ".tab"}:
        delimiter = "\t"
    elif path.suffix.lower() == ".csv":
        delimiter = ","
    else:
        delimiter = csv.Sniffer().sniff(text.splitlines()[0] if text else ",", delimiters=",;\t").delimiter
    numbered = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip() and line.lstrip()[0] != "#"]
    rows = list(csv.DictReader((line for _, line in numbered), delimiter=delimiter))
    for (n, _), row in zip(numbered[1:], rows, strict=False):
        row["__line__"] = str(n)  # line in the file, comments and blank lines counted
    return rows


def split_header(name: str) -> tuple[str, str | None]:
    match = HEADER.match(name)
    if match:
        return match.group(1).strip().lower().replace(" ", "_"), match.group(2).strip()
    return name.strip().lower().replace(" ", "_"), None


def parse_day(value: str, where: str) -> date:
    value = value.strip()
    try:
        return (
            datetime.fromisoformat(value.replace("Z", "+00:00")).date()
            if "T" in value or " " in value
            else (date.fromisoformat(value))
        )
    except ValueError as exc:
        raise InputError(f"{where}: invalid date {value!r}") from exc


def number(value: str, where: str) -> float:
    try:
        result = float(value.strip().replace(",", "."))
    except ValueError as exc:
        raise InputError(f"{where}: not a number {value!r}") from exc
    if not math.isfinite(result):
        raise InputError(f"{where}: not a finite number {value!r}")
    return result


def load_readings(path: Path) -> list[dict[str, Any]]:
    rows = read_table(path)
    if not rows:
        return []
    columns = {split_header(name)[0]: (name, split_header(name)[1]) for name in rows[0] if name != "__line__"}
    for needed in ("timestamp", "instrument", "sample_id", "dose", "signal"):
        if needed not in columns:
            raise InputError(f"{path}: column {needed!r} missing (have {', '.join(c[0] for c in columns.values())})")
    for needed in ("dose", "signal"):
        if columns[needed][1] is None:
            raise InputError(f"{path}: column {columns[needed][0]!r} has no unit in its header")
    out = []
    for row in rows:
        line = int(row["__line__"])
        where = f"{path.name}:{line}"
        out.append({
            "source": path.name,
            "line": line,
            "timestamp": row[columns["timestamp"][0]].strip(),
            "day": parse_day(row[columns["timestamp"][0]], where),
            "instrument": row[columns["instrument"][0]].strip(),
            "sample_id": row[columns["sample_id"][0]].strip(),
            "dose": number(row[columns["dose"][0]], where),
            "dose_unit": columns["dose"][1],
            "signal": number(row[columns["signal"][0]], where),
            "signal_unit": columns["signal"][1],
        })  # fmt: skip
    return out


def load_calibration(path: Path) -> list[dict[str, Any]]:
    table = []
    for row in read_table(path):
        where = f"{path.name}:{row['__line__']}"
        try:
            table.append({
                "instrument": row["instrument"].strip(),
                "from": parse_day(row["valid_from"], where),
                "to": parse_day(row["valid_to"], where) if (row.get("valid_to") or "").strip() else date.max,
                "offset": number(row["offset"], where),
                "gain": number(row["gain"], where),
                "unit": row["unit"].strip(),
            })  # fmt: skip
        except KeyError as exc:
            raise InputError(f"{path}: column {exc.args[0]!r} missing") from exc
    return table


def load_decisions(path: Path | None) -> dict[str, dict[str, str]]:
    if path is None:
        return {}
    latest: dict[str, dict[str, str]] = {}
    rows = read_table(path)
    for row in sorted(rows, key=lambda r: (parse_day(r["date"], f"{path.name}:{r['__line__']}"), int(r["__line__"]))):
        line = row["__line__"]
        action = row["action"].strip().lower()
        if action not in {"exclude", "reinstate"}:
            raise InputError(f"{path.name}:{line}: action must be exclude or reinstate, got {action!r}")
        latest[row["sample_id"].strip()] = {"action": action, "date": row["date"].strip(), "reason": row["reason"]}
    return latest


def calibration_for(table: list[dict[str, Any]], instrument: str, day: date) -> list[dict[str, Any]]:
    return [c for c in table if c["instrument"] == instrument and c["from"] <= day <= c["to"]]


def fit_line(xs: list[float], ys: list[float]) -> dict[str, float] | None:
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    slope = sxy / sxx
    intercept = my - slope * mx
    ss_res = sum((y - (slope * x + intercept)) ** 2 for x, y in zip(xs, ys, strict=True))
    ss_tot = sum((y - my) ** 2 for y in ys)
    r2 = 1.0 - ss_res / ss_tot if ss_tot else 1.0
    se_slope = math.sqrt(ss_res / (n - 2) / sxx) if n > 2 else 0.0
    return {"n": n, "slope": slope, "intercept": intercept, "r2": r2, "slope_stderr": se_slope}


def rnd(value: float, digits: int = 6) -> float:
    return float(f"{value:.{digits}g}") if value else 0.0


def process(args: argparse.Namespace) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    readings = [r for path in args.readings for r in load_readings(path)]
    table = load_calibration(args.calibration)
    decisions = load_decisions(args.decisions)
    used, skipped = [], []
    for r in readings:
        ref = f"{r['source']}:{r['line']} {r['sample_id']}"
        decision = decisions.get(r["sample_id"])
        if decision and decision["action"] == "exclude":
            skipped.append({"reading": ref, "reason": f"excluded {decision['date']}: {decision['reason'].strip()}"})
            continue
        cals = calibration_for(table, r["instrument"], r["day"])
        if len(cals) != 1:
            why = "no calibration" if not cals else f"{len(cals)} overlapping calibrations"
            skipped.append({"reading": ref, "reason": f"{why} for {r['instrument']} on {r['day']}"})
            continue
        cal = cals[0]
        raw = convert(r["signal"], r["signal_unit"], cal["unit"])
        corrected = convert((raw - cal["offset"]) * cal["gain"], cal["unit"], args.signal_unit)
        dose = convert(r["dose"], r["dose_unit"], args.dose_unit)
        used.append({**r, "dose_out": dose, "signal_out": corrected})
    fit = fit_line([u["dose_out"] for u in used], [u["signal_out"] for u in used])
    summary: dict[str, Any] = {
        "readings": len(readings),
        "used": len(used),
        "skipped": skipped,
        "dose_unit": args.dose_unit,
        "signal_unit": args.signal_unit,
        "fit": None if fit is None else {k: (v if k == "n" else rnd(v)) for k, v in fit.items()},
    }
    return summary, used


def write_calibrated(path: Path, used: list[dict[str, Any]], dose_unit: str, signal_unit: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["timestamp", "instrument", "sample_id", f"dose ({dose_unit})", f"signal ({signal_unit})"])
        for u in sorted(used, key=lambda u: (u["timestamp"], u["sample_id"])):
            writer.writerow([u["timestamp"], u["instrument"], u["sample_id"], rnd(u["dose_out"]), rnd(u["signal_out"])])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Calibrate instrument readings and fit signal = slope * dose + intercept.",
        epilog="Exit codes: 0 fit done, 1 no fit possible, 2 usage or input error.",
    )
    parser.add_argument("readings", nargs="+", type=Path, help="CSV/TSV instrument exports")
    parser.add_argument("--calibration", required=True, type=Path, help="calibration table (CSV)")
    parser.add_argument("--decisions", type=Path, help="decisions log (CSV): exclude / reinstate per sample")
    parser.add_argument("--dose-unit", default="uM", help="unit of dose in the output (default uM)")
    parser.add_argument("--signal-unit", default="mV", help="unit of signal in the output (default mV)")
    parser.add_argument("--output", type=Path, help="write the calibrated readings here (CSV)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        for unit in (args.dose_unit, args.signal_unit):
            if unit not in SCALE:
                raise InputError(f"unknown unit {unit!r} (known: {', '.join(SCALE)})")
        if args.decisions is not None and not args.decisions.is_file():
            raise InputError(f"decisions log not found: {args.decisions}")
        if not args.calibration.is_file():
            raise InputError(f"calibration table not found: {args.calibration}")
        for path in args.readings:
            if not path.is_file():
                raise InputError(f"readings file not found: {path}")
        summary, used = process(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyError as exc:
        print(f"error: column {exc.args[0]!r} missing from an input table", file=sys.stderr)
        return EXIT_USAGE
    if args.output:
        write_calibrated(args.output, used, args.dose_unit, args.signal_unit)
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        print(f"readings: {summary['readings']}  used: {summary['used']}  skipped: {len(summary['skipped'])}")
        for s in summary["skipped"]:
            print(f"  skipped {s['reading']}: {s['reason']}")
        fit = summary["fit"]
        if fit:
            print(f"signal ({args.signal_unit}) = {fit['slope']} * dose ({args.dose_unit}) + {fit['intercept']}"
                  f"  (n={fit['n']}, r2={fit['r2']}, slope stderr {fit['slope_stderr']})")  # fmt: skip
    if summary["fit"] is None:
        print("error: fewer than two usable readings at distinct doses; no fit", file=sys.stderr)
        return EXIT_NO_FIT
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
