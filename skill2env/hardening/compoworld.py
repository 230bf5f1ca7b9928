"""Rule-based hardening of CompoWorld tasks: the next version of a task a group solved too easily.

`harden_compo_task(task, results)` looks at a group's item results; when their mean reward is
above `HARDEN_ABOVE` (0.7, the paper's trigger) it makes the next version with these moves, each
kept only when the task still passes every gate (`gates.validate_compo_task`) after it:

1. `longer_walk` — the chain grows by one tool along the best edge out of its last tool (a data
   edge carrying an identifier first, across services first) or, when nothing can follow it, into
   its first, and the task is composed again from the same universe seed (up to `MAX_CHAIN` tools);
2. `distractor:<service>` — a service the task does not need joins the world, the one with the
   most graph edges to the task's services (so its tools look relevant); at most `MAX_DISTRACTORS`;
3. a stricter constraint, the next level not yet applied:
   `exact_records` — every record check that asked for the changed fields now asks for the whole
   record as the oracle leaves it (touching other fields of it fails);
   `no_side_effects` — every state field of the world the oracle leaves alone must stay as it
   was (`STRICT_WEIGHT` of the reward, the rest scaled down), and the goal says so.

The new version has `iteration` + 1, `parent_task_id`, its moves appended to `hardening`, fresh
replay scores and its own `task_id`. A version that needs no hardening, or for which no move
keeps the gates, is returned unchanged.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from functools import cache

from skill2env.compoworld.gates import validate_compo_task
from skill2env.compoworld.graph import Edge, ToolGraph, build_graph
from skill2env.compoworld.scoring import _strip, value_at
from skill2env.compoworld.service import BOOKKEEPING_FIELDS
from skill2env.compoworld.services import SERVICES
from skill2env.compoworld.tasks import (
    CompoTask,
    Rejected,
    _created_ids,
    compose_task,
    replay_scores,
    replay_states,
)
from skill2env.compoworld.walks import Walk, edge_weight
from skill2env.compoworld.world import World
from skill2env.compoworld.world_model import RecordedWorldModel, WorldModel
from skill2env.rubric import CheckSpec, Method, Rubric, RubricItem
from skill2env.thresholds import HARDEN_ABOVE

MAX_CHAIN = 10
MAX_DISTRACTORS = 3
EXTEND_TRIES = 8
"""Extensions tried at each end of the chain."""
STRICT_WEIGHT = 0.05
STRICT_LEVELS = ("exact_records", "no_side_effects")
NO_SIDE_EFFECTS = "Change nothing beyond what this asks."


@cache
def default_graph() -> ToolGraph:
    return build_graph(spec for cls in SERVICES.values() for spec in cls.specs())


def mean_reward(task: CompoTask, results: Sequence[Mapping[str, float]]) -> float:
    """The group's mean Σ w·q under the task's rubric."""
    weights = {item.id: item.weight for item in task.rubric.items}
    return math.fsum(sum(w * r.get(i, 0.0) for i, w in weights.items()) for r in results) / len(results)


def _finish(task: CompoTask) -> CompoTask:
    scored = task.model_copy(update={"scores": replay_scores(task), "task_id": ""})
    return scored.model_copy(update={"task_id": scored.content_digest()})


def _passes(task: CompoTask) -> bool:
    return validate_compo_task(task).accepted


# -- the moves ------------------------------------------------------------------------------------


def _best_edge(graph: ToolGraph, source: str, target: str) -> Edge | None:
    edges = [e for e in graph.out.get(source, []) if e.target == target]
    return max(edges, key=lambda e: (edge_weight(e), e.kind == "data", e.via, e.parameter)) if edges else None


def _rank(edge: Edge, end: str) -> tuple[float, bool, str, str, str]:
    return (-edge_weight(edge), not edge.cross_service, end, edge.via, edge.parameter)


def longer_walk(task: CompoTask, graph: ToolGraph, world_model: WorldModel | None = None) -> CompoTask | None:
    """The task composed again over its chain plus one tool — after its last tool, or, when nothing
    can follow it (a tool whose result feeds no other), before its first; None when no extension
    makes a task."""
    if len(task.chain) >= MAX_CHAIN:
        return None
    found = [_best_edge(graph, a, b) for a, b in itertools.pairwise(task.chain)]
    edges = [edge for edge in found if edge is not None]
    if len(edges) != len(found):
        return None
    after = sorted(
        (e for e in graph.out.get(task.chain[-1], []) if e.target not in task.chain), key=lambda e: _rank(e, e.target)
    )
    before = sorted(
        (e for e in graph.into.get(task.chain[0], []) if e.source not in task.chain), key=lambda e: _rank(e, e.source)
    )
    appended = [Walk((*task.chain, e.target), (*edges, e)) for e in after]
    prepended = [Walk((e.source, *task.chain), (e, *edges)) for e in before]
    model = RecordedWorldModel(task.simulations, fallback=world_model) if task.simulations else world_model
    for walks in (appended, prepended):
        tried: set[tuple[str, ...]] = set()
        for walk in walks:
            if walk.steps in tried or len(tried) >= EXTEND_TRIES:
                continue
            tried.add(walk.steps)
            try:
                return compose_task(walk, graph, domain=task.domain, seed=task.seed, world_model=model)
            except Rejected:
                continue
    return None


def pick_distractor(task: CompoTask, graph: ToolGraph) -> str | None:
    """The service outside the world with the most edges to the task's services (ties: by name)."""
    if len(task.distractors) >= MAX_DISTRACTORS:
        return None
    own = set(task.services)
    scores = {name: 0 for name in SERVICES if name not in task.initial_states}
    for edge in graph.edges:
        source, target = edge.source.split(".", 1)[0], edge.target.split(".", 1)[0]
        if source in scores and target in own:
            scores[source] += 1
        elif target in scores and source in own:
            scores[target] += 1
    ranked = sorted(scores, key=lambda name: (-scores[name], name))
    return ranked[0] if ranked else None


def with_distractor(task: CompoTask, name: str) -> CompoTask:
    """The task with `name`'s fixture state (of the task's universe) added to its world."""
    state = World.build([name], seed=task.seed).states()[name]
    return task.model_copy(
        update={"initial_states": {**task.initial_states, name: state}, "distractors": [*task.distractors, name]}
    )


def exact_records(task: CompoTask) -> CompoTask | None:
    """Record checks ask for the whole record as the oracle leaves it; None when none would change."""
    final = replay_states(task, task.oracle)
    created = _created_ids(task.initial_states, final)
    items, changed = [], False
    for item in task.rubric.items:
        check = item.check
        if check is not None and check.check == "state_equals" and check.params.get("subset"):
            record = value_at(final.get(check.params["service"], {}), check.params["path"])
            whole = _strip(record, created) if isinstance(record, dict) else None
            if isinstance(whole, dict) and whole != check.params.get("expected"):
                params = {**check.params, "expected": whole}
                shown = ", ".join(f"{k}={v!r}" for k, v in whole.items())
                description = (
                    f"{check.params['service']}: {'/'.join(map(str, check.params['path']))} is exactly {shown}"
                )
                item = item.model_copy(
                    update={"check": CheckSpec(check="state_equals", params=params), "description": description[:400]}
                )
                changed = True
        items.append(item)
    if not changed:
        return None
    return task.model_copy(update={"rubric": task.rubric.model_copy(update={"items": items})})


def no_side_effects(task: CompoTask) -> CompoTask | None:
    """Every state field the oracle leaves alone must stay as it was; None when there is none."""
    final = replay_states(task, task.oracle)
    frozen = [
        (service, name, value)
        for service, state in task.initial_states.items()
        for name, value in state.items()
        if name not in BOOKKEEPING_FIELDS and final.get(service, {}).get(name) == value
    ]
    if not frozen:
        return None
    share = STRICT_WEIGHT / len(frozen)
    scaled = [item.model_copy(update={"weight": item.weight * (1 - STRICT_WEIGHT)}) for item in task.rubric.items]
    added = [
        RubricItem(
            id=f"frozen-{index}",
            description=f"{service}: {name} is left unchanged",
            weight=share,
            method=Method.deterministic,
            check=CheckSpec(
                check="state_equals", params={"service": service, "path": [name], "expected": value, "subset": False}
            ),
        )
        for index, (service, name, value) in enumerate(frozen, start=1)
    ]
    rubric = Rubric(
        items=[*scaled, *added],
        pass_threshold=task.rubric.pass_threshold,
        summary=f"{task.rubric.summary}; {len(added)} state fields must stay unchanged",
    )
    return task.model_copy(update={"rubric": rubric, "goal": f"{task.goal} {NO_SIDE_EFFECTS}"})


STRICTER = {"exact_records": exact_records, "no_side_effects": no_side_effects}


# -- the round ------------------------------------------------------------------------------------


def _stricter(task: CompoTask, applied: Sequence[str]) -> tuple[CompoTask, str] | None:
    for level in STRICT_LEVELS:
        if level in applied:
            continue
        stricter = STRICTER[level](task)
        if stricter is not None and _passes(_finish(stricter)):
            return stricter, level
    return None


def _carry(base: CompoTask, parent: CompoTask) -> CompoTask:
    """A recomposed task with the parent's distractors and strictness applied again."""
    task = base
    for name in parent.distractors:
        task = with_distractor(task, name)
    for level in STRICT_LEVELS:
        if level in parent.hardening:
            task = STRICTER[level](task) or task
    return task


def harden_compo_task(
    task: CompoTask,
    results: Sequence[Mapping[str, float]],
    *,
    graph: ToolGraph | None = None,
    world_model: WorldModel | None = None,
    threshold: float = HARDEN_ABOVE,
) -> CompoTask:
    """The next version of `task` given a group's item results (item id → q per attempt); see the
    module docstring. Returns `task` itself when the group did not find it easy or no move applies."""
    if not results or mean_reward(task, results) <= threshold:
        return task
    graph = graph or default_graph()
    current, moves = task, []
    extended = longer_walk(task, graph, world_model)
    if extended is not None:
        carried = _carry(extended, task)
        if _passes(_finish(carried)):
            current, moves = carried, ["longer_walk"]
    name = pick_distractor(current, graph)
    if name is not None:
        candidate = with_distractor(current, name)
        if _passes(_finish(candidate)):
            current, moves = candidate, [*moves, f"distractor:{name}"]
    stricter = _stricter(current, task.hardening)
    if stricter is not None:
        current, moves = stricter[0], [*moves, stricter[1]]
    if not moves:
        return task
    hardened = current.model_copy(
        update={
            "iteration": task.iteration + 1,
            "parent_task_id": task.task_id,
            "hardening": [*task.hardening, *moves],
            "distractors": current.distractors,
        }
    )
    return _finish(hardened)
