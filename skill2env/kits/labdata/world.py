"""The lab-data world: a dose-response study measured on several instruments over a few run days.

Every sample of the series (a dose, a replicate, a run day) is read once by each instrument. A
reading's `value` is the calibrated signal in the study's unit that the correct analysis recovers;
what an export shows is derived from it in one place (`World.shown`): the instrument's calibration
valid on the run day inverted, the blank added back when the export says it was not subtracted, the
export's unit, the export's rounding. The patterns change the series (an instrument swap, a
recalibration, drifting or contaminated readings, saturated ones) and what the lab recorded about it.
`analyse` computes every expected result from the shown numbers through the protocol's pipeline.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from datetime import date, timedelta

from skill2env.kits.spec import seeded


@dataclass(frozen=True)
class Theme:
    study: str
    signal: str
    unit: str
    alt_unit: tuple[str, float]
    """Another unit of the signal and the factor that turns it into `unit`."""
    dose: str
    dose_unit: str
    alt_dose_unit: tuple[str, float]
    prefix: str
    model: str
    doses: tuple[int, ...]
    slope: tuple[float, float]
    intercept: tuple[float, float]


THEMES = (
    Theme("substrate response of a fluorescence assay", "fluorescence signal", "mV", ("V", 1000.0),
          "substrate concentration", "µmol/L", ("nmol/L", 0.001), "FLR", "LabSpec FL-7",
          (0, 2, 5, 10, 20, 40), (2.0, 8.0), (10.0, 40.0)),
    Theme("protein standard curve on absorbance readers", "absorbance", "mAU", ("AU", 1000.0),
          "protein concentration", "µg/mL", ("ng/mL", 0.001), "SPX", "Photonix A-200",
          (0, 25, 50, 100, 200, 400), (0.8, 2.5), (20.0, 60.0)),
    Theme("glucose response of amperometric sensors", "electrode current", "nA", ("µA", 1000.0),
          "glucose concentration", "mmol/L", ("µmol/L", 0.001), "AMP", "Electra P-3",
          (0, 1, 2, 4, 8, 16), (5.0, 20.0), (5.0, 30.0)),
)  # fmt: skip
DAYS = 5
REPLICATES = "AB"
FORMATS = {"1": "csv", "2": "tsv", "3": "txt"}
MISSING_CODES = {"csv": -9999, "tsv": -9999, "txt": 65535}
"""The code each export format writes for a reading it could not take (documented in the metadata)."""
"""Instrument number → export format (the third instrument writes the vendor's text export)."""
OPERATORS = ("A. Lind", "M. Osei", "J. Ferreira", "K. Sato", "R. Novak")


def decimals(factor: float) -> int:
    """Decimals an export writes for a unit `factor` times the study's (three in the study's unit)."""
    return 3 + max(0, round(math.log10(factor)))


@dataclass
class Calibration:
    instrument: str
    valid_from: date
    valid_to: date
    offset: float
    """In the study's signal unit."""
    gain: float
    listed_gain: float = 0.0
    """The gain the calibration table shows when a note corrects it (0: the table is right)."""
    certificate: str = ""


@dataclass
class Reading:
    instrument: str
    day: date
    time: str
    sample: str
    dose: int
    """In the study's dose unit."""
    value: float
    """The calibrated signal in the study's unit (before any normalisation to a reference standard)."""
    reference: bool = False
    """A reading of the run's reference standard, not of a sample."""
    missing: bool = False
    """No reading: the export writes its instrument's missing-value code."""


@dataclass
class Export:
    """One instrument's export of one run day."""

    instrument: str
    day: date
    fmt: str
    unit: str
    factor: float
    dose_unit: str
    dose_factor: float
    unit_shown: str = "column"
    """Where the signal unit is written: 'column' (header and block) or 'metadata' (instruments.json only)."""
    blank_subtracted: bool = True
    blank: float = 0.0
    """The blank level in the export's unit."""
    operator: str = ""
    decimal_comma: bool = False
    """The vendor export of an older firmware: decimal commas in its numbers."""

    @property
    def path(self) -> str:
        return f"data/runs/{self.day.isoformat()}_{self.instrument}.{self.fmt}"


@dataclass
class FitTool:
    """The lab's fitting script in `tools/`: its defaults and whether its README states them."""

    skips_blanks: bool = False
    """By default the script leaves the zero-dose readings out (`--keep-blanks` keeps them)."""
    digits: int = 6
    """Decimals the script prints by default (`--digits`)."""
    documented: bool = True
    """Whether `tools/README.md` states the defaults (else only the script's `--help` does)."""


@dataclass
class ReaderTool:
    """The lab's export reader in `tools/`: by default it reads a comma in a number as a thousands separator."""

    documented: bool = True
    """Whether `tools/README.md` names `--decimal-comma` (else only the script's `--help` does)."""


@dataclass
class World:
    seed: int
    rng: random.Random
    theme: Theme
    days: list[date]
    slope: float
    intercept: float
    saturation: int
    instruments: list[str]
    readings: list[Reading] = field(default_factory=list)
    exports: list[Export] = field(default_factory=list)
    calibrations: list[Calibration] = field(default_factory=list)
    serials: dict[str, str] = field(default_factory=dict)
    replaced: dict[str, tuple[str, date]] = field(default_factory=dict)
    """New instrument → (the instrument it replaced, its first run day)."""
    decisions: list[tuple[date, str]] = field(default_factory=list)
    """(entry date, Markdown text) of the notebook entries the patterns add."""
    excluded: list[tuple[str, date, date]] = field(default_factory=list)
    """(instrument, first day, last day) the notebook excludes."""
    excluded_samples: set[str] = field(default_factory=set)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    """(sample id as the QC list writes it, reason)."""
    readmitted: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Calibration notes (Markdown paragraphs)."""
    harmful: set[str] = field(default_factory=set)
    """Patterns whose trap changes an expected result (the others are there but benign)."""
    changes_n: set[str] = field(default_factory=set)
    """Patterns whose trap changes the analysis set's size."""
    levels: dict[str, int] = field(default_factory=dict)
    tool: FitTool | None = None
    reader: ReaderTool | None = None
    reference_signal: float = 0.0
    """The reference standard's nominal signal (0: the runs carry no reference standard)."""

    @property
    def first(self) -> date:
        return self.days[0]

    @property
    def last(self) -> date:
        return self.days[-1]

    def export_of(self, reading: Reading) -> Export:
        return next(e for e in self.exports if e.instrument == reading.instrument and e.day == reading.day)

    def calibration(self, instrument: str, day: date) -> Calibration:
        return next(c for c in self.calibrations if c.instrument == instrument and c.valid_from <= day <= c.valid_to)

    def shown(self, reading: Reading) -> float:
        """The signal its export writes: the calibration inverted, the blank added back, in its unit."""
        export = self.export_of(reading)
        if reading.missing:
            return float(MISSING_CODES[export.fmt])
        cal = self.calibration(reading.instrument, reading.day)
        raw = reading.value / cal.gain + cal.offset
        if not export.blank_subtracted:
            raw += export.blank * export.factor
        return round(raw / export.factor, decimals(export.factor))

    def shown_dose(self, reading: Reading) -> float:
        export = self.export_of(reading)
        return round(reading.dose / export.dose_factor, 6)

    def readings_of(self, instrument: str, day: date) -> list[Reading]:
        return [r for r in self.readings if r.instrument == instrument and r.day == day]


def generate(seed: int, salt: int) -> World:
    rng = seeded("labdata", seed, salt)
    theme = rng.choice(THEMES)
    start = date(2024, rng.randint(1, 11), rng.randint(1, 20))
    days, day = [], start
    for _ in range(DAYS):
        days.append(day)
        day += timedelta(days=rng.choice((1, 1, 2, 3)))
    slope = round(rng.uniform(*theme.slope), 3)
    intercept = round(rng.uniform(*theme.intercept), 2)
    top = intercept + slope * max(theme.doses)
    saturation = int(math.ceil(top * 1.3 / 50.0) * 50)
    instruments = [f"{theme.prefix}-{n}" for n in FORMATS]
    world = World(seed, rng, theme, days, slope, intercept, saturation, instruments)
    noise = (top - intercept) * 0.012
    for instrument in instruments:
        world.serials[instrument] = f"{theme.prefix[0]}{rng.randint(10, 99)}-{rng.randint(10000, 99999)}"
        since = days[0] - timedelta(days=rng.randint(20, 90))
        world.calibrations.append(base_calibration(world, instrument, since, rng))
    for day in days:
        samples = []
        for index, dose in enumerate(theme.doses, 1):
            for replicate in REPLICATES:
                sample = f"S-{day:%m%d}-{index:02d}{replicate}"
                samples.append((sample, dose, intercept + slope * dose + rng.gauss(0, noise)))
        for n, instrument in enumerate(instruments):
            minute = 8 * 60 + 30 + 40 * n + rng.randint(0, 15)
            for sample, dose, mean in samples:
                minute += rng.randint(1, 3)
                value = mean + rng.gauss(0, noise * 0.5)
                world.readings.append(Reading(instrument, day, f"{minute // 60:02d}:{minute % 60:02d}", sample, dose,
                                              value))  # fmt: skip
            fmt = FORMATS[instrument.rsplit("-", 1)[1]]
            blank = round(rng.uniform(1.0, 6.0), 3)
            world.exports.append(Export(instrument, day, fmt, theme.unit, 1.0, theme.dose_unit, 1.0, blank=blank,
                                        operator=rng.choice(OPERATORS)))  # fmt: skip
    return world


def base_calibration(world: World, instrument: str, since: date, rng: random.Random) -> Calibration:
    gain = rng.choice((-1, 1)) * rng.uniform(0.035, 0.08) + 1.0
    return Calibration(instrument, since, date(world.last.year + 1, 12, 31), round(rng.uniform(-4.0, 6.0), 3),
                       round(gain, 4), certificate=f"CC-{rng.randint(1000, 9999)}")  # fmt: skip


# -- the truth --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Analysis:
    """The protocol's results: the fit over the analysis set and the per-dose means."""

    slope: float
    intercept: float
    n: int
    means: dict[int, tuple[float, int]]
    """Dose → (mean calibrated signal, readings)."""


def calibrated(world: World, reading: Reading) -> float:
    """A reading as the protocol recovers it from its export's numbers (unit, blank, calibration)."""
    export = world.export_of(reading)
    signal = world.shown(reading) * export.factor
    if not export.blank_subtracted:
        signal -= export.blank * export.factor
    cal = world.calibration(reading.instrument, reading.day)
    return (signal - cal.offset) * cal.gain


def in_analysis_set(world: World, reading: Reading, value: float) -> bool:
    if value > world.saturation:
        return False
    if reading.sample in world.excluded_samples:
        return False
    return not any(i == reading.instrument and a <= reading.day <= b for i, a, b in world.excluded)


def normalisation(world: World, export: Export) -> float:
    """What the export's calibrated readings are multiplied by: the standard's nominal signal over the
    mean calibrated reading of the export's reference standard (1 without one)."""
    references = [calibrated(world, r) for r in world.readings_of(export.instrument, export.day) if r.reference]
    return world.reference_signal / (math.fsum(references) / len(references)) if references else 1.0


def analyse(world: World) -> Analysis:
    points: list[tuple[float, float]] = []
    factors = {(e.instrument, e.day): normalisation(world, e) for e in world.exports}
    for reading in world.readings:
        value = calibrated(world, reading)
        if not reading.reference and not reading.missing and in_analysis_set(world, reading, value):
            dose = world.shown_dose(reading) * world.export_of(reading).dose_factor
            points.append((dose, value * factors[reading.instrument, reading.day]))
    slope, intercept = least_squares(points)
    means = {}
    for dose in world.theme.doses:
        values = [v for d, v in points if abs(d - dose) < 1e-9]
        means[dose] = (math.fsum(values) / len(values), len(values))
    return Analysis(slope, intercept, len(points), means)


def least_squares(points: list[tuple[float, float]]) -> tuple[float, float]:
    n = len(points)
    mx = math.fsum(x for x, _ in points) / n
    my = math.fsum(y for _, y in points) / n
    sxx = math.fsum((x - mx) ** 2 for x, _ in points)
    sxy = math.fsum((x - mx) * (y - my) for x, y in points)
    slope = sxy / sxx
    return slope, my - slope * mx
