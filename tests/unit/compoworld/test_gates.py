"""The validation gates for CompoWorld tasks: the project's gate names and thresholds, by replay."""

from __future__ import annotations

import pytest

from skill2env.compoworld.gates import BACKEND, compo_validations_frame, leaks, validate_compo_task
from skill2env.compoworld.graph import ToolGraph
from skill2env.compoworld.service import DOMAINS
from skill2env.compoworld.tasks import NOP_MAX, PARTIAL_MAX, CompoTask, generate_tasks
from skill2env.rubric.models import CheckSpec
from skill2env.validation.gates import NOP_AT_MOST, ORACLE_AT_LEAST, Gate, GateStatus
from skill2env.validation.tables import VALIDATIONS_SCHEMA


@pytest.fixture(scope="module")
def tasks(graph: ToolGraph) -> list[CompoTask]:
    made: list[CompoTask] = []
    for domain in DOMAINS:
        made += generate_tasks(graph, domain, 4, seed=11, min_length=3).tasks
    return made


def test_generated_tasks_of_three_or_more_tools_pass_every_gate(tasks: list[CompoTask]) -> None:
    assert len(tasks) == 16 and all(len(t.chain) >= 3 for t in tasks)
    assert sum("cross_service" in t.capability_tags for t in tasks) >= 12
    for task in tasks:
        validation = validate_compo_task(task)
        assert validation.accepted, (task.chain, validation.failing, [o.evidence for o in validation.outcomes])
        by_gate = {o.gate: o for o in validation.outcomes}
        assert list(by_gate) == list(Gate)
        assert by_gate[Gate.oracle].reward is not None and by_gate[Gate.oracle].reward >= ORACLE_AT_LEAST
        assert by_gate[Gate.nop].reward is not None and by_gate[Gate.nop].reward <= NOP_AT_MOST
        assert by_gate[Gate.partial].reward is not None and by_gate[Gate.partial].reward < PARTIAL_MAX
        assert by_gate[Gate.judge].status == GateStatus.skipped
        assert set(by_gate[Gate.oracle].item_rewards) == {i.id for i in task.rubric.items}


def test_generation_uses_the_gate_thresholds() -> None:
    assert NOP_MAX == NOP_AT_MOST and PARTIAL_MAX == 0.7


def test_the_validations_frame_has_the_lake_shape(tasks: list[CompoTask]) -> None:
    frame = compo_validations_frame(tasks[:3])

    assert frame.schema == VALIDATIONS_SCHEMA and frame.height == 3 * len(Gate)
    assert set(frame.get_column("backend")) == {BACKEND} and frame.get_column("accepted").all()
    assert set(frame.get_column("gate")) == {g.value for g in Gate}


def test_a_broken_rubric_fails_the_oracle_gate(tasks: list[CompoTask]) -> None:
    task = tasks[0]
    items = list(task.rubric.items)
    wrong = CheckSpec(check="state_equals", params={"service": task.services[0], "path": ["nowhere"], "expected": 1})
    items[-1] = items[-1].model_copy(update={"check": wrong})
    broken = task.model_copy(update={"rubric": task.rubric.model_copy(update={"items": items})})

    validation = validate_compo_task(broken)

    assert not validation.accepted and "oracle" in validation.failing
    oracle = next(o for o in validation.outcomes if o.gate == Gate.oracle)
    assert items[-1].id in oracle.evidence


def test_the_leak_gate_catches_what_the_goal_must_not_say(tasks: list[CompoTask]) -> None:
    task = tasks[0]
    assert leaks(task) == []
    step = task.chain[-1]
    named = task.model_copy(update={"goal": f"{task.goal} Use {step}."})
    assert any(step in problem for problem in leaks(named))
    assert "leak" in validate_compo_task(named).failing
    told = [t.model_copy(update={"goal": f"{t.goal} (It is {t.oracle_answer}.)"}) for t in tasks if t.oracle_answer]
    assert any(any("gives away" in problem for problem in leaks(t)) for t in told)


def test_the_leak_gate_catches_a_linked_value_spelled_out(tasks: list[CompoTask]) -> None:
    for task in tasks:
        for link in task.links:
            value = task.oracle[link.to_step].arguments.get(link.parameter)
            if not isinstance(value, str) or len(value) < 4:
                continue
            spelled = task.model_copy(update={"goal": f"{task.goal} It is {value}."})
            if any("spells out" in problem for problem in leaks(spelled)):
                return
    pytest.fail("no task whose linked identifier, spelled out, counts as a leak")
