"""Render the lab-data world: the instrument exports (CSV and TSV with a `#` header block, the
vendor's text export with a key-value header and a `[DATA]` section), the instrument metadata (JSON),
the calibration table and its notes, the lab notebook's decisions log, the QC list and the protocol."""

from __future__ import annotations

from datetime import timedelta

from skill2env.kits import render as r
from skill2env.kits.labdata.patterns import (
    CALIBRATION_NOTES,
    CALIBRATIONS,
    DECISIONS,
    FIT_TOOL,
    METADATA,
    PROTOCOL,
    REJECTED,
    TOOL_README,
)
from skill2env.kits.labdata.tools import lab_tools
from skill2env.kits.labdata.world import MISSING_CODES, Export, World, decimals
from skill2env.kits.spec import Workspace


def number(value: float, places: int) -> str:
    return f"{value:.{places}f}"


def dose_text(value: float) -> str:
    return f"{value:g}" if value != int(value) else str(int(value))


def export_text(world: World, export: Export) -> str:
    readings = world.readings_of(export.instrument, export.day)
    places = decimals(export.factor)
    operator = export.operator
    blank = number(export.blank, places)
    rows = [
        (r.time, r.sample, "-" if r.reference else dose_text(world.shown_dose(r)), number(world.shown(r), places))
        for r in readings
    ]
    signal = "signal" if export.unit_shown == "metadata" else f"signal [{export.unit}]"
    dose = f"dose [{export.dose_unit}]"
    if export.fmt == "txt":
        if export.decimal_comma:
            blank = blank.replace(".", ",")
            rows = [(t, sample, d.replace(".", ","), v.replace(".", ",")) for t, sample, d, v in rows]
        head = [
            f"=== {world.theme.model} data export ===",
            f"Instrument ID     : {export.instrument}",
            f"Serial number     : {world.serials[export.instrument]}",
            f"Run date          : {export.day}",
            f"Operator          : {operator}",
            *([f"Signal unit       : {export.unit}"] if export.unit_shown != "metadata" else []),
            f"Dose unit         : {export.dose_unit}",
            f"Blank subtracted  : {'Yes' if export.blank_subtracted else 'No'}",
            f"Blank level       : {blank}",
            f"Firmware          : {'2.9.0' if export.decimal_comma else '3.4.1'}",
            f"Decimal separator : {'comma' if export.decimal_comma else 'point'}",
            "",
            "[DATA]",
            "Time\tSample\tDose\tSignal",
            *("\t".join(row) for row in rows),
            "[END]",
        ]
        return "\n".join(head) + "\n"
    delimiter = "," if export.fmt == "csv" else "\t"
    head = [
        f"# instrument: {export.instrument}",
        f"# serial: {world.serials[export.instrument]}",
        f"# run_date: {export.day}",
        f"# operator: {operator}",
        *([f"# signal_unit: {export.unit}"] if export.unit_shown != "metadata" else []),
        f"# blank_subtracted: {'yes' if export.blank_subtracted else 'no'}",
        f"# blank_level: {blank}",
    ]
    table = r.csv_bytes(["time", "sample", dose, signal], rows, delimiter=delimiter).decode()
    return "\n".join(head) + "\n" + table


def metadata(world: World) -> dict[str, object]:
    instruments = []
    for instrument in [*world.instruments, *world.replaced]:
        exports = [e for e in world.exports if e.instrument == instrument]
        if not exports:
            continue
        entry: dict[str, object] = {
            "id": instrument,
            "model": world.theme.model,
            "serial": world.serials[instrument],
            "export_format": {"csv": "CSV", "tsv": "TSV", "txt": "vendor text"}[exports[0].fmt],
            "signal_unit": exports[0].unit,
            "dose_unit": exports[0].dose_unit,
            "in_service": {"from": str(exports[0].day), "to": str(exports[-1].day)},
            "missing_value_code": MISSING_CODES[exports[0].fmt],
        }
        if instrument in world.replaced:
            entry["replaces"] = world.replaced[instrument][0]
        instruments.append(entry)
    return {"study": world.theme.study, "signal": world.theme.signal, "dose": world.theme.dose,
            "instruments": instruments}  # fmt: skip


def calibration_table(world: World) -> bytes:
    rows = sorted(world.calibrations, key=lambda c: (c.instrument, c.valid_from))
    return r.csv_bytes(
        ["instrument", "certificate", "valid_from", "valid_to", f"offset [{world.theme.unit}]", "gain"],
        [(c.instrument, c.certificate, c.valid_from, c.valid_to, f"{c.offset:.3f}", f"{c.listed_gain or c.gain:.4f}")
         for c in rows],
    )  # fmt: skip


def calibration_notes(world: World) -> str:
    lines = [
        "# Calibration notes",
        "",
        f"Calibrated signal = (signal − offset) × gain, with the offset in {world.theme.unit}. Each row of "
        "`calibrations.csv` applies to the run days from `valid_from` to `valid_to` inclusive.",
        "",
    ]
    lines += [*(f"{note}\n" for note in world.notes)] if world.notes else ["No corrections to the table so far.", ""]
    if world.reference_signal and world.levels.get("prescribed_step_order", 1) >= 2:
        lines += ["Reference normalisation works on calibrated signals: calibrate the reference readings and the "
                  "sample readings first, then scale; scaling the exported numbers before calibrating shifts every "
                  "offset.", ""]  # fmt: skip
    return "\n".join(lines)


def decisions(world: World) -> str:
    theme = world.theme
    entries = [
        (world.first - timedelta(days=7), f"Series planned: {len(world.days)} run days, doses "
         f"{', '.join(str(d) for d in theme.doses)} {theme.dose_unit}, replicates A and B; every sample is read on "
         "every instrument."),
        (world.first, "Calibration certificates filed in `calibration/`."),
    ]  # fmt: skip
    for new, (old, day) in world.replaced.items():
        entries.append((day, f"{new} replaces {old} from {day} on ({old} failed its self-test). Same model."))
    entries += world.decisions
    lines = ["# Lab notebook — decisions log", ""]
    for n, (day, text) in enumerate(sorted(entries, key=lambda e: e[0]), 1):
        lines += [f"## Entry {n} ({day})", "", text, ""]
    return "\n".join(lines)


def rejected(world: World) -> str:
    lines = ["# Samples rejected at QC: not part of the analysis set", ""]
    lines += [f"{sample}\t{reason}" for sample, reason in world.rejected] or ["(none)"]
    if world.readmitted:
        lines += ["", "# Re-tested and re-admitted (part of the analysis set again)", ""]
        lines += [f"{sample}\t{reason}" for sample, reason in world.readmitted]
    return "\n".join(lines) + "\n"


def protocol(world: World) -> str:
    theme, limit = world.theme, world.saturation
    inline = world.levels.get("non_commuting_steps", 1) < 3
    before = ", before any reference scaling" if world.reference_signal else ""
    saturation = (
        f"Discard saturated readings: the saturation limit is {limit} {theme.unit} of calibrated signal{before}."
        if inline
        else "Discard saturated readings (see the definitions)."
    )
    lines = [
        f"# Analysis protocol: {theme.study}",
        "",
        f"The series runs from {world.first} to {world.last}. Work through these steps:",
        "",
        f"1. {saturation}",
        f"2. Calibrate every reading with the calibration row valid on its run date (`{CALIBRATIONS}`, corrections "
        f"in `{CALIBRATION_NOTES}`): calibrated = (signal − offset) × gain.",
        f"3. Report every signal in `{theme.unit}` and every dose in `{theme.dose_unit}`; an export in another unit "
        "is converted first (its unit is in its column header, its header block or `instruments.json`).",
        "4. Blank: an export whose header says its blank was not subtracted gets the blank level it states "
        "subtracted from every reading before anything else.",
        *reference_step(world),
        f"5. Analysis set: every reading of the series (a missing-value code of `{METADATA}` is no reading) "
        f"except what `{DECISIONS}` excludes and the samples rejected at QC (`{REJECTED}`). The same analysis "
        "set feeds every result.",
        f"6. Fit: ordinary least squares of calibrated signal against dose over the individual readings of the "
        f"analysis set, the zero-dose readings included (not over the means): slope in {theme.unit} per "
        f"{theme.dose_unit}, intercept in {theme.unit}."
        + (f" The lab's fitting script `{FIT_TOOL}` (see `{TOOL_README}`) makes this fit." if world.tool else ""),
        "7. Condition means: per dose, the mean calibrated signal over the analysis set and the number of readings n.",
        "",
    ]
    if not inline:
        lines += ["## Definitions", "", f"- The saturation limit is {limit} {theme.unit} of calibrated signal{before}.",
                  "- A run day is the date in an export's header block.", ""]  # fmt: skip
    return "\n".join(lines)


def reference_step(world: World) -> list[str]:
    """The protocol's normalisation to the runs' reference standard (none when the runs carry none)."""
    if not world.reference_signal:
        return []
    nominal = f"{world.reference_signal:.0f} {world.theme.unit}"
    if world.levels.get("prescribed_step_order", 1) == 1:
        return [f"4b. Reference standard: each export holds the reading(s) of the reference standard (sample `REF-…`, "
                f"no dose). After the calibration, multiply every calibrated reading of the export by R / c, where the "
                f"nominal signal of the reference standard is {nominal} (R) and c is the export's calibrated reference "
                "reading (their mean when there are several). The reference readings are not part of the analysis "
                "set."]  # fmt: skip
    return [f"4b. Reference standard: scale every reading of an export by R / c, where the nominal signal of the "
            f"reference standard is {nominal} (R) and c is the export's reference reading (sample `REF-…`; their "
            "mean when there are several). The reference readings are not part of the analysis set."]  # fmt: skip


def render_world(world: World) -> Workspace:
    workspace = Workspace()
    workspace.add_text(PROTOCOL, protocol(world))
    workspace.add(METADATA, r.json_bytes(metadata(world)))
    workspace.add(CALIBRATIONS, calibration_table(world))
    workspace.add_text(CALIBRATION_NOTES, calibration_notes(world))
    workspace.add_text(DECISIONS, decisions(world))
    workspace.add_text(REJECTED, rejected(world))
    for path, text in lab_tools(world).items():
        workspace.add_text(path, text)
    for export in sorted(world.exports, key=lambda e: e.path):
        workspace.add_text(export.path, export_text(world, export))
    return workspace
