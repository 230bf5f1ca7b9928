"""Failure classification (the paper's verification agent): why did a rollout fail an item — agent or task?

After rollouts, every failed item of every scored attempt is classified as

* `evaluator_defect` — the check or the judge is wrong: the reference solution failed the item at
  validation too (the oracle gate's per-item q), or the verifier model shows the check contradicts
  the blueprint;
* `missing_material` — a fact the item needs is not actually available: a discoverable fact it
  follows from (through `derived_from` and the derivations) is not in the task's initial workspace
  where the blueprint says (read and normalised the way the author-side checks read it);
* `agent_failure` — otherwise: the task was fair and the agent fell short.

The rules decide first and need no endpoint. A `ModelClassifier` (the `verifier` role, template
`verifier_classify`) then reviews the `agent_failure` cases only, seeing everything (author-only
values included), and may turn one into a justified defect; the rules stay authoritative for oracle
failures and missing facts. When the model cannot be used, the rules' classification stands and the
evidence says why. Defects flag the task for repair and keep it out of hardening and SFT.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from skill2env.kits.base import expected_fact
from skill2env.llm import (
    ModelClient,
    ModelError,
    ModelOutputInvalid,
    ModelRefused,
    ModelTruncated,
    ModelUnavailable,
    Prompt,
    render,
)
from skill2env.llm.session import LlmSession
from skill2env.patterns.models import InformationLevel
from skill2env.rubric import ItemResult, ItemStatus, Method, Rubric, RubricItem
from skill2env.sandbox import TaskDir
from skill2env.tasks.blueprint import Blueprint, Fact
from skill2env.tasks.checks import FILE_PARAMS, check_discoverable_facts, read_workspace
from skill2env.tasks.documents import Extracted, file_format
from skill2env.tasks.normalize import Haystack, Needle, ValueKind, find, needle, same_value
from skill2env.thresholds import JUDGE_PASS_Q

logger = logging.getLogger(__name__)

RULES = "rules"
"""`decided_by` of a classification the rules made (the model was not asked, failed, or agreed)."""
ROLE = "verifier"
TEMPLATE = "verifier_classify"
MAX_FILE_BYTES = 16 * 1024 * 1024
"""Workspace files larger than this are not read for facts (a fact there counts as unverifiable)."""
MAX_EVIDENCE_CHARS = 4000
MAX_INSTRUCTION_CHARS = 6000
MAX_LISTING = 200
MIN_JUSTIFICATION_CHARS = 20
BREAKER_AFTER = 3
"""Consecutive rollouts with the endpoint unavailable before the verifier stops asking."""
ABSENT_CODES = frozenset({"missing_file", "absent"})
"""Codes of `check_discoverable_facts` findings that say a fact is not in the workspace."""
_FALLBACK_REASONS: tuple[tuple[type[ModelError], str], ...] = (
    (ModelUnavailable, "unavailable"),
    (ModelOutputInvalid, "invalid-answer"),
    (ModelRefused, "refused"),
    (ModelTruncated, "truncated"),
)


class FailureClass(StrEnum):
    agent_failure = "agent_failure"
    evaluator_defect = "evaluator_defect"
    """The check or the judge is wrong."""
    missing_material = "missing_material"
    """A fact the item needs is not actually available to the agent."""

    @property
    def defect(self) -> bool:
        """A construction defect of the task (not the agent's failure)."""
        return self != FailureClass.agent_failure


class Classification(BaseModel):
    """Why one rollout failed one rubric item."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rollout_id: str
    task_id: str
    item_id: str
    classification: FailureClass
    decided_by: str = RULES
    """`rules`, or `verifier:<model>` when the model's answer decided (it overrode or confirmed)."""
    evidence: str
    """The rule that fired and what it looked at; the model's justification when it answered."""
    facts: tuple[str, ...] = ()
    """The blueprint facts the item follows from (what the rules looked for)."""


# -- the rules ----------------------------------------------------------------------------------------


def classify_failures(
    task_id: str,
    blueprint: Blueprint | None,
    rubric: Rubric,
    failures: Mapping[str, Sequence[ItemResult]],
    oracle_q: Mapping[str, float | None] | None,
    task_dir: Path | None,
) -> list[Classification]:
    """Rule-based classification of every `failed` item result of each rollout (rollout id → its item
    results; other statuses are skipped). `oracle_q` is the oracle gate's per-item q at validation
    (None: no oracle run recorded); `task_dir` the task's Harbor directory (None: not available, so
    the workspace is not searched). Without a blueprint only the oracle rule applies."""
    if not any(r.status == ItemStatus.failed for results in failures.values() for r in results):
        return []
    documents = initial_documents(task_dir) if blueprint is not None else None
    absent = absent_facts(blueprint, documents) if blueprint is not None and documents is not None else {}
    linked: dict[str, list[Fact]] = {}
    out = []
    for rollout_id in sorted(failures):
        for result in failures[rollout_id]:
            if result.status != ItemStatus.failed:
                continue
            item = _rubric_item(rubric, result.item_id)
            if result.item_id not in linked:
                linked[result.item_id] = item_facts(blueprint, item) if blueprint and item else []
            facts = linked[result.item_id]
            classification, evidence = _rule(result, item, facts, oracle_q, absent, blueprint, documents)
            out.append(Classification(rollout_id=rollout_id, task_id=task_id, item_id=result.item_id,
                                      classification=classification, evidence=evidence,
                                      facts=tuple(f.id for f in facts)))  # fmt: skip
    return out


def _rule(result: ItemResult, item: RubricItem | None, facts: list[Fact], oracle_q: Mapping[str, float | None] | None,
          absent: Mapping[str, str], blueprint: Blueprint | None,
          documents: Mapping[str, Extracted] | None) -> tuple[FailureClass, str]:  # fmt: skip
    method = item.method if item is not None else result.method
    q = oracle_q.get(result.item_id) if oracle_q is not None else None
    if q is not None and oracle_failed(method, q):
        return FailureClass.evaluator_defect, (
            f"the reference solution failed {result.item_id} at validation too (oracle q={q:.2f}): the "
            f"{'check' if method == Method.deterministic else 'judge'} rejects a correct answer"
        )
    missing = [f for f in facts if f.id in absent]
    if missing:
        return FailureClass.missing_material, "; ".join(
            f"{result.item_id} follows from discoverable fact {f.id} ({f.value!r}): {absent[f.id]}" for f in missing
        )
    notes = []
    if oracle_q is None:
        notes.append("no oracle run recorded")
    elif result.item_id not in oracle_q or q is None:
        notes.append(f"the oracle's q for {result.item_id} was not recorded")
    else:
        notes.append(f"the oracle passed {result.item_id} (q={q:.2f})")
    discoverable = [f.id for f in facts if f.level == InformationLevel.DISCOVERABLE]
    if blueprint is None:
        notes.append("no blueprint: the workspace was not checked")
    elif documents is None:
        notes.append("the task directory was not available: the workspace was not checked")
    elif discoverable:
        notes.append(f"its discoverable facts are in the initial workspace ({', '.join(discoverable)})")
    else:
        notes.append("it follows from no discoverable fact the blueprint links to it")
    what = result.error or _brief(result.evidence, 300)
    return FailureClass.agent_failure, "; ".join(notes) + (f"; the item reported: {what}" if what else "")


def oracle_failed(method: Method, q: float) -> bool:
    """Whether the oracle's q fails the item: below 1 for a check, below the pass mark for a judge."""
    return q < (1.0 if method == Method.deterministic else JUDGE_PASS_Q)


def initial_documents(task_dir: Path | None) -> dict[str, Extracted] | None:
    """The text of the task's initial workspace (`environment/workspace/`), per file; None without a
    task directory. A file over `MAX_FILE_BYTES`, or a link, is listed but not read."""
    if task_dir is None or not task_dir.is_dir():
        return None
    root = TaskDir(task_dir).workspace_dir
    if not root.is_dir():
        return {}
    data: dict[str, bytes] = {}
    skipped: dict[str, Extracted] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if path.is_symlink():
            skipped[relative] = Extracted(relative, file_format(relative), (), "a link: not followed")
        elif path.is_file() and path.stat().st_size > MAX_FILE_BYTES:
            skipped[relative] = Extracted(relative, file_format(relative), (), f"over {MAX_FILE_BYTES} bytes: not read")
        elif path.is_file():
            data[relative] = path.read_bytes()
    return read_workspace(data) | skipped


def workspace_listing(task_dir: Path | None) -> list[str] | None:
    """`<path> (<bytes> bytes)` for each file of the task's initial workspace; None without a task directory."""
    if task_dir is None or not task_dir.is_dir():
        return None
    root = TaskDir(task_dir).workspace_dir
    if not root.is_dir():
        return []
    return [f"{path.relative_to(root).as_posix()} ({path.lstat().st_size} bytes)"
            for path in sorted(root.rglob("*")) if path.is_file() or path.is_symlink()]  # fmt: skip


def absent_facts(blueprint: Blueprint, documents: Mapping[str, Extracted]) -> dict[str, str]:
    """Discoverable fact id → why it is not where the blueprint says (the author-side facts check;
    a fact in a file that cannot be read as text is not counted absent: it may be the challenge)."""
    return {
        finding.subject: finding.message
        for finding in check_discoverable_facts(blueprint, documents)
        if finding.code in ABSENT_CODES
    }


def item_facts(blueprint: Blueprint, item: RubricItem) -> list[Fact]:
    """The facts a rubric item follows from, in blueprint order: the facts it names or expects
    (`expected.<item>`, a fact id in the item id or its criterion, a fact value among its check's
    expected values or in its judge instruction), then everything they are derived from."""
    criteria = " ".join(f"{c.id} {c.description}" for c in blueprint.acceptance_criteria if c.rubric_item == item.id)
    values = [needle(value) for value in _param_values(item.check.params if item.check else {})]
    values = [value for value in values if value.kind != ValueKind.unchecked]
    instruction = Haystack.of([item.judge_instruction]) if item.judge_instruction else None
    direct = {
        fact.id
        for fact in blueprint.facts
        if fact.id == expected_fact(item.id)
        or _names(item.id, fact.id)
        or _names(criteria, fact.id)
        or _value_expected(needle(fact.value), values, instruction)
    }
    return [f for f in blueprint.facts if f.id in _closure(blueprint, direct)]


def _value_expected(target: Needle, values: Sequence[Needle], instruction: Haystack | None) -> bool:
    if target.kind == ValueKind.unchecked:
        return False
    return any(same_value(target, value) for value in values) or (instruction is not None and find(target, instruction))


def _closure(blueprint: Blueprint, start: Iterable[str]) -> set[str]:
    sources = {fact.id: set(fact.derived_from) for fact in blueprint.facts}
    for derivation in blueprint.derivations:
        sources.setdefault(derivation.result, set()).update(derivation.from_facts)
    seen: set[str] = set()
    todo = list(start)
    while todo:
        fact_id = todo.pop()
        if fact_id not in seen:
            seen.add(fact_id)
            todo += sorted(sources.get(fact_id, ()))
    return seen


def _names(text: str, fact_id: str) -> bool:
    """`fact_id` occurs in `text` as a whole token (not inside a longer id or word)."""
    return bool(re.search(rf"(?<![\w.-]){re.escape(fact_id)}(?![\w-])", text))


def _param_values(params: Mapping[str, Any]) -> Iterable[object]:
    """Every leaf value of a check's parameters, except those naming the files it reads."""
    for key, value in params.items():
        if key not in FILE_PARAMS:
            yield from _leaf_values(value)


def _leaf_values(value: object) -> Iterable[object]:
    if isinstance(value, Mapping):
        for child in value.values():
            yield from _leaf_values(child)
    elif isinstance(value, list | tuple):
        for child in value:
            yield from _leaf_values(child)
    else:
        yield value


def _rubric_item(rubric: Rubric, item_id: str) -> RubricItem | None:
    try:
        return rubric.item(item_id)
    except KeyError:
        return None


def _brief(value: object, limit: int) -> str:
    if not value:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- the model ----------------------------------------------------------------------------------------


class ItemDecision(BaseModel):
    """The verifier model's decision on one failed item."""

    item_id: str
    classification: Literal["agent_failure", "evaluator_defect", "missing_material"]
    justification: str = Field(min_length=1, max_length=1200)
    """Why, pointing at the blueprint's facts, the check's parameters or the item's evidence."""
    facts: list[str] = Field(default_factory=list)
    """Ids of the blueprint facts the decision rests on (required for `missing_material`)."""


class ClassifierAnswer(BaseModel):
    decisions: list[ItemDecision]


class FailureClassifier(Protocol):
    """Reviews the rules' classifications of one task; never raises."""

    def review(
        self,
        blueprint: Blueprint | None,
        rubric: Rubric,
        failures: Mapping[str, Sequence[ItemResult]],
        classifications: Sequence[Classification],
        task_dir: Path | None,
    ) -> list[Classification]: ...


class ModelClassifier:
    """The verifier role's model reviews the `agent_failure` cases (see the module docstring): one
    structured call per rollout with such cases. Other classifications pass through untouched."""

    def __init__(self, client: ModelClient) -> None:
        self.client = client
        self.name = f"{ROLE}:{client.model}"
        self.outcomes: Counter[str] = Counter()
        """How rollouts went: `reviewed`, or the fallback reason."""
        self._unavailable_in_a_row = 0

    def review(self, blueprint: Blueprint | None, rubric: Rubric, failures: Mapping[str, Sequence[ItemResult]],
               classifications: Sequence[Classification], task_dir: Path | None) -> list[Classification]:  # fmt: skip
        by_rollout: dict[str, list[Classification]] = {}
        for entry in classifications:
            if entry.classification == FailureClass.agent_failure:
                by_rollout.setdefault(entry.rollout_id, []).append(entry)
        decided: dict[tuple[str, str], Classification] = {}
        for rollout_id, cases in by_rollout.items():
            results = {r.item_id: r for r in failures.get(rollout_id, ())}
            for case in self._review_rollout(blueprint, rubric, results, cases, task_dir):
                decided[(case.rollout_id, case.item_id)] = case
        return [decided.get((c.rollout_id, c.item_id), c) for c in classifications]

    def _review_rollout(self, blueprint: Blueprint | None, rubric: Rubric, results: Mapping[str, ItemResult],
                        cases: list[Classification], task_dir: Path | None) -> list[Classification]:  # fmt: skip
        if self._unavailable_in_a_row >= BREAKER_AFTER:
            return self._fallback(cases, "unavailable", f"not asked: unavailable for {BREAKER_AFTER} rollouts in a row")
        known_facts = {f.id for f in blueprint.facts} if blueprint else set()
        asked = [c.item_id for c in cases]
        try:
            answer = self.client.structured(
                self._prompt(blueprint, rubric, results, cases, task_dir), ClassifierAnswer,
                check=lambda a: answer_problems(a, asked, known_facts), partition_key=cases[0].task_id,
            ).value  # fmt: skip
        except ModelError as exc:
            code = next((code for kind, code in _FALLBACK_REASONS if isinstance(exc, kind)), "unavailable")
            self._unavailable_in_a_row = self._unavailable_in_a_row + 1 if isinstance(exc, ModelUnavailable) else 0
            logger.warning("verifier %s could not review %s: %s: %s", self.name, cases[0].rollout_id,
                           type(exc).__name__, exc)  # fmt: skip
            return self._fallback(cases, code, f"{type(exc).__name__}: {exc}")
        self._unavailable_in_a_row = 0
        self.outcomes["reviewed"] += 1
        by_item = {d.item_id: d for d in answer.decisions}
        return [self._decided(case, by_item[case.item_id]) for case in cases]

    def _decided(self, case: Classification, decision: ItemDecision) -> Classification:
        cited = f" (facts: {', '.join(decision.facts)})" if decision.facts else ""
        if decision.classification == FailureClass.agent_failure:
            evidence = f"{case.evidence}; {self.name} agreed: {decision.justification}{cited}"
        else:
            self.outcomes["overridden"] += 1
            evidence = f"{self.name}: {decision.justification}{cited}; the rules said: {case.evidence}"
        return case.model_copy(update={"classification": FailureClass(decision.classification),
                                       "decided_by": self.name, "evidence": evidence})  # fmt: skip

    def _fallback(self, cases: list[Classification], code: str, detail: str) -> list[Classification]:
        self.outcomes[code] += 1
        note = f"; {self.name} not used ({code}): {detail[:200]}"
        return [case.model_copy(update={"evidence": case.evidence + note}) for case in cases]

    def _prompt(self, blueprint: Blueprint | None, rubric: Rubric, results: Mapping[str, ItemResult],
                cases: list[Classification], task_dir: Path | None) -> Prompt:  # fmt: skip
        listing = workspace_listing(task_dir)
        instruction = ""
        if task_dir is not None and TaskDir(task_dir).instruction.is_file():
            instruction = TaskDir(task_dir).instruction.read_text(encoding="utf-8", errors="replace")
        criteria = {c.rubric_item: c.description for c in blueprint.acceptance_criteria} if blueprint else {}
        items = []
        for case in cases:
            item = _rubric_item(rubric, case.item_id)
            result = results.get(case.item_id)
            items.append({
                "id": case.item_id,
                "description": item.description if item else "",
                "method": item.method.value if item else "",
                "weight": item.weight if item else 0.0,
                "criterion": criteria.get(case.item_id, ""),
                "check": _brief(item.check.model_dump(mode="json"), MAX_EVIDENCE_CHARS) if item and item.check else "",
                "judge_instruction": (item.judge_instruction or "") if item else "",
                "target_files": item.target_files if item else [],
                "facts": list(case.facts),
                "rules": case.evidence,
                "q": result.q if result else None,
                "error": (result.error or "") if result else "",
                "evidence": _brief(result.evidence, MAX_EVIDENCE_CHARS) if result else "",
            })  # fmt: skip
        return render(
            TEMPLATE,
            task_id=cases[0].task_id,
            goal=blueprint.goal if blueprint else "",
            instruction=instruction[:MAX_INSTRUCTION_CHARS],
            instruction_truncated=len(instruction) > MAX_INSTRUCTION_CHARS,
            facts=[f.model_dump(mode="json") for f in blueprint.facts] if blueprint else [],
            derivations=[d.model_dump(mode="json") for d in blueprint.derivations] if blueprint else [],
            deliverables=[d.model_dump(mode="json") for d in blueprint.deliverables] if blueprint else [],
            workspace=(listing or [])[:MAX_LISTING],
            workspace_more=max(0, len(listing or []) - MAX_LISTING),
            workspace_known=listing is not None,
            items=items,
        )


def answer_problems(answer: ClassifierAnswer, asked: Sequence[str], known_facts: set[str]) -> list[str]:
    """What makes an answer unusable (sent back for repair): every asked item exactly once, nothing
    else; a defect justified at length; a missing fact named among the blueprint's facts."""
    problems = []
    ids = [d.item_id for d in answer.decisions]
    for item_id in sorted(set(asked) - set(ids)):
        problems.append(f"no decision for item {item_id}")
    for item_id in sorted(set(ids) - set(asked)):
        problems.append(f"item {item_id} was not asked about: decide only the items listed")
    for item_id in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(f"item {item_id} is decided more than once")
    for decision in answer.decisions:
        if decision.classification == FailureClass.agent_failure:
            continue
        if len(decision.justification.strip()) < MIN_JUSTIFICATION_CHARS:
            problems.append(f"item {decision.item_id}: a {decision.classification} needs a justification that "
                            "points at the evidence")  # fmt: skip
        unknown = sorted(set(decision.facts) - known_facts)
        if unknown:
            problems.append(f"item {decision.item_id}: unknown fact ids {unknown}")
        if decision.classification == FailureClass.missing_material and not decision.facts:
            problems.append(f"item {decision.item_id}: missing_material must name the missing facts' ids")
    return problems


def model_classifier(session: LlmSession) -> ModelClassifier | None:
    """The model verifier when the verifier role is configured; None (rules only) otherwise."""
    return ModelClassifier(session.client(ROLE)) if session.configured(ROLE) else None
