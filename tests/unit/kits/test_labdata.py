"""The lab-data kit: its solver earns full credit at every intensity, the naive baseline does not once
the traps are harmful, no expected number shows in the workspace, a fit or a mean off by a little
loses credit, and only skills that work with measurements are served."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import tempfile
from pathlib import Path

from kit_runs import materialize, rollout, score

from skill2env.kits import KITS, kit_matches
from skill2env.kits.base import FULL_CREDIT
from skill2env.kits.labdata import FIT, KIT, MEANS, REPORT
from skill2env.kits.labdata.world import analyse
from skill2env.patterns.traits import SkillProfile
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.checks import check_draft
from skill2env.tasks.draft import TaskDraft

SKILL = SkillRef(skill_id="s-lab", name="instrument-analysis", path="instrument-analysis")
NEW_PATTERNS = {
    "decisive_tool_flag",
    "wrong_default_in_skill_script",
    "prescribed_step_order",
    "unit_convention_lock",
    "logged_decision_binding",
    "shared_intermediate_reuse",
    "conditional_branch_on_data",
    "non_commuting_steps",
}


def build(seed: int, patterns: dict[str, int]) -> TaskDraft:
    return KIT.build(seed, SKILL, "science-research", patterns)


def solved(draft: TaskDraft, root: Path) -> Path:
    materialize(draft, root)
    subprocess.run(["bash", "-c", draft.solve_sh], env={**os.environ, "WORKSPACE": str(root)}, check=True)
    return root


def test_the_kit_is_registered_with_its_patterns() -> None:
    assert KITS["labdata"] is KIT
    assert len(KIT.patterns) >= 10
    assert set(KIT.patterns) >= NEW_PATTERNS


def test_the_naive_baseline_is_right_on_a_world_without_harmful_traps() -> None:
    seed = next(s for s in range(40) if not KIT.world(s, {"non_commuting_steps": 1})[0].harmful)
    reward, items, log = rollout(build(seed, {"non_commuting_steps": 1}), KIT.naive_policy())
    assert reward >= FULL_CREDIT, (items, log)


def test_no_expected_number_is_readable_in_the_workspace() -> None:
    for seed in (0, 1, 2):
        draft = build(seed, dict.fromkeys(KIT.patterns, 3))
        assert check_draft(draft).leak.leaked == 0


def test_the_same_seed_gives_the_same_files() -> None:
    patterns = dict.fromkeys(KIT.patterns, 2)
    assert build(9, patterns).workspace == build(9, patterns).workspace


def test_a_slope_or_a_mean_off_by_half_a_percent_loses_credit() -> None:
    draft = build(4, {"unit_convention_lock": 3, "logged_decision_binding": 2})
    with tempfile.TemporaryDirectory() as tmp:
        root = solved(draft, Path(tmp))
        reward, _ = score(draft.blueprint.rubric, root)
        assert reward >= FULL_CREDIT
        fit = json.loads((root / FIT).read_text())
        (root / FIT).write_text(json.dumps({**fit, "slope": fit["slope"] * 1.005, "n": fit["n"] + 1}))
        rows = list(csv.DictReader(io.StringIO((root / MEANS).read_text())))
        rows[-1]["mean_signal"] = str(float(rows[-1]["mean_signal"]) * 1.005)
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=["dose", "mean_signal", "n"], lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        (root / MEANS).write_text(buffer.getvalue())
        reward, items = score(draft.blueprint.rubric, root)
        assert items["fit.slope"] == 0.0 and items["fit.n"] == 0.0 and items["means.values"] == 0.0
        assert items["fit.intercept"] == 1.0 and items["means.n"] == 1.0 and reward < 0.7


def test_the_expected_fit_follows_the_protocol_not_the_raw_numbers() -> None:
    patterns = dict.fromkeys(KIT.patterns, 3)
    world, _ = KIT.world(2, patterns)
    truth = analyse(world)
    assert truth.n == sum(n for _, n in truth.means.values())
    assert truth.n < len(world.readings)
    with tempfile.TemporaryDirectory() as tmp:
        root = solved(build(2, patterns), Path(tmp))
        fit = json.loads((root / FIT).read_text())
        assert fit["n"] == truth.n and abs(fit["slope"] - truth.slope) <= 1e-6 * abs(truth.slope)
        assert "Readings used" in (root / REPORT).read_text()


def _skill(name: str, text: str, **fields: object) -> dict[str, object]:
    row: dict[str, object] = {"skill_id": f"sk-{name}", "path": f"skills/{name}", "domain": "science", "name": name,
                              "description": text, "skill_md_text": text, "languages": [], "programs": [],
                              "cli_tools": [], "dependency_names": [], "extensions": [], "file_kinds": []}  # fmt: skip
    return row | fields


def test_a_measurement_analysis_skill_is_served_by_the_kit() -> None:
    skill = _skill(
        "instrument-data",
        "Load measurements exported by lab instruments, apply the calibration of each sensor, convert units, "
        "fit dose-response curves with scipy and report the fitted parameters with their uncertainty.",
        dependency_names=["scipy", "pint"],
    )
    assert kit_matches(SkillProfile.from_row(skill), KITS)[0].kit == "labdata"


def test_a_skill_that_only_mentions_an_experiment_is_not_served() -> None:
    skill = _skill(
        "invoice-matching",
        "Match supplier invoices to purchase orders and payments; run an experiment with the matching threshold "
        "and write the reconciliation to a CSV.",
    )
    match = next(m for m in kit_matches(SkillProfile.from_row(skill), KITS) if m.kit == "labdata")
    assert match.score == 0.0 and "the kit needs" in match.reason
