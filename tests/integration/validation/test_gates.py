"""Validation gates on real sandboxes: a sound task is accepted; each broken task fails its gate."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from task_samples import billing_draft, make_skill_dir

from skill2env.patterns.models import InformationLevel
from skill2env.rubric.models import Rubric
from skill2env.sandbox.backends import BackendName, make_sandbox
from skill2env.sandbox.base import Sandbox, SandboxLimits
from skill2env.sandbox.errors import SandboxCrashed
from skill2env.tasks.draft import TaskDraft
from skill2env.tasks.harbor import write_task_dir
from skill2env.validation import gates
from skill2env.validation.gates import Gate, GateStatus, validate_task

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.bwrap]
BACKEND: BackendName = "bwrap"


def _write(draft: TaskDraft, tmp_path: Path) -> Path:
    dest = tmp_path / "task"
    write_task_dir(draft, dest, skill_dir=make_skill_dir(tmp_path / "skills"))
    return dest


def _status(validation: object, gate: Gate) -> GateStatus:
    return next(o.status for o in validation.outcomes if o.gate == gate)  # type: ignore[attr-defined]


def test_a_sound_task_passes_every_gate(tmp_path: Path) -> None:
    draft = billing_draft()
    validation = validate_task(
        "sound", _write(draft, tmp_path), draft.blueprint.rubric, backend=BACKEND, blueprint=draft.blueprint
    )
    assert validation.accepted, [o.evidence for o in validation.outcomes]
    oracle = next(o for o in validation.outcomes if o.gate == Gate.oracle)
    assert oracle.reward is not None and oracle.reward >= 0.99


def test_an_oracle_that_fails_its_own_checks_is_rejected(tmp_path: Path) -> None:
    draft = billing_draft()
    broken = dataclasses.replace(draft, solve_sh=draft.solve_sh.replace("total_paid", "total_unpaid"))
    validation = validate_task("bad-oracle", _write(broken, tmp_path), draft.blueprint.rubric, backend=BACKEND,
                               blueprint=draft.blueprint)  # fmt: skip
    assert not validation.accepted and _status(validation, Gate.oracle) == GateStatus.failed


def test_a_task_the_nop_passes_is_rejected(tmp_path: Path) -> None:
    draft = billing_draft()
    # A rubric that only asks for what the initial workspace already satisfies.
    unchanged = [item for item in draft.blueprint.rubric.items if item.check and item.check.check == "file_unchanged"]
    assert unchanged, "the sample rubric has a file_unchanged item"
    lenient = Rubric(items=[unchanged[0].model_copy(update={"weight": 1.0})])
    validation = validate_task(
        "nop-passes", _write(draft, tmp_path), lenient, backend=BACKEND, blueprint=draft.blueprint
    )
    assert not validation.accepted and _status(validation, Gate.nop) == GateStatus.failed


def test_a_task_a_partial_solution_passes_is_rejected(tmp_path: Path) -> None:
    draft = billing_draft()
    validation = validate_task("partial-passes", _write(draft, tmp_path), draft.blueprint.rubric, backend=BACKEND,
                               blueprint=draft.blueprint, partial_fraction=1.0)  # fmt: skip
    assert not validation.accepted and _status(validation, Gate.partial) == GateStatus.failed


def test_a_value_that_reaches_the_stored_task_after_the_draft_was_checked_is_a_leak(tmp_path: Path) -> None:
    draft = billing_draft()
    task_dir = _write(draft, tmp_path)
    hidden = next(f for f in draft.blueprint.facts_at(InformationLevel.AUTHOR_ONLY) if f.id == "outstanding")
    notes = task_dir / "environment" / "workspace" / "notes.md"
    notes.write_text(f"{notes.read_text() if notes.exists() else ''}\nOutstanding in all: {hidden.value}\n")
    validation = validate_task("leaky", task_dir, draft.blueprint.rubric, backend=BACKEND, blueprint=draft.blueprint)
    assert not validation.accepted and _status(validation, Gate.leak) == GateStatus.failed
    leak = next(o for o in validation.outcomes if o.gate == Gate.leak)
    assert "outstanding" in leak.evidence and "notes.md" in leak.evidence
    assert json.dumps([o.gate.value for o in validation.outcomes]) == json.dumps(
        ["oracle", "nop", "partial", "leak", "judge", "hack_probe"]
    )


class EngineFailures:
    """Real sandboxes, of which the ones numbered in `failing` (1: the first made) fail to start as a lost engine
    would."""

    def __init__(self, failing: set[int]) -> None:
        self.failing, self.made = failing, 0

    def __call__(self, backend: BackendName, limits: SandboxLimits | None = None) -> Sandbox:
        self.made += 1
        sandbox = make_sandbox(backend, limits)
        if self.made in self.failing:

            def lost_engine(_: object) -> None:
                raise SandboxCrashed("the engine stopped answering")

            sandbox.start = lost_engine  # type: ignore[method-assign]
        return sandbox


def test_a_gate_whose_run_meets_an_infrastructure_failure_runs_again_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gates, "make_sandbox", EngineFailures({1}))  # the oracle's run
    draft = billing_draft()
    validation = validate_task("flaky-engine", _write(draft, tmp_path), draft.blueprint.rubric, backend=BACKEND,
                               blueprint=draft.blueprint)  # fmt: skip

    assert validation.accepted, [o.evidence for o in validation.outcomes]
    oracle = next(o for o in validation.outcomes if o.gate == Gate.oracle)
    assert "run again: the first try met an infrastructure failure" in oracle.evidence
    assert "the engine stopped answering" in oracle.evidence
    assert all("run again" not in o.evidence for o in validation.outcomes if o.gate != Gate.oracle)


def test_a_gate_that_meets_it_twice_is_an_infra_error_and_the_task_is_not_accepted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The oracle's run, then its second try's run (each run makes a sandbox, its verification another).
    monkeypatch.setattr(gates, "make_sandbox", EngineFailures({1, 2}))
    draft = billing_draft()
    validation = validate_task("lost-engine", _write(draft, tmp_path), draft.blueprint.rubric, backend=BACKEND,
                               blueprint=draft.blueprint)  # fmt: skip

    assert not validation.accepted and _status(validation, Gate.oracle) == GateStatus.infra_error
    oracle = next(o for o in validation.outcomes if o.gate == Gate.oracle)
    assert oracle.evidence.count("the engine stopped answering") == 2
    assert _status(validation, Gate.hack_probe) == GateStatus.skipped  # nothing to probe without a passing oracle
