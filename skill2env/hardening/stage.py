"""The hardening stage after iteration k: trigger, diagnose, propose, rebuild — or carry the task on.

* trigger: the solver group's mean reward > `threshold` (default `HARDEN_ABOVE`, 0.7), no infrastructure errors,
  and no challenge diagnosed as a task defect; a group of empty rollouts (no attempt ran a command
  or wrote a file) is never triggered, even where an adaptive threshold of 0 would include it;
* diagnosis: the diagnoser role's model when one is configured (`model_diagnosis`: verdicts with
  step references, a proposal, maybe a new pattern), else the rules (`diagnosis.diagnose`);
* proposal and rebuild: a world kit's task gets the kit's rebuild from a pattern → intensity map —
  the model's proposal translated when there is one (strengthen / add challenge), else the kit's
  rules (one targeted move: raise the easiest solved challenge, or add a compatible pattern when
  none can go higher); any other task is revised with the
  model's proposal (`revise_blueprint`) and rebuilt by the author role's model (instruction,
  workspace, solution and verifier data together). The child passes the author-side checks and
  then every validation gate (`gates`) before it replaces its parent;
* a new pattern the diagnosis abstracted goes to the pool through `grow_pool` (near-duplicates
  rejected, variants merged) and is logged in `pattern_additions`, once per diagnosis;
* a task that is not triggered, cannot be hardened further, or whose hardened version is rejected
  keeps its current version: it is carried to iteration k+1 unchanged (same directory and digest),
  so every family has a version at every iteration and the curve compares paired tasks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

import polars as pl

from skill2env.hardening.diagnosis import Diagnosis, diagnose
from skill2env.hardening.growth import grow_pool
from skill2env.hardening.model_diagnosis import AttemptEvidence, ModelDiagnoser, ModelDiagnosis, model_diagnoser
from skill2env.hardening.revise import (
    AddChallenge,
    HardeningProposal,
    RevisionError,
    StrengthenChallenge,
    revise_blueprint,
)
from skill2env.home import Home
from skill2env.lake.lake import TableWrite
from skill2env.lake.partitions import stage_partition
from skill2env.llm.session import LlmSession
from skill2env.patterns.library import current_pool
from skill2env.patterns.pool import PatternPool
from skill2env.patterns.tables import addition_frame
from skill2env.rubric import Rubric
from skill2env.sandbox import BackendName
from skill2env.tasks.authoring import Rejection
from skill2env.tasks.blueprint import Blueprint, SkillRef
from skill2env.tasks.build import build_task
from skill2env.tasks.draft import TaskDraft
from skill2env.tasks.harbor import TaskPaths
from skill2env.tasks.records import TaskRecord, TaskStatus, task_files_of, task_id_of
from skill2env.tasks.store import TaskStore
from skill2env.tasks.tables import blueprints_frame, task_files_frame, tasks_frame
from skill2env.thresholds import HARDEN_ABOVE
from skill2env.validation.gates import Validation, validate_task
from skill2env.validation.hack_probes.tables import hack_probes_frame
from skill2env.validation.tables import validations_frame
from skill2env.validation.tasks import task_rubric

_SEED = re.compile(r"-s(\d+)-i\d+$")
ACTING_TOOLS = frozenset({"bash", "write_file"})
"""The agent tools that can change the workspace: an attempt without a call to one is an empty rollout."""

HARDENING_ROUNDS_SCHEMA = pl.Schema(
    {
        "task_id": pl.String(),
        "family": pl.String(),
        "iteration": pl.Int64(),
        "domain": pl.String(),
        "trigger_reward": pl.Float64(),
        "triggered": pl.Boolean(),
        "outcome": pl.String(),
        "reason": pl.String(),
        "diagnosis": pl.String(),
        "proposal": pl.String(),
        "revision_diff": pl.String(),
        "child_task_id": pl.String(),
        "child_status": pl.String(),
        "patterns_before": pl.List(pl.String()),
        "patterns_after": pl.List(pl.String()),
        "grown_patterns": pl.List(pl.String()),
        "child_gates": pl.String(),
    }
)


class Rebuilder(Protocol):
    """Builds the task of a revised blueprint (the author role's model)."""

    @property
    def name(self) -> str: ...

    def rebuild(self, blueprint: Blueprint, parent_dir: Path | None = None) -> TaskDraft | Rejection: ...


@dataclass(frozen=True)
class Hardeners:
    """What hardening calls on besides the world kits and the rules."""

    diagnoser: ModelDiagnoser | None = None
    author: Rebuilder | None = None
    """Rebuilds a model-authored task from its revised blueprint."""
    gates: Callable[[TaskRecord, Blueprint], Validation] | None = None
    """Every validation gate for a hardened child; None leaves them to the next iteration's stage."""
    backend: str = "bwrap"
    """The sandbox backend `gates` runs on (the next iteration's stage reuses its rows on the same backend)."""


@dataclass
class HardeningStage:
    domain: str
    iteration: int
    rounds: list[dict[str, Any]] = field(default_factory=list)
    children: list[TaskRecord] = field(default_factory=list)
    blueprints: list[tuple[Blueprint, str]] = field(default_factory=list)
    additions: list[pl.DataFrame] = field(default_factory=list)
    """`pattern_additions` rows of the patterns grown from this stage's diagnoses (a log: appended first)."""
    writes: list[TableWrite] = field(default_factory=list)
    """`hardening_rounds` (partition of k) and the `tasks`, `task_files` and `blueprints` of iteration k+1."""

    def count(self, outcome: str) -> int:
        return sum(1 for r in self.rounds if r["outcome"] == outcome)


def adaptive_threshold(rewards: Sequence[Mapping[str, Any]], domain: str, percentile: float, *,
                       min_tasks: int = 5) -> float:  # fmt: skip
    """The `percentile` of the group mean rewards of the domain's tasks (`rewards`: every domain's
    groups at one iteration, `queries/group_rewards`; all domains' when the domain has fewer than
    `min_tasks`): tasks at or above it count as easy."""
    mine = [r["mean_reward"] for r in rewards if r["domain"] == domain]
    pool = mine if len(mine) >= min_tasks else [r["mean_reward"] for r in rewards]
    if not pool:
        return HARDEN_ABOVE
    ranked = sorted(pool)
    position = (len(ranked) - 1) * percentile / 100.0
    low, high = int(position), min(int(position) + 1, len(ranked) - 1)
    return ranked[low] + (ranked[high] - ranked[low]) * (position - low)


@dataclass(frozen=True)
class HardeningInputs:
    """What the hardening stage of one domain at one iteration reads (see `queries/hardening_*`)."""

    tasks: list[dict[str, Any]]
    """`queries/hardening_inputs`: the accepted tasks with their blueprints and group results."""
    families: dict[str, str]
    """Task id → its family (`task_families`)."""
    additions: pl.DataFrame
    """Every `pattern_additions` row so far: the grown pool, and what was already offered."""
    item_results: list[dict[str, Any]] = field(default_factory=list)
    """`queries/hardening_item_results`."""
    rewards: list[dict[str, Any]] = field(default_factory=list)
    """`queries/hardening_rewards`."""
    steps: list[dict[str, Any]] = field(default_factory=list)
    """`queries/hardening_steps`."""

    def evidence(self, task_id: str) -> _GroupEvidence:
        results, rewards, steps = (part.get(task_id, []) for part in self._by_task)
        return _GroupEvidence(results, rewards, steps)

    @cached_property
    def _by_task(self) -> tuple[dict[str, list[dict[str, Any]]], ...]:
        grouped: tuple[dict[str, list[dict[str, Any]]], ...] = ({}, {}, {})
        for rows, by_task in zip((self.item_results, self.rewards, self.steps), grouped, strict=True):
            for row in rows:
                by_task.setdefault(row["task_id"], []).append(row)
        return grouped


def harden_stage(
    inputs: HardeningInputs,
    home: Home,
    domain: str,
    iteration: int,
    *,
    threshold: float = HARDEN_ABOVE,
    inclusive: bool = False,
    hardeners: Hardeners | None = None,
) -> HardeningStage:
    """Decide for every accepted task of `iteration` (`inputs`); returns the patterns grown from the
    diagnoses (`additions`, for the caller to log first) and the writes of `hardening_rounds` (partition
    of k) and of the tasks and blueprints of iteration k+1 (partition of k+1), for one transaction."""
    from skill2env.kits import KITS

    stage = HardeningStage(domain, iteration)
    decider = _Decider(stage, TaskStore.of(home), KITS, hardeners or Hardeners(),
                       current_pool(inputs.additions), threshold, inclusive, inputs.additions)  # fmt: skip
    for row in inputs.tasks:
        evidence = inputs.evidence(row["task_id"])
        stage.rounds.append(decider.decide(row, evidence, inputs.families.get(row["task_id"], row["task_id"])))
    stage.writes = [
        TableWrite(
            "hardening_rounds",
            pl.DataFrame(stage.rounds, schema=HARDENING_ROUNDS_SCHEMA),
            partition_key=stage_partition(domain, iteration),
        ),
        TableWrite("tasks", tasks_frame(stage.children), partition_key=stage_partition(domain, iteration + 1)),
        TableWrite(
            "task_files", task_files_frame(stage.children), partition_key=stage_partition(domain, iteration + 1)
        ),
        TableWrite(
            "blueprints", blueprints_frame(stage.blueprints), partition_key=stage_partition(domain, iteration + 1)
        ),
    ]
    return stage


@dataclass(frozen=True)
class _GroupEvidence:
    """A task's solver group: per-item results, rewards and steps of every scored attempt."""

    results: list[dict[str, Any]]
    rewards: list[dict[str, Any]]
    steps: list[dict[str, Any]]

    def empty(self) -> bool:
        """No scored attempt ran a command or wrote a file (it only looked, or finished at once): a
        baseline that did nothing."""
        if not self.rewards:
            return False
        acted = set()
        for step in self.steps:
            calls = step.get("tool_calls")
            calls = json.loads(calls) if isinstance(calls, str) else calls or []
            if any(isinstance(call, dict) and call.get("function_name") in ACTING_TOOLS for call in calls):
                acted.add(step["rollout_id"])
        return not any(r["rollout_id"] in acted for r in self.rewards)

    def attempts(self) -> list[AttemptEvidence]:
        items: dict[str, dict[str, str]] = {}
        for result in self.results:
            items.setdefault(result["rollout_id"], {})[result["item_id"]] = result["status"]
        steps: dict[str, list[dict[str, Any]]] = {}
        for step in self.steps:
            steps.setdefault(step["rollout_id"], []).append(step)
        return [AttemptEvidence(r["rollout_id"], int(r["attempt"]), float(r["reward"] or 0.0),
                                items.get(r["rollout_id"], {}), steps.get(r["rollout_id"], []))
                for r in self.rewards]  # fmt: skip


class _Decider:
    """Decides one task's round (see the module docstring) and collects the stage's outputs."""

    def __init__(self, stage: HardeningStage, store: TaskStore, kits: Mapping[str, Any],
                 hardeners: Hardeners, pool: PatternPool, threshold: float, inclusive: bool,
                 additions: pl.DataFrame) -> None:  # fmt: skip
        self.stage, self.store, self.kits = stage, store, kits
        self.hardeners, self.pool, self.threshold, self.inclusive = hardeners, pool, threshold, inclusive
        self.logged: dict[tuple[str, str], str | None] = {
            (diagnosis, candidate): pooled
            for diagnosis, candidate, pooled in additions.select("diagnosis", "candidate_id", "pattern_id").iter_rows()
        }
        """(diagnosis, candidate) → the pooled pattern id (None: rejected) of what was already offered."""
        self.additions = additions
        self.iteration = stage.iteration

    def decide(self, row: Mapping[str, Any], evidence: _GroupEvidence, family: str) -> dict[str, Any]:
        patterns = list(row["patterns"] or [])
        base = {"task_id": row["task_id"], "family": family, "iteration": self.iteration, "domain": row["domain"],
                "trigger_reward": row["mean_reward"], "triggered": False, "diagnosis": None, "proposal": None,
                "revision_diff": None, "child_task_id": None, "child_status": None, "patterns_before": patterns,
                "patterns_after": patterns, "grown_patterns": [], "child_gates": None}  # fmt: skip
        if not row.get("attempts"):
            return self._carried(row, base, "no_rollouts", "no scored rollouts of this task")
        if row["infra_errors"]:
            reason = f"{row['infra_errors']} attempts hit infrastructure errors: not a fair signal"
            return self._carried(row, base, "kept", reason)
        if row.get("defects"):
            reason = f"construction defects in {row['defect_items']}: flagged for repair, not hardened"
            return self._carried(row, base, "defective", reason)
        blueprint = Blueprint.model_validate_json(row["blueprint"]) if row.get("blueprint") else None
        kit = self.kits.get(str(row.get("author") or "").removeprefix("offline:"))
        rules = self._rules(row["task_id"], blueprint, kit, evidence)
        base["diagnosis"] = rules.to_json()
        reward = row["mean_reward"] or 0.0
        if rules.failures_from == "task":
            reason = "a challenge's items fail for the oracle too: an evaluator defect, not hardened"
            return self._carried(row, base, "defective", reason)
        if evidence.empty():
            reason = ("every attempt was an empty rollout (no command run, no file written): nothing shows the "
                      "task is easy, whatever the trigger")  # fmt: skip
            return self._carried(row, base, "kept", reason)
        if reward < self.threshold or (reward == self.threshold and not self.inclusive):
            reason = f"mean reward {reward:.2f} below the trigger {self.threshold:.2f}: the task still discriminates"
            return self._carried(row, base, "kept", reason)
        base["triggered"] = True
        if blueprint is None:
            return self._carried(row, base, "kept", "the task has no blueprint to diagnose")
        model = self._model_diagnosis(row, blueprint, evidence, rules)
        if isinstance(model, ModelDiagnosis):
            base["diagnosis"] = model.diagnosis.to_json()
            base["grown_patterns"] = self._grow(model, row["task_id"])
        diagnosis = model.diagnosis if isinstance(model, ModelDiagnosis) else rules
        if diagnosis.failures_from == "task":
            return self._carried(row, base, "defective", f"{diagnosis.by} found a task defect: {diagnosis.summary}")
        if isinstance(model, str) and kit is not None:
            base["reason_note"] = model
        if kit is not None:
            return self._harden_kit_task(row, base, kit, blueprint, evidence, diagnosis, model)
        return self._harden_model_task(row, base, blueprint, model)

    # -- diagnosis ------------------------------------------------------------------------------

    def _rules(self, task_id: str, blueprint: Blueprint | None, kit: Any, evidence: _GroupEvidence) -> Diagnosis:
        if blueprint is None:
            return Diagnosis(task_id)
        linked = None
        if kit is not None:
            from skill2env.kits.hardening import items_by_pattern

            linked = items_by_pattern(blueprint)
        return diagnose(task_id, blueprint, evidence.results, evidence.steps, linked=linked)

    def _model_diagnosis(self, row: Mapping[str, Any], blueprint: Blueprint, evidence: _GroupEvidence,
                         rules: Diagnosis) -> ModelDiagnosis | str | None:  # fmt: skip
        diagnoser = self.hardeners.diagnoser
        if diagnoser is None:
            return None
        pool = self._pool_before(row["task_id"])
        return diagnoser.diagnose(row["task_id"], blueprint, evidence.attempts(), rules, pool,
                                  mean_reward=float(row["mean_reward"] or 0.0))  # fmt: skip

    def _pool_before(self, task_id: str) -> PatternPool:
        """The pool without what this task's own diagnosis added to it, so diagnosing the same
        evidence again asks the same question (and the cache answers it)."""
        own = pl.col("diagnosis").str.starts_with(f"{task_id}:")
        if self.additions.filter(own).is_empty():
            return self.pool
        return current_pool(self.additions.filter(~own))

    def _grow(self, model: ModelDiagnosis, task_id: str) -> list[str]:
        """Offer the diagnosis's new pattern to the pool, once per diagnosis (a re-run logs nothing new)."""
        candidate = model.new_pattern
        if candidate is None:
            return []
        diagnosis_id = candidate.origin.diagnosis or task_id
        if (diagnosis_id, candidate.id) in self.logged:
            pooled = self.logged[(diagnosis_id, candidate.id)]
            return [pooled] if pooled else []
        parent = candidate.origin.parent if candidate.origin.parent in self.pool else None
        growth = grow_pool(self.pool, candidate, diagnosis=diagnosis_id, parent=parent)
        self.stage.additions.append(addition_frame(growth))
        self.pool = growth.pool
        self.logged[(diagnosis_id, candidate.id)] = growth.pattern.id if growth.pattern else None
        return [growth.pattern.id] if growth.pattern else []

    # -- proposals and rebuilds -----------------------------------------------------------------

    def _harden_kit_task(self, row: Mapping[str, Any], base: dict[str, Any], kit: Any, blueprint: Blueprint,
                         evidence: _GroupEvidence, diagnosis: Diagnosis,
                         model: ModelDiagnosis | str | None) -> dict[str, Any]:  # fmt: skip
        current = {c.pattern_id: c.intensity for c in blueprint.challenges}
        translated = kit_patterns(kit, blueprint, model.proposal) if isinstance(model, ModelDiagnosis) else None
        if translated is not None and translated != current:
            proposal, proposed_by = translated, model.diagnosis.by if isinstance(model, ModelDiagnosis) else "rules"
        else:
            proposal, proposed_by = kit.harden(blueprint, _group_results(evidence.results)), "rules"
        base["proposal"] = json.dumps({"patterns": proposal, "from": current, "verdicts": diagnosis.verdicts(),
                                       "by": proposed_by}, sort_keys=True)  # fmt: skip
        if proposal == current:
            return self._carried(
                row, base, "kept", "every challenge is at intensity 3 and no compatible pattern is left"
            )
        seed_match = _SEED.search(blueprint.task_name)
        seed = int(seed_match.group(1)) if seed_match else 0
        skill = SkillRef.model_validate(blueprint.skill.model_dump())
        try:
            draft = kit.build(seed, skill, blueprint.domain, proposal, iteration=self.iteration + 1, parent=blueprint,
                              proposal_id=f"{proposed_by}-{row['task_id']}")  # fmt: skip
        except Exception as exc:  # a kit that cannot build the proposal: the parent stays
            return self._carried(
                row, base, "rejected", f"the kit could not build the proposal: {type(exc).__name__}: {exc}"
            )
        return self._adopt(row, base | {"patterns_after": list(proposal)}, draft)

    def _harden_model_task(self, row: Mapping[str, Any], base: dict[str, Any], blueprint: Blueprint,
                           model: ModelDiagnosis | str | None) -> dict[str, Any]:  # fmt: skip
        if not isinstance(model, ModelDiagnosis):
            why = model or "no diagnoser model configured"
            return self._carried(row, base, "kept", f"no offline kit for author {row.get('author')!r}; {why}")
        if model.proposal is None:
            return self._carried(row, base, "kept", "the diagnoser proposed no hardening")
        base["proposal"] = model.proposal.model_dump_json()
        author = self.hardeners.author
        if author is None:
            return self._carried(row, base, "kept", "no author model configured to rebuild the revised blueprint")
        try:
            revised = revise_blueprint(blueprint, model.proposal)
        except RevisionError as exc:
            return self._carried(row, base, "rejected", f"the proposal does not apply: {exc}")
        draft = author.rebuild(revised, self.store.resolve(str(row["store_path"])))
        if isinstance(draft, Rejection):
            return self._carried(row, base, "rejected", f"{author.name} could not rebuild the task: {draft.reason}")
        patterns = [c.pattern_id for c in revised.challenges]
        return self._adopt(row, base | {"patterns_after": patterns}, draft)

    def _adopt(self, row: Mapping[str, Any], base: dict[str, Any], draft: TaskDraft) -> dict[str, Any]:
        """Store the hardened child; it replaces its parent only if it passes the checks and every gate."""
        # The child carries the skill exactly as its parent does: the copy stored with the parent task.
        parent_skill = TaskPaths(self.store.resolve(str(row["store_path"]))).skill_dir
        record = build_task(draft, self.store, skill_dir=parent_skill if parent_skill.is_dir() else None)
        diff = draft.blueprint.revision.diff if draft.blueprint.revision else []
        base = base | {"revision_diff": json.dumps(diff, sort_keys=True, default=str)}
        if record.status != TaskStatus.built:
            reason = "the hardened task failed the author-side checks: " + "; ".join(record.reasons[:3])
            return self._carried(row, base, "rejected", reason)
        if self.hardeners.gates is not None:
            validation = self.hardeners.gates(record, draft.blueprint)
            validated = [(validation, str(record.domain), record.iteration)]
            rows = validations_frame(validated, self.hardeners.backend)
            probes = hack_probes_frame(validated, self.hardeners.backend)
            base["child_gates"] = json.dumps(
                {"accepted": validation.accepted, "failing": validation.failing, "rows": rows.to_dicts(),
                 "probes": probes.to_dicts()},
                sort_keys=True, default=str,
            )  # fmt: skip
            if not validation.accepted:
                reasons = "; ".join(f"{o.gate.value}: {o.evidence}" for o in validation.outcomes
                                    if o.gate.value in validation.failing)  # fmt: skip
                return self._carried(row, base, "rejected", f"the hardened task failed the gates ({reasons})"[:1000])
        self.stage.children.append(record)
        self.stage.blueprints.append((draft.blueprint, draft.author))
        reward = row["mean_reward"] or 0.0
        reason = f"mean reward {reward:.2f} reached the trigger {self.threshold:.2f}" + _note(base)
        return _row(base) | {"outcome": "hardened", "reason": reason, "child_task_id": record.task_id,
                             "child_status": record.status.value}  # fmt: skip

    def _carried(self, row: Mapping[str, Any], base: dict[str, Any], outcome: str, reason: str) -> dict[str, Any]:
        child = _carry(row, self.iteration + 1, self.store)
        self.stage.children.append(child)
        return _row(base) | {"outcome": outcome, "reason": reason + _note(base), "child_task_id": child.task_id,
                             "child_status": child.status.value}  # fmt: skip


def session_hardeners(models: LlmSession, home: Home, backend: BackendName) -> Hardeners:
    """The diagnoser and author models this session has (each None without an endpoint) and the
    validation gates, with the session's judge, for hardened children."""
    from skill2env.rubric.judge import session_judge
    from skill2env.tasks.model_author import ROLE as AUTHOR_ROLE
    from skill2env.tasks.model_author import ModelAuthor
    from skill2env.validation.red_team import session_red_team

    judge = session_judge(models)
    red_team = session_red_team(models, home, backend)

    def gates(record: TaskRecord, blueprint: Blueprint) -> Validation:
        rubric = (
            Rubric.model_validate_json(record.rubric)
            if record.rubric
            else task_rubric(home.data_root / str(record.store_path))
        )
        return validate_task(record.task_id or "", home.data_root / str(record.store_path), rubric, backend=backend,
                             blueprint=blueprint, judge=judge, red_team=red_team)  # fmt: skip

    author = ModelAuthor(models.client(AUTHOR_ROLE)) if models.configured(AUTHOR_ROLE) else None
    return Hardeners(diagnoser=model_diagnoser(models), author=author, gates=gates, backend=backend)


def kit_patterns(kit: Any, blueprint: Blueprint, proposal: HardeningProposal | None) -> dict[str, int] | None:
    """A model's proposal as a world kit can build it (pattern → intensity): its strengthened and
    added challenges the kit implements; None when nothing of it applies."""
    if proposal is None:
        return None
    patterns = {c.pattern_id: c.intensity for c in blueprint.challenges}
    for change in proposal.changes:
        if isinstance(change, StrengthenChallenge) and change.challenge < len(blueprint.challenges):
            pattern_id = blueprint.challenges[change.challenge].pattern_id
            patterns[pattern_id] = max(patterns[pattern_id], change.intensity)
        elif isinstance(change, AddChallenge) and change.pattern_id in kit.patterns:
            patterns.setdefault(change.pattern_id, change.intensity)
    try:
        kit.check_patterns(patterns)
    except ValueError:
        return None
    return patterns


def _group_results(results: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Item id → 1.0 when every attempt met it, else 0.0."""
    group = {r["item_id"]: 1.0 for r in results}
    for r in results:
        if r["status"] != "passed":
            group[r["item_id"]] = 0.0
    return group


def _note(base: Mapping[str, Any]) -> str:
    return f" ({base['reason_note']}; the rules decided)" if base.get("reason_note") else ""


def _row(base: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in base.items() if key != "reason_note"}


def _carry(row: Mapping[str, Any], iteration: int, store: TaskStore) -> TaskRecord:
    """The parent's task version, unchanged, as the task of the next iteration."""
    return TaskRecord(
        status=TaskStatus.built,
        task_id=task_id_of(str(row["task_name"]), iteration),
        task_name=row["task_name"],
        iteration=iteration,
        reasons=("carried: unchanged from the previous iteration",),
        skill_id=row["skill_id"],
        skill_path=row["skill_path"],
        domain=row["domain"],
        patterns=tuple(row["patterns"] or ()),
        blueprint_digest=row["blueprint_digest"],
        task_digest=row["task_digest"],
        store_path=row["store_path"],
        author=row["author"],
        environment="dockerfile",
        rubric=row["rubric"],
        leak_checked=row["leak_checked"],
        leak_leaked=row["leak_leaked"],
        findings=row["findings"] or "[]",
        files=task_files_of(store.resolve(str(row["store_path"]))),
    )
