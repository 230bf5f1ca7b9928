"""Naive baseline for the lab-data kit: it reads every export's numbers at face value (no units, no
blank), calibrates each instrument with its first row of the calibration table, keeps every reading
(no notebook decisions, no QC list, no saturation limit) and fits the lot. It never opens the
notebook, the QC list, the calibration notes or the instrument metadata. When the lab's fitting script
or its export reader is in `tools/`, it uses them with their defaults."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import subprocess
import tempfile

from skill2env.kits.runtime import rt  # kit-runtime


def main() -> None:
    protocol = rt.read_text(rt.workspace() / "protocol.md")
    unit, dose_unit = re.findall(r"Report every signal in `(.+?)` and every dose in `(.+?)`", protocol)[0]
    lines = rt.read_text(rt.workspace() / "calibration" / "calibrations.csv").splitlines()
    calibration: dict[str, tuple[float, float]] = {}
    for line in lines[1:]:
        cells = line.split(",")
        calibration.setdefault(cells[0], (float(cells[4]), float(cells[5])))
    points: list[tuple[float, float]] = []
    reader = rt.workspace() / "tools" / "read_export.py"
    for path in rt.files("data/runs/*"):
        if reader.exists():
            done = subprocess.run(["python3", str(reader), str(path)], capture_output=True, text=True, check=True)
            for row in csv.DictReader(io.StringIO(done.stdout)):
                offset, gain = calibration.get(row["instrument"], (0.0, 1.0))
                try:
                    points.append((float(row["dose"]), (float(row["signal"]) - offset) * gain))
                except ValueError:  # a row without a number (a reference reading has no dose)
                    continue
            continue
        text = rt.read_text(path)
        instrument = re.search(r"instrument(?: id)?\s*:\s*(\S+)", text, re.I)
        offset, gain = calibration[instrument.group(1)] if instrument else (0.0, 1.0)
        body = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
        if "[DATA]" in body:
            body = body[body.index("[DATA]") + 1 :]
        body = [line for line in body if "\t" in line or "," in line]
        delimiter = "\t" if "\t" in body[0] else ","
        header = [c.strip().lower() for c in body[0].split(delimiter)]
        dose_col = next(i for i, c in enumerate(header) if c.startswith("dose"))
        signal_col = next(i for i, c in enumerate(header) if c.startswith("signal"))
        for line in body[1:]:
            cells = line.split(delimiter)
            try:
                points.append((float(cells[dose_col]), (float(cells[signal_col]) - offset) * gain))
            except ValueError:  # a row without a number (a reference reading has no dose)
                continue
    n = len(points)
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    slope = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)
    intercept = my - slope * mx
    tool = rt.workspace() / "tools" / "fit_response.py"
    if tool.exists():
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as handle:
            handle.write("dose,signal\n" + "".join(f"{x},{y}\n" for x, y in points))
        done = subprocess.run(["python3", str(tool), handle.name], capture_output=True, text=True, check=True)
        fitted = json.loads(done.stdout)
        slope, intercept, n = fitted["slope"], fitted["intercept"], fitted["n"]
    rt.write_json("fit.json", {"slope": slope, "intercept": intercept, "slope_unit": f"{unit} per {dose_unit}",
                               "intercept_unit": unit, "n": n})  # fmt: skip
    rows: list[list[object]] = []
    for dose in sorted({x for x, _ in points}):
        values = [y for x, y in points if x == dose]
        label = f"{dose:g}" if dose != int(dose) else str(int(dose))
        rows.append([label, f"{math.fsum(values) / len(values):.6f}", len(values)])
    rt.write_csv("condition_means.csv", ["dose", "mean_signal", "n"], rows)
    rt.write_text("report.md", f"# Analysis\n\nSlope: {slope:.3f}\nIntercept: {intercept:.3f}\nReadings used: {n}\n")


if __name__ == "__main__":
    main()
