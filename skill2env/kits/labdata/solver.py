"""Reference solver for the lab-data kit.

It reads the protocol (units, saturation limit), the instrument metadata (each instrument's units),
the calibration table and the notes correcting it, the notebook's decisions (instrument exclusions
by date range, sample exclusions; proposals not adopted are ignored), the QC list (rejected samples,
not the re-admitted ones) and every export (CSV, TSV, vendor text: header block, units, blank). Each
reading is converted to the protocol's units, its blank removed where the export says it was not
subtracted, calibrated with the row valid on its run date, and only then tested against the
saturation limit; the analysis set feeds the least-squares fit, the per-dose means and the report.
"""

from __future__ import annotations

import json
import math
import re
from datetime import date
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime

PREFIXES = {"": 1.0, "m": 1e-3, "µ": 1e-6, "μ": 1e-6, "u": 1e-6, "n": 1e-9}
DATE = r"(\d{4}-\d{2}-\d{2})"


def factor(unit: str, target: str) -> float:
    """What a value in `unit` is multiplied by to be in `target` (same quantity, another SI prefix)."""
    if unit == target:
        return 1.0
    for p, a in PREFIXES.items():
        for q, b in PREFIXES.items():
            if unit.startswith(p) and target.startswith(q) and unit[len(p) :] == target[len(q) :] and unit[len(p) :]:
                return a / b
    raise ValueError(f"cannot convert {unit} to {target}")


def header_value(lines: list[str], *keys: str) -> str:
    for line in lines:
        found = re.match(r"^#?\s*([A-Za-z_ ]+?)\s*:\s*(.*)$", line)
        if found and found.group(1).strip().lower().replace(" ", "_") in keys:
            return found.group(2).strip()
    return ""


def bracket(name: str) -> str:
    found = re.search(r"\[(.+?)\]", name)
    return found.group(1).strip() if found else ""


def parse_export(text: str) -> dict[str, Any]:
    """Header fields and rows (time, sample, dose, signal) of a CSV / TSV / vendor text export."""
    lines = text.splitlines()
    if any(line.strip() == "[DATA]" for line in lines):
        start = next(i for i, line in enumerate(lines) if line.strip() == "[DATA]")
        head, table = lines[:start], [line for line in lines[start + 1 :] if line.strip() and line.strip() != "[END]"]
    else:
        head = [line for line in lines if line.startswith("#")]
        table = [line for line in lines if line.strip() and not line.startswith("#")]
    delimiter = "\t" if "\t" in table[0] else ","
    comma = header_value(head, "decimal_separator").lower() == "comma"

    def number(text: str) -> str:
        return text.strip().replace(",", ".") if comma else text.strip()

    columns = [c.strip() for c in table[0].split(delimiter)]
    dose_col = next(i for i, c in enumerate(columns) if c.lower().startswith("dose"))
    signal_col = next(i for i, c in enumerate(columns) if c.lower().startswith("signal"))
    rows = []
    for line in table[1:]:
        cells = line.split(delimiter)
        dose = number(cells[dose_col])
        rows.append({"sample": cells[1].strip(), "dose": None if dose in ("", "-") else float(dose),
                     "signal": float(number(cells[signal_col]))})  # fmt: skip
    return {
        "instrument": header_value(head, "instrument", "instrument_id"),
        "day": header_value(head, "run_date"),
        "signal_unit": bracket(columns[signal_col]) or header_value(head, "signal_unit"),
        "dose_unit": bracket(columns[dose_col]) or header_value(head, "dose_unit"),
        "blank_subtracted": header_value(head, "blank_subtracted").lower() not in ("no", "false", "off"),
        "blank": float(number(header_value(head, "blank_level")) or 0),
        "rows": rows,
    }


def calibrations() -> list[dict[str, Any]]:
    text = rt.read_text(rt.workspace() / "calibration" / "calibrations.csv")
    lines = text.splitlines()
    names = lines[0].split(",")
    rows: list[dict[str, str]] = [dict(zip(names, line.split(","), strict=True)) for line in lines[1:] if line.strip()]
    notes = rt.read_text(rt.workspace() / "calibration" / "notes.md")
    fixes: dict[str, str] = dict(re.findall(r"certificate (\S+) .*?the certificate says (\d+\.\d+)", notes))
    offset = next(n for n in names if n.startswith("offset"))
    return [
        {
            "instrument": row["instrument"],
            "from": date.fromisoformat(row["valid_from"]),
            "to": date.fromisoformat(row["valid_to"]),
            "offset": float(row[offset]),
            "gain": float(fixes.get(row["certificate"], row["gain"])),
        }
        for row in rows
    ]


def exclusions() -> tuple[list[tuple[str, date, date]], set[str]]:
    """(instrument, first day, last day) and sample ids the notebook's decisions exclude."""
    text = rt.read_text(rt.workspace() / "notebook" / "decisions.md")
    spans, samples = [], set()
    for instrument, first, last in re.findall(
        rf"\*\*Decision:\*\* exclude (\S+) readings from {DATE}(?: to {DATE}| onward)", text
    ):
        spans.append((instrument, date.fromisoformat(first), date.fromisoformat(last) if last else date.max))
    for instrument, day in re.findall(rf"\*\*Decision:\*\* exclude (\S+) readings of {DATE}", text):
        spans.append((instrument, date.fromisoformat(day), date.fromisoformat(day)))
    samples |= {s.upper() for s in re.findall(r"\*\*Decision:\*\* exclude sample (\S+)", text)}
    return spans, samples


def rejected_samples() -> set[str]:
    rejected: set[str] = set()
    readmitted = False
    for line in rt.read_text(rt.workspace() / "qc" / "rejected_samples.txt").splitlines():
        if line.startswith("#"):
            readmitted = "re-admitted" in line.lower()
            continue
        if line.strip() and not readmitted and not line.startswith("("):
            rejected.add(line.split()[0].upper())
    return rejected


def calibrate(row: dict[str, Any], export: dict[str, Any], to_signal: float, cal: dict[str, Any]) -> float:
    """A reading in the protocol's unit, its blank removed when the export kept it, calibrated."""
    signal = row["signal"] * to_signal
    if not export["blank_subtracted"]:
        signal -= export["blank"] * to_signal
    return float((signal - cal["offset"]) * cal["gain"])


def least_squares(points: list[tuple[float, float]]) -> tuple[float, float]:
    n = len(points)
    mx = math.fsum(x for x, _ in points) / n
    my = math.fsum(y for _, y in points) / n
    sxx = math.fsum((x - mx) ** 2 for x, _ in points)
    sxy = math.fsum((x - mx) * (y - my) for x, y in points)
    return sxy / sxx, my - sxy / sxx * mx


def main() -> None:
    protocol = rt.read_text(rt.workspace() / "protocol.md")
    unit, dose_unit = re.findall(r"Report every signal in `(.+?)` and every dose in `(.+?)`", protocol)[0]
    limit_found = re.search(r"saturation limit is ([\d.]+)", protocol)
    limit = float(limit_found.group(1)) if limit_found else math.inf
    nominal = re.search(r"nominal signal of the reference standard is ([\d.]+)", protocol)
    metadata = json.loads(rt.read_text(rt.workspace() / "instruments.json"))
    units = {i["id"]: (i["signal_unit"], i["dose_unit"]) for i in metadata["instruments"]}
    codes = {i["id"]: float(i["missing_value_code"]) for i in metadata["instruments"]}
    table = calibrations()
    spans, samples = exclusions()
    samples |= rejected_samples()
    points: list[tuple[float, float]] = []
    left_out = {"notebook": 0, "qc": 0, "saturated": 0, "missing": 0}
    for path in rt.files("data/runs/*"):
        export = parse_export(rt.read_text(path))
        instrument, day = export["instrument"], date.fromisoformat(export["day"])
        signal_unit = export["signal_unit"] or units[instrument][0]
        to_signal = factor(signal_unit, unit)
        to_dose = factor(export["dose_unit"] or units[instrument][1], dose_unit)
        cal = next(c for c in table if c["instrument"] == instrument and c["from"] <= day <= c["to"])
        references = [
            calibrate(row, export, to_signal, cal) for row in export["rows"] if row["sample"].upper().startswith("REF")
        ]
        scale = float(nominal.group(1)) / (math.fsum(references) / len(references)) if nominal and references else 1.0
        for row in export["rows"]:
            if row["sample"].upper().startswith("REF"):
                continue
            value = calibrate(row, export, to_signal, cal)
            if row["signal"] == codes[instrument]:
                left_out["missing"] += 1
            elif any(i == instrument and a <= day <= b for i, a, b in spans):
                left_out["notebook"] += 1
            elif row["sample"].upper() in samples:
                left_out["qc"] += 1
            elif value > limit:
                left_out["saturated"] += 1
            else:
                points.append((row["dose"] * to_dose, value * scale))
    slope, intercept = least_squares(points)
    rt.write_json("fit.json", {"slope": slope, "intercept": intercept, "slope_unit": f"{unit} per {dose_unit}",
                               "intercept_unit": unit, "n": len(points)})  # fmt: skip
    if rt.partial_mode():
        return
    doses = sorted({round(d, 9) for d, _ in points})
    rows = []
    for dose in doses:
        values = [v for d, v in points if abs(d - dose) < 1e-9]
        shown: Any = int(dose) if dose == int(dose) else dose
        rows.append([shown, f"{math.fsum(values) / len(values):.6f}", len(values)])
    rt.write_csv("condition_means.csv", ["dose", "mean_signal", "n"], rows)
    rt.write_text(
        "report.md",
        "\n".join(
            [
                "# Dose-response analysis",
                "",
                f"Slope: {slope:.3f} {unit} per {dose_unit}",
                f"Intercept: {intercept:.3f} {unit}",
                f"Readings used: {len(points)}",
                "",
                f"Left out: {left_out['notebook']} readings excluded by the notebook's decisions, "
                f"{left_out['qc']} of samples excluded at QC or by decision, {left_out['saturated']} saturated "
                f"(above the limit once calibrated), {left_out['missing']} missing (the instrument's code).",
                "",
            ]
        ),
    )


if __name__ == "__main__":
    main()
