"""The diagnoser role: a model compares a solved task's trajectories with its blueprint.

One structured call per triggered task (template `diagnoser_diagnose`) returns, for every
challenge, a verdict (exercised, solved easily, bypassed, discriminating, task defect) with the
steps that show it; where the failed items came from; a hardening proposal (blueprint changes for
`revise_blueprint`); and, when the diagnosis found a kind of challenge the pool lacks, a new
pattern for `grow_pool`. The answer is checked before it is used — every challenge judged once,
cited steps that exist, a proposal that applies to the blueprint and targets what was solved
easily or bypassed, pattern ids from the pool — and the problems go back to the model.

Steps are cited as `a<attempt>:<step>` so the prompt does not change when the same attempts are
rolled out again (rollout ids are fresh each run; the cache then answers). A model that cannot be
used leaves the rule-based diagnosis in place, with the reason.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from skill2env.hardening.diagnosis import Diagnosis, evidence_files
from skill2env.hardening.revise import AddChallenge, Change, HardeningProposal, RevisionError, StrengthenChallenge
from skill2env.hardening.revise import revise_blueprint as apply_proposal
from skill2env.llm import ModelClient, ModelError, Prompt, render
from skill2env.llm.session import LlmSession
from skill2env.patterns.models import Origin, Pattern
from skill2env.patterns.pool import PatternPool
from skill2env.patterns.similarity import pool_index
from skill2env.tasks.blueprint import Blueprint

logger = logging.getLogger(__name__)

ROLE = "diagnoser"
TEMPLATE = "diagnoser_diagnose"
MAX_CANDIDATES = 12
MAX_STEPS_PER_ATTEMPT = 40
MAX_CALL_CHARS = 400
MAX_RESULT_CHARS = 300
MAX_BLUEPRINT_CHARS = 40_000
Verdict = Literal["exercised", "solved_easily", "bypassed", "discriminating", "task_defect"]
EASY = ("solved_easily", "bypassed")


class ChallengeVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern_id: str
    verdict: Verdict
    evidence_steps: list[str] = Field(default_factory=list)
    """`a<attempt>:<step>` references."""
    explanation: str = Field(min_length=10)


class ProposalAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rationale: str = Field(min_length=10)
    changes: list[Change] = Field(min_length=1)


class DiagnosisAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    challenges: list[ChallengeVerdict]
    failures_from: Literal["agent", "task", "none"]
    summary: str = Field(min_length=10)
    proposal: ProposalAnswer | None = None
    new_pattern: Pattern | None = None
    """A kind of challenge the pool lacks, abstracted from this task (its origin is set here)."""
    new_pattern_parent: str | None = None
    """The pool pattern it grew from, if any."""

    def grown_pattern(self, diagnosis: str) -> Pattern | None:
        """The new pattern with its lineage: abstracted from `diagnosis`, grown from its parent."""
        if self.new_pattern is None:
            return None
        origin = Origin(kind="hardening", parent=self.new_pattern_parent, diagnosis=diagnosis)
        return self.new_pattern.model_copy(update={"origin": origin, "version": 1})


@dataclass(frozen=True)
class AttemptEvidence:
    """One scored attempt as the diagnoser sees it."""

    rollout_id: str
    number: int
    reward: float
    items: Mapping[str, str]
    """Item id → status."""
    steps: Sequence[Mapping[str, Any]]
    """`step_id`, `tool_calls` and `observations` (JSON or parsed), in order."""


@dataclass(frozen=True)
class ModelDiagnosis:
    """What the diagnoser concluded, in the pipeline's terms."""

    diagnosis: Diagnosis
    proposal: HardeningProposal | None
    new_pattern: Pattern | None
    summary: str


class ModelDiagnoser:
    """The diagnoser role's model (see the module docstring)."""

    def __init__(self, client: ModelClient) -> None:
        self.client = client
        self.name = f"{ROLE}:{client.model}"

    def diagnose(
        self,
        task_id: str,
        blueprint: Blueprint,
        attempts: Sequence[AttemptEvidence],
        rules: Diagnosis,
        pool: PatternPool,
        *,
        mean_reward: float,
    ) -> ModelDiagnosis | str:
        """The model's diagnosis, or why the rules' diagnosis stands (the model could not be used)."""
        refs = {f"a{a.number}:{s['step_id']}": f"{a.rollout_id}:{s['step_id']}" for a in attempts for s in a.steps}
        prompt = self.prompt(blueprint, attempts, rules, pool, mean_reward=mean_reward)
        try:
            answer = self.client.structured(
                prompt, DiagnosisAnswer, check=lambda a: answer_problems(a, blueprint, set(refs), pool),
                max_tokens=max(self.client.config.max_tokens, self.client.config.max_tokens_ceiling),
                partition_key=blueprint.domain,
            ).value  # fmt: skip
        except ModelError as exc:
            logger.warning("diagnoser %s could not diagnose %s: %s: %s", self.name, task_id, type(exc).__name__, exc)
            return f"{self.name} not used: {type(exc).__name__}: {exc}"[:500]
        return self._result(task_id, answer, rules, refs)

    def prompt(self, blueprint: Blueprint, attempts: Sequence[AttemptEvidence], rules: Diagnosis,
               pool: PatternPool, *, mean_reward: float) -> Prompt:  # fmt: skip
        by_pattern = {c.pattern_id: c for c in rules.challenges}
        challenges = []
        for index, challenge in enumerate(blueprint.challenges):
            ruled = by_pattern.get(challenge.pattern_id)
            levels = [level.description for level in pool[challenge.pattern_id].intensity] if (
                challenge.pattern_id in pool) else []  # fmt: skip
            challenges.append({
                "index": index, "pattern_id": challenge.pattern_id, "intensity": challenge.intensity,
                "files": evidence_files(blueprint, challenge.pattern_id), "levels": levels,
                "rule_verdict": ruled.verdict if ruled else "unknown", "item_ids": ruled.items if ruled else [],
                "passed": ruled.attempts_passed if ruled else 0,
            })  # fmt: skip
        text = json.dumps(blueprint.model_dump(mode="json", exclude={"environment", "schema_version"}), indent=1,
                          ensure_ascii=False)  # fmt: skip
        return render(
            TEMPLATE,
            task_name=blueprint.task_name,
            iteration=blueprint.iteration,
            mean_reward=mean_reward,
            blueprint_json=text[:MAX_BLUEPRINT_CHARS],
            challenges=challenges,
            attempts=[_attempt_view(a) for a in sorted(attempts, key=lambda a: a.number)],
            candidates=candidate_patterns(blueprint, pool),
        )

    def _result(
        self, task_id: str, answer: DiagnosisAnswer, rules: Diagnosis, refs: Mapping[str, str]
    ) -> ModelDiagnosis:
        verdicts = {v.pattern_id: v for v in answer.challenges}
        challenges = [
            replace(c, verdict=verdicts[c.pattern_id].verdict, explanation=verdicts[c.pattern_id].explanation,
                    touched_steps=[refs[r] for r in verdicts[c.pattern_id].evidence_steps if r in refs])
            for c in rules.challenges
        ]  # fmt: skip
        proposal = None
        if answer.proposal is not None:
            proposal = HardeningProposal(id=f"{self.name}:{task_id}", rationale=answer.proposal.rationale,
                                         changes=answer.proposal.changes)  # fmt: skip
        diagnosis = Diagnosis(task_id, challenges, answer.failures_from, by=self.name, summary=answer.summary)
        return ModelDiagnosis(diagnosis, proposal, answer.grown_pattern(f"{task_id}:{self.name}"), answer.summary)


def answer_problems(answer: DiagnosisAnswer, blueprint: Blueprint, refs: set[str], pool: PatternPool) -> list[str]:
    """What is wrong with an answer, in words the model can act on (empty: usable)."""
    problems: list[str] = []
    expected = [c.pattern_id for c in blueprint.challenges]
    given = [v.pattern_id for v in answer.challenges]
    for pattern_id in expected:
        if given.count(pattern_id) != 1:
            problems.append(f"challenges: judge {pattern_id} exactly once (given {given.count(pattern_id)} times)")
    problems += [f"challenges: {p} is not a challenge of this blueprint" for p in given if p not in expected]
    for verdict in answer.challenges:
        unknown = [r for r in verdict.evidence_steps if r not in refs]
        if unknown:
            problems.append(f"challenges[{verdict.pattern_id}].evidence_steps: no such steps {unknown[:5]}")
        if verdict.verdict in EASY and refs and not verdict.evidence_steps:
            problems.append(f"challenges[{verdict.pattern_id}]: a {verdict.verdict} verdict cites the steps showing it")
    easy = {v.pattern_id for v in answer.challenges if v.verdict in EASY}
    if answer.proposal is None:
        if easy:
            problems.append(f"proposal: {sorted(easy)} were solved easily or bypassed: propose how to harden them")
    else:
        problems += _proposal_problems(answer.proposal, blueprint, easy, pool)
    if answer.new_pattern is not None:
        problems += _pattern_problems(answer.new_pattern, answer.new_pattern_parent, pool)
    return problems


def _proposal_problems(proposal: ProposalAnswer, blueprint: Blueprint, easy: set[str], pool: PatternPool) -> list[str]:
    problems: list[str] = []
    used = {c.pattern_id for c in blueprint.challenges}
    targeted: set[str] = set()
    for change in proposal.changes:
        if isinstance(change, StrengthenChallenge) and change.challenge < len(blueprint.challenges):
            challenge = blueprint.challenges[change.challenge]
            if change.intensity <= challenge.intensity:
                problems.append(f"proposal: strengthen_challenge {change.challenge} ({challenge.pattern_id}) must "
                                f"raise its intensity above {challenge.intensity}")  # fmt: skip
            targeted.add(challenge.pattern_id)
        if isinstance(change, AddChallenge):
            if change.pattern_id not in pool:
                problems.append(f"proposal: add_challenge {change.pattern_id} is not a pool pattern")
                continue
            clash = sorted(pool.conflicts(change.pattern_id) & used)
            if clash:
                problems.append(f"proposal: add_challenge {change.pattern_id} conflicts with {clash}")
            targeted |= easy  # a new challenge answers whatever was too easy
    if easy and not targeted & easy:
        problems.append(f"proposal: it must target what was solved easily or bypassed ({sorted(easy)})")
    try:
        apply_proposal(blueprint, HardeningProposal(id="check", rationale=proposal.rationale,
                                                    changes=proposal.changes))  # fmt: skip
    except (RevisionError, ValidationError) as exc:
        problems.append(f"proposal: it does not apply to the blueprint: {str(exc)[:600]}")
    return problems


def _pattern_problems(candidate: Pattern, parent: str | None, pool: PatternPool) -> list[str]:
    problems = []
    if candidate.id in pool:
        problems.append(f"new_pattern: {candidate.id} is already a pool pattern: propose a new one or null")
    if parent is not None and parent not in pool:
        problems.append(f"new_pattern_parent: {parent} is not a pool pattern")
    unknown = [c for c in candidate.conflicts if c not in pool]
    if unknown:
        problems.append(f"new_pattern.conflicts: {unknown} are not pool patterns")
    return problems


def candidate_patterns(blueprint: Blueprint, pool: PatternPool) -> list[dict[str, Any]]:
    """Pool patterns the task could add (not used, no conflict), nearest to its challenges first."""
    used = {c.pattern_id for c in blueprint.challenges}
    blocked = set(used)
    for pattern_id in used:
        if pattern_id in pool:
            blocked |= pool.conflicts(pattern_id)
    open_patterns = [p for p in pool if p.id not in blocked]
    if not open_patterns:
        return []
    ranked = pool_index(open_patterns).ranked(" ".join([blueprint.goal, *(c.form for c in blueprint.challenges)]))
    by_id = {p.id: p for p in open_patterns}
    chosen = [by_id[pattern_id] for pattern_id, _ in ranked[:MAX_CANDIDATES]]
    return [{"id": p.id, "capability": p.capability.value, "description": " ".join(p.description.split()),
             "levels": [level.description for level in p.intensity]} for p in chosen]  # fmt: skip


def model_diagnoser(session: LlmSession) -> ModelDiagnoser | None:
    """The model diagnoser when the diagnoser role is configured; None (rules only) otherwise."""
    return ModelDiagnoser(session.client(ROLE)) if session.configured(ROLE) else None


def _attempt_view(attempt: AttemptEvidence) -> dict[str, Any]:
    steps = []
    for step in attempt.steps[:MAX_STEPS_PER_ATTEMPT]:
        calls = _parsed(step.get("tool_calls"))
        if not calls:
            continue
        shown = "; ".join(f"{c.get('function_name')}({_clip(_arguments(c), MAX_CALL_CHARS)})" for c in calls)
        results = " | ".join(
            _clip(str(o.get("content") or ""), MAX_RESULT_CHARS) for o in _parsed(step.get("observations"))
        )
        steps.append({"ref": f"a{attempt.number}:{step['step_id']}", "call": shown, "result": results})
    return {
        "number": attempt.number,
        "reward": attempt.reward,
        "results": sorted(attempt.items.items()),
        "steps": steps,
    }


def _arguments(call: Mapping[str, Any]) -> str:
    arguments = call.get("arguments")
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False, sort_keys=True)


def _parsed(value: object) -> list[dict[str, Any]]:
    if value is None:
        return []
    parsed = json.loads(value) if isinstance(value, str) else value
    return [entry for entry in parsed if isinstance(entry, dict)] if isinstance(parsed, list) else []


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 12] + " …[clipped]"
