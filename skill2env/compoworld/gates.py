"""The validation gates for CompoWorld tasks, as outcomes of the project's gates (`validation.gates`).

A `CompoTask`'s scripted runs are replays through the gateway on its initial states (`tasks.replay`),
scored with its rubric — no sandbox, so no `infra_error`:

* `oracle`: the oracle's actions and answer score ≥ `ORACLE_AT_LEAST` (0.99);
* `nop`: doing nothing scores ≤ `NOP_AT_MOST` (0.1);
* `partial`: the oracle's first half scores < `PARTIAL_MAX` (0.7, the Skill2Env pass threshold;
  a CompoTask's own rubric threshold is 1, which half the work never reaches anyway);
* `leak`: the goal keeps the information boundary — it names no tool (`service.tool` or a tool's
  name), spells out no value the agent must obtain from an earlier call (an argument linked to the
  only value of its type an earlier step produced, which the goal must name: "that order"), and
  gives away no value (a number, an identifier, an address) the final answer must report — unless
  the request states that value as an input elsewhere;
* `judge`: skipped (the rubric has only deterministic checks).

`tasks.compose_task` already keeps only tasks that pass the replay gates; `validate_compo_task`
re-checks any task (a hardened one, one read back from the lake) and gives the evidence.
`compo_validations_frame` makes rows of the `validations` table's shape.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import polars as pl

from skill2env.compoworld.binding import produced_by
from skill2env.compoworld.scoring import _norm
from skill2env.compoworld.services import SERVICES, service_class
from skill2env.compoworld.tasks import PARTIAL_MAX, CompoTask, replay
from skill2env.validation.gates import NOP_AT_MOST, ORACLE_AT_LEAST, Gate, GateOutcome, GateStatus, Validation
from skill2env.validation.tables import validations_frame

BACKEND = "replay"
"""What the `backend` column of a CompoWorld validation says: replays through the in-process gateway."""
MIN_LEAK_CHARS = 4
"""Shorter values (a quantity, a count) are too common in a request to count as leaked."""
TOOL_KEYS = frozenset(f"{name}.{tool}" for name, cls in SERVICES.items() for tool in cls.tools)
TOOL_NAMES = frozenset(tool for cls in SERVICES.values() for tool in cls.tools if "_" in tool)
"""Tool names a sentence would not use by accident (`find_free_slots`, not `charge`)."""


def _replay_outcome(gate: Gate, task: CompoTask, steps: int | None, answer: str, bound: float) -> GateOutcome:
    actions = task.oracle if steps is None else task.oracle[:steps]
    result = replay(task, actions, answer)
    reward = round(result.reward, 4)
    relation = {Gate.oracle: ">=", Gate.nop: "<=", Gate.partial: "<"}[gate]
    passed = reward >= bound if gate == Gate.oracle else (reward <= bound if gate == Gate.nop else reward < bound)
    failing = [item for item, q in result.items.items() if q < 1.0]
    what = f"replayed {len(actions)} of {len(task.oracle)} oracle actions" + (" with its answer" if answer else "")
    evidence = f"{what}; reward {reward:.2f} (needs {relation} {bound}); failed items: {failing or 'none'}"
    items: dict[str, float | None] = dict(result.items)
    status = GateStatus.passed if passed else GateStatus.failed
    return GateOutcome(gate, status, evidence, reward, bound, None, items)


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif value is not None and not isinstance(value, bool):
        yield str(_norm(str(value)))


def _named(task: CompoTask) -> set[tuple[int, str]]:
    """(step, parameter) of the arguments the goal must name, not spell out: each took the only
    value of its type an earlier step produced (with several, the goal has to say which one)."""
    named = set()
    for link in task.links:
        source = task.oracle[link.from_step]
        spec = service_class(source.service).tools[source.tool].spec
        produced = produced_by(link.from_step, spec, task.oracle_results[link.from_step])
        siblings = {repr(p.value.value) for p in produced if p.value.type == link.type}
        if len(siblings) == 1:
            named.add((link.to_step, link.parameter))
    return named


def leaks(task: CompoTask) -> list[str]:
    """What the goal gives away (see the module docstring); empty when nothing."""
    goal = str(_norm(task.goal))
    named = _named(task)
    stated: set[str] = set()
    obtained: set[str] = set()
    for index, action in enumerate(task.oracle):
        for name, value in action.arguments.items():
            (obtained if (index, name) in named else stated).update(_strings(value))

    def given_away(value: str) -> bool:
        return len(value) >= MIN_LEAK_CHARS and value in goal and not any(value in text for text in stated)

    found = [f"names tool {key}" for key in sorted(TOOL_KEYS) if key in task.goal]
    found += [f"names tool {name}" for name in sorted(TOOL_NAMES) if name in task.goal]
    found += [f"spells out {v!r}, which an earlier call must provide" for v in sorted(obtained) if given_away(v)]
    reported = {
        text
        for item in task.rubric.items
        if item.check is not None and item.check.check == "output_contains"
        for text in _strings(item.check.params.get("values", []))
        if any(c.isdigit() for c in text) or "@" in text  # a value, not a word like "open"
    }
    found += [f"gives away {v!r}, which the answer must report" for v in sorted(reported) if given_away(v)]
    return found


def _leak_outcome(task: CompoTask) -> GateOutcome:
    found = leaks(task)
    if found:
        return GateOutcome(Gate.leak, GateStatus.failed, "the goal " + "; ".join(found[:10]), float(len(found)), 0.0)
    evidence = "the goal names no tool, spells out no linked value and gives away no reported value"
    return GateOutcome(Gate.leak, GateStatus.passed, evidence, 0.0, 0.0)


NOT_PROBED = (
    "not probed: a CompoWorld agent acts only through the gateway's four meta-tools on in-process services "
    "(no shell, no files, no verifier it could reach), which the hack strategies tamper with"
)


def validate_compo_task(task: CompoTask, *, partial_fraction: float = 0.5) -> Validation:
    """Every gate for one CompoTask (see the module docstring)."""
    half = int(len(task.oracle) * partial_fraction)
    return Validation(
        task.task_id,
        (
            _replay_outcome(Gate.oracle, task, None, task.oracle_answer, ORACLE_AT_LEAST),
            _replay_outcome(Gate.nop, task, 0, "", NOP_AT_MOST),
            _replay_outcome(Gate.partial, task, half, "", PARTIAL_MAX),
            _leak_outcome(task),
            GateOutcome(Gate.judge, GateStatus.skipped, "the rubric has no judge items"),
            GateOutcome(Gate.hack_probe, GateStatus.skipped, NOT_PROBED),
        ),
    )


def compo_validations_frame(tasks: Sequence[CompoTask]) -> pl.DataFrame:
    """Rows of the `validations` table's shape, one per (task, gate); `backend` is `replay`."""
    return validations_frame([(validate_compo_task(t), t.domain, t.iteration) for t in tasks], BACKEND)
