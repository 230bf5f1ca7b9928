"""Rule-based diagnosis of a solved task: which challenges were met, solved easily, or bypassed.

For each challenge of the blueprint: its rubric items (the items whose expected fact the
challenge carries), how many attempts passed them, and whether the trajectories touched the
files its facts live in. Verdicts:

* `solved_easily` — every attempt passed its items and touched its evidence: strengthen it;
* `bypassed` — every attempt passed its items without touching its evidence (a shortcut);
* `discriminating` — some attempt failed an item: it still separates good from bad work;
* `task_defect` — an item the oracle failed at validation fails here too: the task, not the agent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from skill2env.patterns.models import InformationLevel
from skill2env.tasks.blueprint import Blueprint


@dataclass(frozen=True)
class ChallengeDiagnosis:
    pattern_id: str
    intensity: int
    items: list[str]
    attempts: int
    attempts_passed: int
    evidence_files: list[str]
    touched_steps: list[str]
    """`<rollout>:<step>` of the steps whose tool calls named one of the evidence files (or, from a
    model diagnosis, the steps it cites)."""
    verdict: str
    explanation: str = ""


@dataclass(frozen=True)
class Diagnosis:
    task_id: str
    challenges: list[ChallengeDiagnosis] = field(default_factory=list)
    failures_from: str = "none"
    """agent | task | none: where the group's failed items came from."""
    by: str = "rules"
    """Who diagnosed: `rules`, or the diagnoser model (`diagnoser:<model>`)."""
    summary: str = ""

    def verdicts(self) -> dict[str, str]:
        return {c.pattern_id: c.verdict for c in self.challenges}

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


def items_of_challenges(blueprint: Blueprint) -> dict[str, list[str]]:
    """Pattern id → rubric items checking a fact the challenge carries (via the item's criterion)."""
    criteria = {c.rubric_item: c.description for c in blueprint.acceptance_criteria}
    linked: dict[str, list[str]] = {}
    for challenge in blueprint.challenges:
        facts = set(challenge.facts)
        linked[challenge.pattern_id] = [
            item.id for item in blueprint.rubric.items
            if any(fact in item.id or fact in criteria.get(item.id, "") or f"fact:{fact}" in item.id for fact in facts)
        ]  # fmt: skip
    return linked


def evidence_files(blueprint: Blueprint, pattern_id: str) -> list[str]:
    """Workspace files holding the discoverable facts of a challenge."""
    facts = {f.id: f for f in blueprint.facts}
    challenge = next(c for c in blueprint.challenges if c.pattern_id == pattern_id)
    found = {facts[f].location for f in challenge.facts
             if f in facts and facts[f].level == InformationLevel.DISCOVERABLE and facts[f].location}  # fmt: skip
    return sorted(str(location) for location in found)


def diagnose(
    task_id: str,
    blueprint: Blueprint,
    item_results: Sequence[Mapping[str, Any]],
    steps: Sequence[Mapping[str, Any]],
    *,
    oracle_failed: frozenset[str] = frozenset(),
    linked: Mapping[str, list[str]] | None = None,
) -> Diagnosis:
    """Diagnose a task from its group's item results (`rollout_id`, `item_id`, `status`) and the
    rollouts' steps (`rollout_id`, `step_id`, `tool_calls` JSON)."""
    linked = linked if linked is not None else items_of_challenges(blueprint)
    rollouts = sorted({r["rollout_id"] for r in item_results})
    passed = {(r["rollout_id"], r["item_id"]) for r in item_results if r["status"] == "passed"}
    challenges = []
    for challenge in blueprint.challenges:
        items = linked.get(challenge.pattern_id, [])
        files = evidence_files(blueprint, challenge.pattern_id)
        ok = [rollout for rollout in rollouts if all((rollout, item) in passed for item in items)]
        touched = [f"{s['rollout_id']}:{s['step_id']}" for s in steps if _names_any(s.get("tool_calls"), files)]
        if set(items) & oracle_failed:
            verdict = "task_defect"
        elif rollouts and len(ok) == len(rollouts):
            touched_all = all(any(t.startswith(f"{r}:") for t in touched) for r in rollouts) if files else True
            verdict = "solved_easily" if touched_all else "bypassed"
        else:
            verdict = "discriminating"
        challenges.append(ChallengeDiagnosis(challenge.pattern_id, challenge.intensity, items, len(rollouts), len(ok),
                                             files, touched[:20], verdict))  # fmt: skip
    verdicts = {c.verdict for c in challenges}
    failures_from = "task" if "task_defect" in verdicts else ("agent" if "discriminating" in verdicts else "none")
    return Diagnosis(task_id, challenges, failures_from)


def _names_any(tool_calls: object, files: Sequence[str]) -> bool:
    if not files or tool_calls is None:
        return False
    text = tool_calls if isinstance(tool_calls, str) else json.dumps(tool_calls)
    return any(path.rstrip("/").rsplit("/", 1)[-1] in text for path in files)
