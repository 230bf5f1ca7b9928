"""The kits' scripts, run on the host against temp copies of the workspace (no sandbox).

Every built task must validate: the reference solver scores 1.0 on every deterministic item, the
untouched workspace at most 0.1, a partial solution below 0.7. Over a hardening loop driven by the
naive policy's own results, the naive policy's full-credit rate falls strictly with each iteration, in
every kit, and gradually: some tasks still reach full credit after two rounds.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from kit_runs import materialize, missing_tools, oracle_and_partial, rollout, score

from skill2env.agent.scripted import truncated_script
from skill2env.kits import KITS
from skill2env.kits.base import FULL_CREDIT, Kit
from skill2env.kits.spec import seeded
from skill2env.patterns.pool import seed_pool
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.checks import check_draft
from skill2env.tasks.draft import TaskDraft

SKILL = SkillRef(skill_id="s-kit", name="kit-skill", path="kit-skill")
PROPERTY_SEEDS = range(20)
ITERATIONS = 3
NOP_AT_MOST = 0.1
PARTIAL_BELOW = 0.7


@pytest.fixture(autouse=True)
def _tools() -> None:
    missing = missing_tools()
    if missing:
        pytest.skip(f"the kit scripts need {', '.join(missing)} (apt-get install poppler-utils tesseract-ocr)")


def initial_patterns(kit: Kit, seed: int, count: int = 3) -> dict[str, int]:
    """A seeded, conflict-free starting selection of `count` kit patterns at intensity 1."""
    pool = seed_pool()
    chosen: list[str] = []
    for pattern_id in seeded("initial", kit.name, seed).sample(list(kit.patterns), len(kit.patterns)):
        if len(chosen) < count and not any(pattern_id in pool.conflicts(p) for p in chosen):
            chosen.append(pattern_id)
    return dict.fromkeys(chosen, 1)


def nop_reward(draft: TaskDraft) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        return score(draft.blueprint.rubric, materialize(draft, Path(tmp)))[0]


def assert_valid(draft: TaskDraft) -> None:
    """The validation gates, on the host: oracle 1.0 on every item, nop ≤ 0.1, partial < 0.7."""
    (reward, items), partial, log = oracle_and_partial(draft)
    failed = sorted(item for item, value in items.items() if value < 1.0)
    assert not failed and reward >= FULL_CREDIT, f"{draft.blueprint.task_name}: oracle failed {failed}\n{log}"
    assert partial < PARTIAL_BELOW, f"{draft.blueprint.task_name}: first deliverable alone scores {partial}"
    assert nop_reward(draft) <= NOP_AT_MOST


@pytest.mark.parametrize("kit_name", sorted(KITS))
def test_hardest_task_validates_and_every_script_runs(kit_name: str) -> None:
    """Every pattern at intensity 3: the oracle passes, partial scripts stay below the threshold and
    the naive policy runs to the end (it is expected to score low)."""
    kit = KITS[kit_name]
    draft = kit.build(11, SKILL, "x", dict.fromkeys(kit.patterns, 3))
    assert_valid(draft)
    assert rollout(draft, kit.partial_policy())[0] < PARTIAL_BELOW
    assert rollout(draft, truncated_script(draft.solve_sh, 0.5))[0] < PARTIAL_BELOW
    naive, _, log = rollout(draft, kit.naive_policy())
    assert "Traceback" not in log, log
    assert naive < FULL_CREDIT


@pytest.mark.slow
@pytest.mark.timeout(900)  # the kit's 60 tasks, each validated and rolled out
@pytest.mark.parametrize("name", sorted(KITS))
def test_every_iteration_validates_and_the_naive_full_credit_rate_falls(name: str) -> None:
    """20 seeds × 3 hardening iterations of one kit: each task passes validation and the author-side
    checks, each round changes the task by one step, and the naive policy's full-credit rate, pooled
    over the seeds, falls strictly from iteration 0 to 1 to 2 without reaching zero."""
    kit, counts = KITS[name], [0] * ITERATIONS
    naive = kit.naive_policy()
    for seed in PROPERTY_SEEDS:
        patterns, parent = initial_patterns(kit, seed), None
        for iteration in range(ITERATIONS):
            draft = kit.build(seed, SKILL, "x", patterns, iteration=iteration, parent=parent)
            report = check_draft(draft)
            assert report.passed, (draft.blueprint.task_name, report.reasons)
            assert_valid(draft)
            assert_one_step(draft)
            reward, items, log = rollout(draft, naive)
            assert "Traceback" not in log, log
            counts[iteration] += reward >= FULL_CREDIT
            patterns, parent = kit.harden(draft, items), draft.blueprint
    shares = [n / len(PROPERTY_SEEDS) for n in counts]
    print(f"{name}: naive full-credit rate by iteration {shares}")
    assert counts[0] > counts[1] > counts[2] > 0, shares


def assert_one_step(draft: TaskDraft) -> None:
    """A hardened task differs from its parent by one move: one pattern one intensity up, or one new
    pattern at intensity 1."""
    revision = draft.blueprint.revision
    if revision is None:
        return
    moves = [(entry["from"], entry["to"]) for entry in revision.diff]
    assert len(moves) == 1 and moves[0] in {(1, 2), (2, 3), (None, 1)}, (draft.blueprint.task_name, moves)
