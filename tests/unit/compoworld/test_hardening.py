"""Rule-based hardening of CompoWorld tasks: longer walks, distractor services, stricter constraints,
each kept only when the gates still pass."""

from __future__ import annotations

import itertools

import pytest

from skill2env.compoworld.gates import validate_compo_task
from skill2env.compoworld.graph import ToolGraph
from skill2env.compoworld.rollout import meta_tool_counts, roll_out_compo
from skill2env.compoworld.scoring import score
from skill2env.compoworld.tasks import CompoTask, generate_tasks, replay, replay_states
from skill2env.hardening.compoworld import (
    HARDEN_ABOVE,
    NO_SIDE_EFFECTS,
    STRICT_WEIGHT,
    exact_records,
    harden_compo_task,
    no_side_effects,
    pick_distractor,
    with_distractor,
)


@pytest.fixture(scope="module")
def tasks(graph: ToolGraph) -> list[CompoTask]:
    return generate_tasks(graph, "operations", 4, seed=0, min_length=3).tasks


def solved(task: CompoTask, attempts: int = 3) -> list[dict[str, float]]:
    return [{item.id: 1.0 for item in task.rubric.items}] * attempts


def test_a_solved_task_gets_a_harder_version_that_passes_the_gates(tasks: list[CompoTask], graph: ToolGraph) -> None:
    task = tasks[0]

    hardened = harden_compo_task(task, solved(task), graph=graph)

    assert hardened.task_id != task.task_id and hardened.task_id == hardened.content_digest()
    assert (hardened.iteration, hardened.parent_task_id) == (1, task.task_id)
    assert hardened.hardening[0] == "longer_walk" and len(hardened.chain) == len(task.chain) + 1
    assert set(task.chain) < set(hardened.chain)
    assert [m for m in hardened.hardening if m.startswith("distractor:")] == [f"distractor:{hardened.distractors[0]}"]
    assert hardened.distractors[0] not in hardened.services and hardened.distractors[0] in hardened.initial_states
    assert hardened.hardening[-1] in ("exact_records", "no_side_effects")
    validation = validate_compo_task(hardened)
    assert validation.accepted, validation.failing
    assert hardened.scores is not None and hardened.scores.oracle == 1.0 and hardened.scores.nop <= 0.1


def test_hardening_goes_on_round_after_round(tasks: list[CompoTask], graph: ToolGraph) -> None:
    versions = [tasks[1]]
    for _ in range(3):
        versions.append(harden_compo_task(versions[-1], solved(versions[-1]), graph=graph))

    assert [v.iteration for v in versions] == [0, 1, 2, 3]
    assert all(b.parent_task_id == a.task_id for a, b in itertools.pairwise(versions))
    assert [len(v.distractors) for v in versions] == [0, 1, 2, 3]
    assert len(versions[-1].chain) > len(versions[0].chain)
    assert versions[-1].hardening[: len(versions[1].hardening)] == versions[1].hardening
    for version in versions:
        assert validate_compo_task(version).accepted


def test_an_unsolved_task_is_left_as_it_is(tasks: list[CompoTask], graph: ToolGraph) -> None:
    task = tasks[0]
    failing = [{item.id: 0.0 for item in task.rubric.items}] * 3
    assert harden_compo_task(task, failing, graph=graph) is task
    assert harden_compo_task(task, [], graph=graph) is task
    half = [{item.id: 1.0 for item in task.rubric.items}, {item.id: 0.0 for item in task.rubric.items}]
    assert HARDEN_ABOVE >= 0.5 and harden_compo_task(task, half, graph=graph) is task


def test_the_agent_sees_the_distractor_and_the_oracle_still_solves_it(tasks: list[CompoTask], graph: ToolGraph) -> None:
    task = tasks[2]
    name = pick_distractor(task, graph)
    assert name is not None and name not in task.initial_states
    harder = with_distractor(task, name)

    [done] = roll_out_compo([harder], "oracle", host="in_process")

    listing = done.trajectory.steps[2].observations[0].content
    assert f'"name": "{name}"' in listing and done.reward == 1.0
    assert meta_tool_counts(done.trajectory)["list_services"] == 1


def test_no_side_effects_checks_the_fields_the_oracle_leaves_alone(tasks: list[CompoTask]) -> None:
    task = tasks[0]
    stricter = no_side_effects(task)
    assert stricter is not None and stricter.goal.endswith(NO_SIDE_EFFECTS)
    frozen = [item for item in stricter.rubric.items if item.id.startswith("frozen-")]
    assert frozen and sum(item.weight for item in frozen) == pytest.approx(STRICT_WEIGHT)
    assert replay(stricter, stricter.oracle, stricter.oracle_answer).reward == pytest.approx(1.0)
    assert replay(stricter, [], "").reward == pytest.approx(STRICT_WEIGHT)
    # A stray change to a field the oracle leaves alone now costs.
    states = replay_states(stricter, stricter.oracle)
    params = frozen[0].check.params if frozen[0].check else {}
    states[params["service"]][params["path"][0]] = "changed"
    assert score(stricter.rubric, states, stricter.oracle_answer).reward == pytest.approx(1.0 - frozen[0].weight)


def test_exact_records_asks_for_the_whole_record(tasks: list[CompoTask], graph: ToolGraph) -> None:
    for task in generate_tasks(graph, "commerce", 8, seed=1, min_length=3).tasks:
        stricter = exact_records(task)
        if stricter is None:
            continue
        before = {i.id: i.check.params for i in task.rubric.items if i.check}
        after = {i.id: i.check.params for i in stricter.rubric.items if i.check}
        widened = [k for k in before if before[k] != after[k]]
        assert widened and all(set(before[k]["expected"]) < set(after[k]["expected"]) for k in widened)
        assert replay(stricter, stricter.oracle, stricter.oracle_answer).reward == pytest.approx(1.0)
        return
    pytest.fail("no commerce task with a record check to widen")
