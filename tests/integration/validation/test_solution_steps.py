"""The partial gate of a model-authored task: a solution in steps is cut between its steps (the
first half runs, and earns more than the nop and less than the oracle); a solution that is one
program cannot be cut, and the gate says so (`skipped`, never `passed`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harbor_tasks import require_backend
from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, json_answer
from model_author_script import (
    ONE_PROGRAM_SOLVE_SH,
    SubprocessRunner,
    blueprint_answer,
    build_answer,
    log_skill_row,
    make_log_skill,
    selection_rows,
)

from skill2env.llm.cache import CacheMode
from skill2env.rubric.models import Rubric
from skill2env.tasks.build import author_tasks
from skill2env.tasks.model_author import ModelAuthor
from skill2env.tasks.records import TaskStatus
from skill2env.tasks.store import TaskStore
from skill2env.validation.gates import NO_STEPS, Gate, GateOutcome, GateStatus, Validation, validate_task

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.bwrap]


def _validated(server: ScriptedServer, make_client: ClientFactory, tmp_path: Path, build: dict[str, Any]) -> Validation:
    """Author the log task with the scripted model (this build answer), store it, run every gate in bwrap."""
    require_backend("bwrap")
    server.script(json_answer(blueprint_answer()), json_answer(build))
    author = ModelAuthor(make_client(cache=CacheMode.off), runner=SubprocessRunner())
    store, skills_root = TaskStore(tmp_path / "home"), tmp_path / "skills"
    make_log_skill(skills_root)
    authored = author_tasks([log_skill_row()], selection_rows(), author, skills_root=skills_root, store=store)
    (record,) = authored.tasks
    ((blueprint, _),) = authored.blueprints
    assert record.status == TaskStatus.built, record.reasons
    task_dir = store.resolve(record.store_path or "")
    rubric = Rubric.model_validate_json((task_dir / "tests" / "rubric.json").read_text())
    return validate_task(record.task_id or "", task_dir, rubric, backend="bwrap", blueprint=blueprint)


def _outcomes(validation: Validation) -> dict[Gate, GateOutcome]:
    return {o.gate: o for o in validation.outcomes}


def test_the_partial_gate_runs_the_first_half_of_the_steps(
    server: ScriptedServer, make_client: ClientFactory, tmp_path: Path
) -> None:
    validation = _validated(server, make_client, tmp_path, build_answer())
    gates = _outcomes(validation)
    oracle, nop, partial = gates[Gate.oracle], gates[Gate.nop], gates[Gate.partial]
    assert validation.accepted, [(o.gate.value, o.status.value, o.evidence) for o in validation.outcomes]
    assert partial.status == GateStatus.passed, partial.evidence
    assert "['first-error-and-hourly-buckets'] of" in partial.evidence and "'incident-note'" in partial.evidence
    assert nop.reward is not None and partial.reward is not None and oracle.reward is not None
    assert nop.reward < partial.reward < oracle.reward
    # The first step writes the first error and the hourly buckets; the count and the suspect come later.
    assert partial.item_rewards["first-failure"] == partial.item_rewards["hourly-errors"] == 1.0
    assert partial.item_rewards["error-total"] == partial.item_rewards["culprit-deploy"] == 0.0


def test_a_solution_that_is_one_program_is_not_cut_and_the_gate_says_why(
    server: ScriptedServer, make_client: ClientFactory, tmp_path: Path
) -> None:
    build = build_answer() | {"solve_sh": ONE_PROGRAM_SOLVE_SH}
    validation = _validated(server, make_client, tmp_path, build)
    gates = _outcomes(validation)
    partial = gates[Gate.partial]
    assert partial.status == GateStatus.skipped and partial.reward is None and partial.rollout_id is None
    assert partial.evidence.startswith(NO_STEPS) and "cannot cut it" in partial.evidence
    assert gates[Gate.oracle].status == GateStatus.passed  # the same program, run whole, is still the oracle
    assert validation.acceptance == "accepted_without_judge", validation.failing
