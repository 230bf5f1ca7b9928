"""Naive baseline for the lab-data kit: it reads every export's numbers at face value (no units, no
blank), calibrates each instrument with its first row of the calibration table, keeps every reading
(no notebook decisions, no QC list, no saturation limit) and fits the lot. It never opens the
notebook, the QC list, the calibration notes or the instrument metadata."""

from __future__ import annotations

import math
import re

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
    for path in rt.files("data/runs/*"):
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
            points.append((float(cells[dose_col]), (float(cells[signal_col]) - offset) * gain))
    n = len(points)
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    slope = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)
    intercept = my - slope * mx
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
