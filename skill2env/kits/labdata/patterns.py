"""Pattern transformers of the lab-data kit: each plants one designed trap at intensity 1-3.

Every transformer first draws whether its trap is benign this time (the trap is there, but it changes
no result: a replacement instrument that exports in the study's unit, a recalibration that kept the
coefficients, an exclusion that starts after the series): likely at intensity 1, less so at 2, never
at 3. A harmful trap is recorded in `world.harmful` (and in `world.changes_n` when it changes the
size of the analysis set), which links it to the rubric items it changes.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date, timedelta

from skill2env.kits.labdata.world import (
    Calibration,
    FitTool,
    ReaderTool,
    Reading,
    World,
    base_calibration,
    decimals,
)
from skill2env.kits.spec import Design, draw_benign

Transformer = Callable[[World, int, random.Random, Design], None]
BENIGN = {1: 0.9, 2: 0.4, 3: 0.0}
PROTOCOL = "protocol.md"
METADATA = "instruments.json"
CALIBRATIONS = "calibration/calibrations.csv"
CALIBRATION_NOTES = "calibration/notes.md"
DECISIONS = "notebook/decisions.md"
REJECTED = "qc/rejected_samples.txt"
RUNS = "data/runs/"
FIT_TOOL = "tools/fit_response.py"
READER_TOOL = "tools/read_export.py"
TOOL_README = "tools/README.md"


def benign(world: World, pattern: str, level: int, rng: random.Random) -> bool:
    return draw_benign(world.levels, world.harmful, pattern, level, rng, BENIGN)


def excluded(world: World, reading: Reading) -> bool:
    """Whether the notebook or the QC list already takes the reading out of the analysis set."""
    if reading.sample in world.excluded_samples:
        return True
    return any(i == reading.instrument and a <= reading.day <= b for i, a, b in world.excluded)


def unit_convention_lock(world: World, level: int, rng: random.Random, design: Design) -> None:
    old, theme = world.instruments[1], world.theme
    new = f"{theme.prefix}-4"
    swap = world.days[rng.randint(2, len(world.days) - 2)]
    world.replaced[new] = (old, swap)
    world.serials[new] = f"{theme.prefix[0]}{rng.randint(10, 99)}-{rng.randint(10000, 99999)}"
    world.calibrations.append(base_calibration(world, new, swap - timedelta(days=rng.randint(1, 6)), rng))
    harmless = benign(world, "unit_convention_lock", level, rng)
    for reading in world.readings:
        if reading.instrument == old and reading.day >= swap:
            reading.instrument = new
    for export in world.exports:
        if export.instrument != old or export.day < swap:
            continue
        export.instrument = new
        if harmless:
            continue
        export.unit, export.factor = theme.alt_unit
        export.blank = round(export.blank / export.factor, decimals(export.factor))
        if level >= 2:
            export.unit_shown = "metadata"
        if level == 3:
            export.dose_unit, export.dose_factor = theme.alt_dose_unit
    design.plant("unit_convention_lock", f"swap.{new}", "an instrument was replaced mid-series", new, METADATA)
    design.forms["unit_convention_lock"] = {
        1: "The instrument replaced mid-series exports its signal in another unit, named in its column header.",
        2: "As level 1, but only the instrument metadata names the replacement's unit.",
        3: "As level 2, and the replacement also writes the dose in another unit (named in its column header).",
    }[level]


def retroactive_correction(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "retroactive_correction", level, rng)
    targets = [world.instruments[0], world.instruments[2]] if level == 3 else [rng.choice(world.instruments[::2])]
    for n, instrument in enumerate(targets):
        day = world.days[rng.randint(1, len(world.days) - 1)]
        before = world.calibration(instrument, day)
        offset, gain = before.offset, before.gain
        if not harmless:
            offset = round(offset + rng.choice((-1, 1)) * rng.uniform(1.0, 3.0), 3)
            gain = round(gain + rng.choice((-1, 1)) * rng.uniform(0.02, 0.05), 4)
        after = Calibration(instrument, day, before.valid_to, offset, gain, certificate=f"CC-{rng.randint(1000, 9999)}")
        before.valid_to = day - timedelta(days=1)
        world.calibrations.append(after)
        if not harmless and level >= 2 and n == len(targets) - 1:
            after.listed_gain = round(gain + rng.choice((-1, 1)) * rng.uniform(0.02, 0.04), 4)
            world.notes.append(
                f"**Correction ({day + timedelta(days=rng.randint(2, 9))}):** certificate {after.certificate} "
                f"({instrument}, valid from {day}) was typed into the calibration table with the gain "
                f"{after.listed_gain:.4f}; the certificate says {gain:.4f}. The certificate governs."
            )
        design.plant("retroactive_correction", f"recalibration.{instrument}", "an instrument was recalibrated",
                     after.certificate, CALIBRATIONS)  # fmt: skip
    design.forms["retroactive_correction"] = {
        1: "An instrument was recalibrated mid-series: a second calibration row applies from a later date.",
        2: "As level 1, and a calibration note corrects the new row's gain, which the table shows mistyped.",
        3: "Two instruments were recalibrated mid-series, one new row corrected by a note.",
    }[level]


def entry(world: World, day: date, text: str) -> None:
    world.decisions.append((day, text))


def logged_decision_binding(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "logged_decision_binding", level, rng)
    instrument = rng.choice(world.instruments[::2])
    forever = date(world.last.year + 1, 12, 31)
    if harmless:
        start = world.last + timedelta(days=rng.randint(3, 12))
        world.excluded.append((instrument, start, forever))
        entry(world, world.last, f"**Decision:** exclude {instrument} readings from {start} onward "
                                 "(the instrument goes out for its annual service).")  # fmt: skip
    else:
        world.changes_n.add("logged_decision_binding")
        if level == 1:
            first = rng.randint(2, len(world.days) - 1)
            span = (world.days[first], forever)
            text = f"**Decision:** exclude {instrument} readings from {world.days[first]} onward "
            text += "(lamp drift found at the weekly check)."
        else:
            first = rng.randint(1, len(world.days) - 3)
            span = (world.days[first], world.days[first + 1])
            text = f"**Decision:** exclude {instrument} readings from {span[0]} to {span[1]} (inclusive): the "
            text += "cuvette holder was loose until it was replaced."
        world.excluded.append((instrument, *span))
        drift = 1 + rng.uniform(0.06, 0.12)
        for reading in world.readings:
            if reading.instrument == instrument and span[0] <= reading.day <= span[1]:
                reading.value *= drift
        entry(world, span[0], text)
        if level >= 2:
            other = world.instruments[0] if instrument != world.instruments[0] else world.instruments[2]
            day = rng.choice(world.days)
            entry(world, day, f"**Proposal (not adopted):** exclude {other} readings of {day}; after re-checking the "
                              "control chart the readings are within limits and stay in.")  # fmt: skip
        if level == 3:
            day = rng.choice(world.days)
            sample = f"S-{day:%m%d}-{rng.randint(2, len(world.theme.doses)):02d}{rng.choice('AB')}"
            world.excluded_samples.add(sample)
            for reading in world.readings:
                if reading.sample == sample:
                    reading.value *= 1 + rng.uniform(0.1, 0.2)
            entry(world, day, f"**Decision:** exclude sample {sample} from every analysis (pipetting error "
                              "noticed at the plate check).")  # fmt: skip
    design.plant("logged_decision_binding", "notebook.exclusion", "the notebook excludes an instrument's readings",
                 instrument, DECISIONS)  # fmt: skip
    design.forms["logged_decision_binding"] = {
        1: "The notebook excludes an instrument's readings from a date on; its exports still hold them.",
        2: "The notebook excludes an instrument for a date range, beside a proposal that was not adopted.",
        3: "As level 2, and a later entry excludes one sample from every analysis.",
    }[level]


def shared_intermediate_reuse(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "shared_intermediate_reuse", level, rng)
    reasons = ("haemolysed", "bubble in the well", "wrong diluent", "label smudged, identity not certain")
    if harmless:
        pilot = world.first - timedelta(days=rng.randint(5, 20))
        for n in range(2):
            world.rejected.append((f"P-{pilot:%m%d}-{n + 1:02d}{rng.choice('AB')}", rng.choice(reasons)))
    else:
        world.changes_n.add("shared_intermediate_reuse")
        samples = sorted({r.sample for r in world.readings if not excluded(world, r)})
        chosen = rng.sample(samples, {1: 2, 2: 3, 3: 4}[level] + (2 if level == 3 else 0))
        rejected, readmitted = chosen[: {1: 2, 2: 3, 3: 4}[level]], chosen[{1: 2, 2: 3, 3: 4}[level] :]
        for n, sample in enumerate(sorted(rejected)):
            world.excluded_samples.add(sample)
            for reading in world.readings:
                if reading.sample == sample:
                    reading.value *= 1 + rng.uniform(0.1, 0.2)
            written = sample.lower() if level >= 2 and n == 0 else sample
            world.rejected.append((written, rng.choice(reasons)))
        for sample in sorted(readmitted):
            world.readmitted.append((sample, f"re-test passed {world.last + timedelta(days=rng.randint(1, 5))}"))
    design.plant("shared_intermediate_reuse", "qc.rejected", "the QC list defines the analysis set",
                 len(world.rejected), REJECTED)  # fmt: skip
    design.forms["shared_intermediate_reuse"] = {
        1: "Samples rejected at QC leave the analysis set, which every deliverable (and its n) must share.",
        2: "As level 1, one rejected sample written in lower case.",
        3: "As level 2, and the QC list also names samples re-tested and re-admitted (they stay).",
    }[level]


def conditional_branch_on_data(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "conditional_branch_on_data", level, rng)
    if not harmless:
        for export in rng.sample(world.exports, {1: 1, 2: 3, 3: 5}[level]):
            export.blank_subtracted = False
    design.plant("conditional_branch_on_data", "exports.blank", "each export's header says whether its blank "
                 "was subtracted", "blank", RUNS)  # fmt: skip
    design.forms["conditional_branch_on_data"] = {
        1: "One export's header block says its blank was not subtracted; its readings need the stated blank removed.",
        2: "As level 1, three exports across instruments and formats.",
        3: "As level 1, five exports.",
    }[level]


def prescribed_step_order(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "prescribed_step_order", level, rng)
    theme = world.theme
    world.reference_signal = float(round((world.intercept + world.slope * theme.doses[3]) / 10.0) * 10)
    for export in world.exports:
        drift = 1.0 if harmless else 1 + rng.choice((-1, 1)) * rng.uniform(0.02, 0.06)
        readings = world.readings_of(export.instrument, export.day)
        for reading in readings:
            reading.value *= drift
        first, last = readings[0], readings[-1]
        times = [shifted(first.time, -2), *([shifted(last.time, 2)] if level == 3 else [])]
        for time in times:
            value = world.reference_signal * drift * (1 + (0.0 if harmless else rng.gauss(0, 0.002)))
            world.readings.append(Reading(export.instrument, export.day, time, f"REF-{export.day:%m%d}", 0, value,
                                          reference=True))  # fmt: skip
    world.readings.sort(key=lambda r: (r.instrument, r.day, r.time))
    design.plant("prescribed_step_order", "protocol.reference", "each run is normalised to its reference standard",
                 world.reference_signal, PROTOCOL)  # fmt: skip
    design.forms["prescribed_step_order"] = {
        1: "Each run carries a reference standard; the protocol prescribes normalising to it after the calibration.",
        2: "As level 1, the order stated only in the calibration notes (the protocol's step reads naturally first).",
        3: "As level 2, with two reference readings per run whose mean is the reference.",
    }[level]


def shifted(time: str, minutes: int) -> str:
    total = int(time[:2]) * 60 + int(time[3:]) + minutes
    return f"{total // 60:02d}:{total % 60:02d}"


def non_commuting_steps(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "non_commuting_steps", level, rng)
    if not harmless:
        world.changes_n.add("non_commuting_steps")
        plain = [e for e in world.exports if e.blank_subtracted and e.factor == 1.0 and e.instrument in
                 world.instruments[::2]]  # fmt: skip
        candidates = [
            r
            for e in plain
            for r in world.readings_of(e.instrument, e.day)
            if not excluded(world, r) and not r.reference
        ]
        for reading in rng.sample(candidates, {1: 2, 2: 2, 3: 3}[level]):
            reading.value = world.saturation * rng.uniform(1.3, 1.8)
        top = max(world.theme.doses)
        edges = [r for r in candidates if r.dose == top and r.value < world.saturation]
        for reading in rng.sample(edges, {1: 0, 2: 1, 3: 2}[level]):
            cal = world.calibration(reading.instrument, reading.day)
            gap = world.saturation / cal.gain + cal.offset - world.saturation
            # Face value and calibrated value on opposite sides of the limit: only the right order keeps or drops it.
            reading.value = world.saturation - gap * cal.gain / 2
    design.plant("non_commuting_steps", "protocol.saturation", "the saturation limit applies to calibrated signal",
                 world.saturation, PROTOCOL)  # fmt: skip
    design.forms["non_commuting_steps"] = {
        1: "Saturated readings must go; the protocol lists the discard before the calibration it is defined on.",
        2: "As level 1, and a reading near the limit falls on the other side once calibrated.",
        3: "As level 2, the limit's definition only in the protocol's definitions; more readings at the edge.",
    }[level]


def wrong_default_in_skill_script(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "wrong_default_in_skill_script", level, rng)
    world.tool = FitTool(skips_blanks=not harmless, digits=1 if level == 3 else 6, documented=level == 1)
    if not harmless:
        world.changes_n.add("wrong_default_in_skill_script")
    design.plant("wrong_default_in_skill_script", "tool.defaults", "the lab's fitting script has defaults",
                 "--digits", FIT_TOOL)  # fmt: skip
    design.forms["wrong_default_in_skill_script"] = {
        1: "The lab's fitting script leaves the zero-dose readings out unless told to keep them (its README says so).",
        2: "As level 1, the default stated only in the script's --help.",
        3: "As level 2, and the script prints one decimal unless asked for more.",
    }[level]


def decisive_tool_flag(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "decisive_tool_flag", level, rng)
    world.reader = ReaderTool(documented=level == 1)
    vendor = [e for e in world.exports if e.fmt == "txt"]
    if not harmless:
        for export in rng.sample(vendor, {1: 1, 2: 2, 3: len(vendor)}[level]):
            export.decimal_comma = True
    design.plant("decisive_tool_flag", "tool.reader", "the lab's export reader has a decimal-comma flag",
                 "--decimal-comma", READER_TOOL)  # fmt: skip
    design.forms["decisive_tool_flag"] = {
        1: "A vendor export of an older firmware writes decimal commas (its header says so); the lab's reader "
        "takes them for thousands separators unless --decimal-comma is given (its README says so).",
        2: "As level 1, two exports, the flag named only in the reader's --help.",
        3: "As level 2, every vendor export of the series.",
    }[level]


def sentinel_missing_values(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "sentinel_missing_values", level, rng)
    if not harmless:
        world.changes_n.add("sentinel_missing_values")
        formats = {1: ("csv", "tsv"), 2: ("txt",), 3: ("csv", "tsv", "txt")}[level]
        exports = [e for e in world.exports if e.fmt in formats]
        readings = [r for e in exports for r in world.readings_of(e.instrument, e.day)]
        candidates = [r for r in readings if not r.reference and not excluded(world, r) and
                      r.value < world.saturation * 0.8]  # fmt: skip
        for reading in rng.sample(candidates, {1: 2, 2: 3, 3: 5}[level]):
            reading.missing = True
    design.plant("sentinel_missing_values", "metadata.missing", "each instrument writes a code for a missing reading",
                 "missing_value_code", METADATA)  # fmt: skip
    design.forms["sentinel_missing_values"] = {
        1: "Missing readings are written as the instrument's code (-9999), named in the instrument metadata.",
        2: "As level 1, the vendor export's code 65535 (which the saturation limit would also drop once calibrated).",
        3: "Missing readings in every format, both codes.",
    }[level]


TRANSFORMERS: dict[str, Transformer] = {
    "unit_convention_lock": unit_convention_lock,
    "retroactive_correction": retroactive_correction,
    "logged_decision_binding": logged_decision_binding,
    "shared_intermediate_reuse": shared_intermediate_reuse,
    "conditional_branch_on_data": conditional_branch_on_data,
    "prescribed_step_order": prescribed_step_order,
    "non_commuting_steps": non_commuting_steps,
    "wrong_default_in_skill_script": wrong_default_in_skill_script,
    "decisive_tool_flag": decisive_tool_flag,
    "sentinel_missing_values": sentinel_missing_values,
}
PATTERNS = tuple(TRANSFORMERS)
