"""Kit: instrument data analysis.

A dose-response study read on several instruments over a few run days: per-run exports (CSV and TSV
with a header block, a vendor text export), instrument metadata (JSON), a calibration table with
its notes, a lab notebook recording decisions, a QC list and an analysis protocol; with traps (an
instrument swapped mid-series that exports in another unit, a recalibration and a mistyped gain,
exclusions the notebook binds later steps to, QC-rejected samples, exports whose blank was not
subtracted, saturated readings the protocol discards before the calibration it is defined on, a
reference standard to normalise each run to after calibrating, the lab's fitting script whose default
leaves the zero-dose readings out, vendor exports with decimal commas the lab's reader takes for
thousands separators without its flag, missing readings written as the instrument's code) → the
fitted slope and intercept with their units, the cleaned per-dose means and a short report.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from skill2env.kits import checks
from skill2env.kits.base import Kit
from skill2env.kits.labdata.docs import render_world
from skill2env.kits.labdata.patterns import (
    CALIBRATIONS,
    DECISIONS,
    METADATA,
    PATTERNS,
    PROTOCOL,
    REJECTED,
    TRANSFORMERS,
)
from skill2env.kits.labdata.world import Analysis, World, analyse, generate
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item
from skill2env.patterns.models import InformationLevel, Trait
from skill2env.rubric import CheckSpec

FIT = "output/fit.json"
MEANS = "output/condition_means.csv"
REPORT = "output/report.md"
RELATIVE = 1e-3
"""Fitted values and means are checked within 0.1 % (an intercept near zero within 0.01 of its unit)."""
ABSOLUTE = 0.01


class LabDataKit(Kit):
    name = "labdata"
    title = "Instrument data analysis"
    formats = ("csv", "tsv", "txt", "json", "markdown")
    patterns = PATTERNS
    traits: ClassVar[Mapping[Trait, float]] = {
        Trait.SCIENTIFIC_DATA: 1.5,
        Trait.NUMERIC_COMPUTATION: 0.2,
        Trait.TABULAR_DATA: 0.1,
    }
    requires: ClassVar[Mapping[Trait, float]] = {Trait.SCIENTIFIC_DATA: 0.4}
    """More than a mention of units or an experiment: measurements, instruments, calibration, fitting."""
    tool_patterns: ClassVar[Mapping[Trait, str]] = {
        Trait.SCIENTIFIC_DATA: "unit_convention_lock",
        Trait.NUMERIC_COMPUTATION: "non_commuting_steps",
        Trait.TABULAR_DATA: "conditional_branch_on_data",
        Trait.DOCUMENTS: "logged_decision_binding",
        Trait.VERSION_HISTORY: "retroactive_correction",
        Trait.STRUCTURED_DATA: "shared_intermediate_reuse",
    }
    starters = (
        "unit_convention_lock",
        "logged_decision_binding",
        "conditional_branch_on_data",
        "non_commuting_steps",
        "shared_intermediate_reuse",
    )
    solver_module = "skill2env.kits.labdata.solver"
    naive_module = "skill2env.kits.labdata.naive"

    transformers = TRANSFORMERS

    def generate_world(self, seed: int, salt: int) -> World:
        return generate(seed, salt)

    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        world, design = self.world(seed, patterns, salt)
        theme = world.theme
        composition = Composition(
            title=f"Analyse the {theme.study} series",
            goal=f"Fit {theme.signal} against {theme.dose} over the cleaned {theme.study} series as the lab's "
            "protocol prescribes, with the per-dose means and a short report.",
            body=instruction_body(world),
            workspace=render_world(world),
            facts=[],
            challenges=[],
            deliverables=[
                (FIT, "json", "the fitted slope and intercept with their units and the readings used", 0.45),
                (MEANS, "csv", "the cleaned mean signal and the number of readings per dose", 0.35),
                (REPORT, "markdown", "a short report of the fit, the readings used and what was left out", 0.2),
            ],
            items=[],
        )
        found = InformationLevel.DISCOVERABLE
        composition.fact("goal.study", "the study to analyse", InformationLevel.STATED, theme.study)
        composition.fact("protocol.steps", "how the series is analysed", found, "Analysis protocol", location=PROTOCOL)
        composition.fact("calibration.table", "the instruments' calibration rows", found, "gain", location=CALIBRATIONS)
        composition.fact("instruments.metadata", "the instruments and their units", found, theme.model,
                         location=METADATA)  # fmt: skip
        composition.fact("notebook.decisions", "the decisions taken during the series", found, "decisions log",
                         location=DECISIONS)  # fmt: skip
        composition.fact("qc.list", "the samples rejected at QC", found, "rejected at QC", location=REJECTED)
        composition.plant(design)
        for pattern_id, level in patterns.items():
            composition.challenges.append(
                ChallengeSpec(pattern_id, level, design.forms[pattern_id], design.facts_of(pattern_id))
            )
        composition.items = items(world, design, patterns)
        return composition


def instruction_body(world: World) -> str:
    theme = world.theme
    return f"""The lab measured the {theme.signal} of a {theme.study} series against {theme.dose} on several
instruments. `data/runs/` holds one export per instrument and run day, `{METADATA}` describes the instruments,
`calibration/` holds the calibration table and its notes, `{DECISIONS}` is the lab notebook's decisions log,
`{REJECTED}` the QC list and `{PROTOCOL}` the analysis protocol, which governs. Analyse the series as the protocol
says, consistently with the decisions taken so far.

1. `{FIT}`: `{{"slope": <number>, "intercept": <number>, "slope_unit": "<signal unit> per <dose unit>",
   "intercept_unit": "<signal unit>", "n": <readings in the fit>}}`, in the units the protocol fixes (full precision).
2. `{MEANS}`: columns `dose,mean_signal,n`, one row per dose of the series (dose in the protocol's unit).
3. `{REPORT}`: a short report with the lines `Slope: <value>` and `Intercept: <value>` (three decimals) and
   `Readings used: <n>`, and what was left out of the analysis and why.
"""


def json_number(path: str, json_path: str, expected: float, absolute: float) -> CheckSpec:
    return CheckSpec(
        check="json_path_equals",
        params={"path": path, "json_path": json_path, "expected": expected, "tolerance": absolute,
                "relative_tolerance": RELATIVE},
    )  # fmt: skip


def means_check(columns: list[str], rows: list[dict[str, Any]], *, relative: float) -> CheckSpec:
    names = ["dose", *columns]
    return CheckSpec(
        check="csv_equals",
        params={
            "path": MEANS,
            "expected": {"columns": names, "rows": [[row[c] for c in names] for row in rows]},
            "columns": names,
            "key_columns": ["dose"],
            "ignore_column_order": True,
            "allow_extra_rows": False,
            "tolerance": ABSOLUTE if relative else 0.0,
            "relative_tolerance": relative,
        },
    )


def items(world: World, design: Design, patterns: Mapping[str, int]) -> list[Item]:
    truth: Analysis = analyse(world)
    theme = world.theme
    changed = tuple(p for p in patterns if p in world.harmful)
    counted = tuple(p for p in patterns if p in world.changes_n)
    quiet = tuple(p for p in patterns if p not in world.harmful or p == "unit_convention_lock")
    facts = tuple(f for p in changed for f in design.facts_of(p)) or ("protocol.steps",)
    rows = [{"dose": dose, "mean_signal": mean, "n": n} for dose, (mean, n) in truth.means.items()]
    unit = f"{theme.unit} per {theme.dose_unit}"
    reasoning = ("The exports converted to the protocol's units, blanks removed where not subtracted, calibrated "
                 "with the row valid on each run date, the notebook's and the QC list's exclusions and the "
                 "saturated readings left out, then least squares over the individual readings.")  # fmt: skip
    return [
        Item("fit.slope", f"The fitted slope ({unit}) matches the cleaned, calibrated series (0.1 %).", FIT,
             json_number(FIT, "$.slope", truth.slope, 1e-6), truth.slope, facts, reasoning, changed, secret=True),
        Item("fit.intercept", f"The fitted intercept ({theme.unit}) matches the cleaned, calibrated series.", FIT,
             json_number(FIT, "$.intercept", truth.intercept, ABSOLUTE), truth.intercept, facts, reasoning, changed,
             secret=True),
        Item("fit.n", "The fit's n is the size of the analysis set.", FIT,
             CheckSpec(check="json_path_equals", params={"path": FIT, "json_path": "$.n", "expected": truth.n}),
             truth.n, ("protocol.steps", "notebook.decisions", "qc.list"),
             "Every reading of the series less the notebook's and the QC list's exclusions and the saturated ones.",
             counted),
        Item("fit.units", "The slope's unit is the protocol's signal unit per its dose unit.", FIT,
             CheckSpec(check="json_path_equals", params={"path": FIT, "json_path": "$.slope_unit", "expected": unit,
                                                         "normalize": ["whitespace"]}),
             unit, ("protocol.steps",), "The protocol fixes the units of every result.", quiet),
        Item("means.values", "The per-dose means of the cleaned, calibrated series (0.1 %).", MEANS,
             means_check(["mean_signal"], rows, relative=RELATIVE), rows, facts, reasoning, changed, secret=True),
        Item("means.n", "The per-dose n add up to the fit's analysis set.", MEANS,
             means_check(["n"], rows, relative=0.0), [(r["dose"], r["n"]) for r in rows],
             ("protocol.steps", "notebook.decisions", "qc.list"), "The analysis set, per dose.", counted),
        Item("report.slope", "The report states the fitted slope (three decimals).", REPORT,
             checks.text_matches(REPORT, checks.labelled_number("Slope", truth.slope, decimals=3)), truth.slope,
             facts, "The fit of the first deliverable.", changed, secret=True),
        Item("report.intercept", "The report states the fitted intercept (three decimals).", REPORT,
             checks.text_matches(REPORT, checks.labelled_number("Intercept", truth.intercept, decimals=3)),
             truth.intercept, facts, "The fit of the first deliverable.", changed, secret=True),
        Item("report.n", "The report states the number of readings used.", REPORT,
             checks.text_matches(REPORT, checks.labelled_number("Readings used", truth.n, decimals=0)), truth.n,
             ("protocol.steps",), "The analysis set's size.", counted),
    ]  # fmt: skip


KIT = LabDataKit()
