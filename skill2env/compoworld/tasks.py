"""Cross-service tasks: a walk made concrete, and oracle replay.

`compose_task` turns a walk into a `CompoTask` by running it: each step's arguments are bound
(from earlier results where the chain links them, sampled otherwise) and the call is executed in
a fresh world of the walk's services, retrying other arguments when a call is refused. From that
oracle run come the initial states, the oracle actions, the rubric (state checks from the diff of
initial and final states, plus output checks when the chain ends by asking for information) and
the goal. Rubric weights grow with the step that produced the item (later steps weigh more), so
doing only the first half of the work cannot pass.

A task is kept only if replaying it through the gateway scores 1.0 for the oracle, at most
`NOP_MAX` for doing nothing and below `PARTIAL_MAX` for the first half of the oracle. A walk with
a simulated tool and no world model is skipped with that reason.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from skill2env.compoworld.binding import Binder, Bound, Produced, produced_by
from skill2env.compoworld.errors import SimulatedToolUnavailable, SimulationFailed, ToolError
from skill2env.compoworld.gateway import Gateway
from skill2env.compoworld.goals import render_value, write_goal
from skill2env.compoworld.graph import ToolGraph
from skill2env.compoworld.schema import typed_values
from skill2env.compoworld.scoring import DerivedCheck, RubricScore, derive_checks, score, value_at
from skill2env.compoworld.service import ToolSpec
from skill2env.compoworld.services import SERVICES, service_class
from skill2env.compoworld.types import INTERFACE_TYPES
from skill2env.compoworld.universe import Universe, generate_universe
from skill2env.compoworld.walks import MAX_LENGTH, MIN_LENGTH, Walk, walks
from skill2env.compoworld.world import World
from skill2env.compoworld.world_model import RecordedWorldModel, SimulationRecord, Simulator, WorldModel
from skill2env.rubric import CheckSpec, Method, Rubric, RubricItem
from skill2env.thresholds import FULL_CREDIT_AT, NOP_AT_MOST, PASS_THRESHOLD

COMPO_TASK_SCHEMA_VERSION = 1
NOP_MAX = NOP_AT_MOST
"""The same bound as the validation gate's `NOP_AT_MOST`: a task generated here passes that gate."""
PARTIAL_MAX = PASS_THRESHOLD
"""The first half of the oracle scores below a rubric's default pass threshold."""
BIND_ATTEMPTS = 6


class Action(BaseModel):
    service: str
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Link(BaseModel):
    """Step `to_step`'s `parameter` took a `type` value that step `from_step` produced."""

    from_step: int
    to_step: int
    parameter: str
    type: str


class ReplayScores(BaseModel):
    oracle: float
    nop: float
    partial: float


class CompoTask(BaseModel):
    """A cross-service task: initial states, a goal, the oracle, the rubric and its tags."""

    schema_version: int = COMPO_TASK_SCHEMA_VERSION
    task_id: str = ""
    """sha256 of the task's content (everything but itself and its scores)."""
    domain: str
    seed: int
    """The universe seed the initial states come from."""
    chain: list[str]
    services: list[str]
    goal: str
    initial_states: dict[str, dict[str, Any]]
    oracle: list[Action]
    oracle_results: list[Any]
    oracle_answer: str = ""
    links: list[Link] = Field(default_factory=list)
    rubric: Rubric
    capability_tags: list[str]
    simulations: list[SimulationRecord] = Field(default_factory=list)
    """The world model's accepted answers in the oracle run; replays answer the same calls the same way."""
    scores: ReplayScores | None = None
    iteration: int = 0
    """0 for a generated task; each hardening round adds 1."""
    parent_task_id: str | None = None
    """The task this one was hardened from."""
    distractors: list[str] = Field(default_factory=list)
    """Services in the world (`initial_states`) the task does not need."""
    hardening: list[str] = Field(default_factory=list)
    """The hardening moves behind this version, oldest first (`longer_walk`, `distractor:<service>`, …)."""

    @property
    def world_services(self) -> list[str]:
        """Every service the agent sees: the task's own, then the distractors."""
        return list(self.initial_states)

    def content_digest(self) -> str:
        payload = self.model_dump(mode="json", exclude={"task_id", "scores"})
        for record in payload["simulations"]:
            record.pop("call_id", None)
            record.pop("called_at", None)
        return hashlib.sha256(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


@dataclass(frozen=True)
class SkippedWalk:
    chain: tuple[str, ...]
    reason: str
    kind: Literal["needs_world_model", "rejected"]


# -- replay -----------------------------------------------------------------------------------


def task_world(task: CompoTask, world_model: WorldModel | None = None) -> World:
    """A fresh world in the task's initial states; simulated calls the oracle made are answered as
    recorded, others go to `world_model`."""
    return World.from_states(
        task.initial_states, world_model=RecordedWorldModel(task.simulations, fallback=world_model)
    )


def replay_states(
    task: CompoTask, actions: Sequence[Action], world_model: WorldModel | None = None
) -> dict[str, dict[str, Any]]:
    """The states after running `actions` through the gateway on the task's initial states."""
    world = task_world(task, world_model)
    gateway = Gateway(world)
    for action in actions:
        gateway.call_tool(action.service, action.tool, action.arguments)
    return world.states()


def replay(
    task: CompoTask, actions: Sequence[Action], answer: str = "", world_model: WorldModel | None = None
) -> RubricScore:
    """Run `actions` through the gateway on the task's initial states and score the final state."""
    return score(task.rubric, replay_states(task, actions, world_model), answer)


def replay_scores(task: CompoTask) -> ReplayScores:
    half = len(task.oracle) // 2
    return ReplayScores(
        oracle=replay(task, task.oracle, task.oracle_answer).reward,
        nop=replay(task, [], "").reward,
        partial=replay(task, task.oracle[:half], "").reward,
    )


# -- composing --------------------------------------------------------------------------------


class Rejected(Exception):
    """A walk that did not become a task, and why."""

    def __init__(self, reason: str, kind: Literal["needs_world_model", "rejected"] = "rejected") -> None:
        super().__init__(reason)
        self.kind: Literal["needs_world_model", "rejected"] = kind


def _reported(spec: ToolSpec, result: Any) -> list[tuple[str, list[str]]]:
    """(field, the strings an answer must contain) for each field the final step reports."""
    rows = result if isinstance(result, list) else [result]
    out = []
    for name in spec.reports:
        values: list[str] = []
        for row in rows[:5]:
            if not isinstance(row, dict) or row.get(name) is None:
                continue
            value = row[name]
            if isinstance(value, dict) and "amount" in value:
                values.append(str(value["amount"]))
            elif isinstance(value, str) and "T" in value and value[:4].isdigit() and ":" in value:
                values.extend([value[:10], value[11:16]])
            else:
                values.append(render_value(value))
        if values:
            out.append((name, values))
    return out


def _created_ids(before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    def ids(states: dict[str, Any]) -> set[str]:
        found = set()
        for name, state in states.items():
            for item in typed_values(service_class(name).state_schema(), state):
                known = INTERFACE_TYPES.get(item.type)
                if known is not None and known.identifier and isinstance(item.value, str):
                    found.add(item.value)
        return found

    return ids(after) - ids(before)


def _step_of(check: DerivedCheck, snapshots: Sequence[dict[str, Any]]) -> int:
    """The last step (1-based) that changed the check's region."""
    service, path = check.region
    for step in range(len(snapshots) - 1, 0, -1):
        if value_at(snapshots[step].get(service, {}), path) != value_at(snapshots[step - 1].get(service, {}), path):
            return step
    return len(snapshots) - 1


def _rubric(items: list[tuple[int, str, CheckSpec, str]], length: int) -> Rubric:
    """Items as (step, kind, check, description); a step's weight is its number, shared by its items."""
    per_step: dict[int, int] = {}
    for step, _, _, _ in items:
        per_step[step] = per_step.get(step, 0) + 1
    total = sum(per_step)
    rubric_items = []
    counters: dict[tuple[int, str], int] = {}
    for step, kind, check, description in sorted(items, key=lambda i: (i[0], i[1])):
        counters[(step, kind)] = counters.get((step, kind), 0) + 1
        rubric_items.append(
            RubricItem(
                id=f"s{step}-{kind}-{counters[(step, kind)]}",
                description=description[:400],
                weight=step / total / per_step[step],
                method=Method.deterministic,
                check=check,
            )
        )
    summary = f"{len(rubric_items)} checks over {length} steps; later steps weigh more"
    # A CompoTask is solved only when every check holds.
    return Rubric(items=rubric_items, pass_threshold=FULL_CREDIT_AT, summary=summary)


def _tags(specs: Sequence[ToolSpec], links: Sequence[Link], reports: bool) -> list[str]:
    tags = []
    services = {s.service for s in specs}
    if len(services) > 1:
        tags.append("cross_service")
    if links:
        tags.append("sequential_dependency")
    if any(specs[link.from_step].service != specs[link.to_step].service for link in links):
        tags.append("cross_environment_constraint")
    if any(spec.read_only for spec in specs[:-1]):
        tags.append("information_lookup")
    if sum(not spec.read_only for spec in specs) >= 2:
        tags.append("state_tracking")
    if any(spec.simulated for spec in specs):
        tags.append("world_model")
    if len(specs) >= 5:
        tags.append("long_horizon")
    if reports:
        tags.append("reporting")
    return tags


def compose_task(
    walk: Walk,
    graph: ToolGraph,
    *,
    domain: str,
    seed: int,
    world_model: WorldModel | None = None,
    log: list[SimulationRecord] | None = None,
) -> CompoTask:
    """Run the walk and make it a task; every world-model attempt is appended to `log`.

    Raises `Rejected` (see `generate_tasks`)."""
    universe = generate_universe(seed)
    everything = World.build(universe=universe)
    attempts: list[SimulationRecord] = []
    world = World.build(walk.services, universe=universe, simulator=Simulator(world_model, log=attempts))
    try:
        return _compose(walk, graph, domain, seed, universe, everything, world, attempts)
    finally:
        if log is not None:
            log.extend(attempts)


def _compose(
    walk: Walk,
    graph: ToolGraph,
    domain: str,
    seed: int,
    universe: Universe,
    everything: World,
    world: World,
    attempts: list[SimulationRecord],
) -> CompoTask:
    rng = random.Random(f"compose:{seed}:{'|'.join(walk.steps)}")  # noqa: S311 - seeded and reproducible, not cryptography
    schemas = {name: cls.state_schema() for name, cls in SERVICES.items()}
    binder = Binder(universe, everything.states(), schemas, rng)
    initial = world.states()
    snapshots = [initial]
    specs = [graph.specs[key] for key in walk.steps]
    produced: list[Produced] = []
    bounds: list[Bound] = []
    results: list[Any] = []
    for index, spec in enumerate(specs):
        edge = walk.edges[index - 1] if index else None
        link_type = edge.via if edge is not None and edge.kind == "data" else None
        problem = ""
        for _ in range(BIND_ATTEMPTS):
            try:
                bound = binder.bind(spec, world.service(spec.service), produced, link_type)
            except LookupError as exc:
                raise Rejected(f"step {index + 1} ({spec.key}): {exc}") from None
            try:
                result = world.call(spec.service, spec.name, bound.arguments)
            except SimulatedToolUnavailable as exc:
                raise Rejected(str(exc), "needs_world_model") from None
            except SimulationFailed as exc:
                raise Rejected(f"step {index + 1} ({spec.key}): {exc}") from None
            except ToolError as exc:
                problem = f"{exc.code}: {exc}"
                continue
            break
        else:
            raise Rejected(f"step {index + 1} ({spec.key}) found no accepted arguments; last error {problem}")
        produced.extend(produced_by(index, spec, result))
        bounds.append(bound)
        results.append(result)
        snapshots.append(world.states())
    final = snapshots[-1]
    created = _created_ids(initial, final)
    items: list[tuple[int, str, CheckSpec, str]] = []
    for derived in derive_checks(initial, final, {n: schemas[n] for n in final}, created):
        items.append((_step_of(derived, snapshots), "state", derived.check, derived.description))
    reports: dict[int, list[str]] = {}
    answer_parts = []
    if specs[-1].reports:
        for name, values in _reported(specs[-1], results[-1]):
            check = CheckSpec(check="output_contains", params={"values": values})
            items.append(
                (len(specs), "output", check, f"the reply gives the {name.replace('_', ' ')}: {', '.join(values)}")
            )
            reports.setdefault(len(specs) - 1, []).append(name)
            answer_parts.append(f"{name.replace('_', ' ')}: {' '.join(values)}")
    if not items:
        raise Rejected("the chain changes no state and reports nothing")
    if max(step for step, *_ in items) != len(specs):
        raise Rejected("the last step leaves no trace (no state change, nothing reported)")
    links = [
        Link(from_step=source.step, to_step=index, parameter=name, type=source.value.type)
        for index, bound in enumerate(bounds)
        for name, source in bound.sources.items()
    ]
    task = CompoTask(
        domain=domain,
        seed=seed,
        chain=list(walk.steps),
        services=walk.services,
        goal=write_goal(specs, bounds, rng, reports),
        initial_states=initial,
        oracle=[
            Action(service=s.service, tool=s.name, arguments=b.arguments) for s, b in zip(specs, bounds, strict=True)
        ],
        oracle_results=results,
        oracle_answer="; ".join(answer_parts),
        links=links,
        rubric=_rubric(items, len(specs)),
        capability_tags=_tags(specs, links, bool(reports)),
        simulations=[r for r in attempts if r.accepted],
    )
    scores = replay_scores(task)
    if scores.oracle < 1.0 - 1e-9:
        raise Rejected(f"oracle replay scored {scores.oracle:.3f}, not 1")
    if scores.nop > NOP_MAX:
        raise Rejected(f"doing nothing scores {scores.nop:.3f} (> {NOP_MAX})")
    if scores.partial >= PARTIAL_MAX:
        raise Rejected(f"the first half of the oracle scores {scores.partial:.3f} (≥ {PARTIAL_MAX})")
    task = task.model_copy(update={"scores": scores})
    return task.model_copy(update={"task_id": task.content_digest()})


@dataclass
class Generated:
    tasks: list[CompoTask]
    skipped: list[SkippedWalk]
    walks_tried: int


def generate_tasks(
    graph: ToolGraph,
    domain: str,
    count: int,
    *,
    seed: int = 0,
    world_model: WorldModel | None = None,
    max_walks: int | None = None,
    log: list[SimulationRecord] | None = None,
    min_length: int = MIN_LENGTH,
) -> Generated:
    """Up to `count` tasks whose walks start in `domain`'s services and take at least `min_length`
    tools; every walk's fate is reported: a task, a skip for want of a world model, or a rejection
    with its reason."""
    rng = random.Random(f"compo:{seed}:{domain}")  # noqa: S311 - seeded and reproducible, not cryptography
    starts = [key for key, spec in graph.specs.items() if spec.domain == domain]
    tasks: list[CompoTask] = []
    skipped: list[SkippedWalk] = []
    tried = 0
    limit = max_walks if max_walks is not None else max(40, 25 * count)
    stream: Iterator[Walk] = walks(graph, starts, rng, min_length=min_length, max_length=max(min_length, MAX_LENGTH))
    for walk in stream:
        if len(tasks) >= count or tried >= limit:
            break
        tried += 1
        task_seed = rng.randrange(1_000_000)
        try:
            tasks.append(compose_task(walk, graph, domain=domain, seed=task_seed, world_model=world_model, log=log))
        except Rejected as exc:
            skipped.append(SkippedWalk(walk.steps, str(exc), exc.kind))
    return Generated(tasks, skipped, tried)
