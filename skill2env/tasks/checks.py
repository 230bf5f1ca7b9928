"""Author-side checks, run on a draft before anything executes it.

Each check returns named findings (`check`, `code`, `severity`, `message`, `subject`). A draft
with an `error` finding is stored with status `rejected` and the findings as its reasons — it is
never dropped. The checks:

* `criteria` — every acceptance criterion maps to exactly one rubric item and back; weights are
  positive and sum to 1. Works on raw dicts too (a model's answer), reporting instead of raising.
* `facts` — every discoverable fact's value is in the workspace file the blueprint names.
* `leaks` — no author-only value and no inferable conclusion appears in the instruction, the
  workspace files or their names; `LeakCheck` carries the leak rate (leaked / checked values).
* `evaluator` — deterministic items read only deliverables the instruction asks for or workspace
  inputs, and the instruction does not reveal the evaluator (item ids, rubric/reward/tests
  wording, expected numbers or dates).

Values are compared after normalisation (numbers, dates, case, whitespace; see `normalize`).
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from skill2env.patterns.models import InformationLevel
from skill2env.rubric import Method
from skill2env.rubric.models import WEIGHT_TOLERANCE
from skill2env.tasks.blueprint import Blueprint, Fact
from skill2env.tasks.documents import Extracted, extract
from skill2env.tasks.draft import TaskDraft
from skill2env.tasks.normalize import Haystack, ValueKind, find, needle, same_value

INSTRUCTION = "instruction.md"
FILE_NAMES = "(workspace file names)"
FILE_PARAMS = frozenset({"path", "paths", "file", "files", "target", "targets", "deliverable", "glob", "globs"})
"""Check parameters that name files the check reads."""
EVALUATOR_WORDS = re.compile(r"\brubric\b|\brewards?\b|\btests/|/tests\b|\bverify\.py\b|\beval_spec\b|\btest\.sh\b",
                             re.IGNORECASE)  # fmt: skip
WORKSPACE_PREFIX = "/workspace/"


class Severity(StrEnum):
    error = "error"
    """The task is rejected."""
    warning = "warning"
    """Something could not be verified; the task stands."""
    info = "info"


class Finding(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    check: str
    """criteria | facts | leaks | evaluator | blueprint."""
    code: str
    severity: Severity
    message: str
    subject: str = ""
    """The fact, rubric item, criterion or file the finding is about."""

    @property
    def reason(self) -> str:
        return f"{self.check}.{self.code}: {self.message}"


@dataclass(frozen=True)
class LeakCheck:
    findings: tuple[Finding, ...]
    checked: int
    """Author-only and inferable values that could be searched for."""
    leaked: int

    @property
    def rate(self) -> float | None:
        return self.leaked / self.checked if self.checked else None


@dataclass(frozen=True)
class CheckReport:
    findings: tuple[Finding, ...]
    leak: LeakCheck = field(default_factory=lambda: LeakCheck((), 0, 0))

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == Severity.error]

    @property
    def passed(self) -> bool:
        return not self.errors

    @property
    def reasons(self) -> list[str]:
        """Why a rejected task was rejected: one line per error finding."""
        return [f.reason for f in self.errors]


def check_draft(draft: TaskDraft) -> CheckReport:
    """Every author-side check on one draft."""
    documents = read_workspace(draft.workspace)
    blueprint = draft.blueprint
    leak = check_leaks(blueprint, draft.instruction, documents)
    findings = [
        *check_criteria(blueprint),
        *check_discoverable_facts(blueprint, documents),
        *leak.findings,
        *check_evaluator(blueprint, draft.instruction, sorted(draft.workspace)),
    ]
    return CheckReport(tuple(findings), leak)


def read_workspace(workspace: Mapping[str, bytes]) -> dict[str, Extracted]:
    return {path: extract(path, data) for path, data in sorted(workspace.items())}


def validate_blueprint(raw: Mapping[str, Any]) -> tuple[Blueprint | None, list[Finding]]:
    """A model's raw blueprint: the validated model, or None and why — never an exception."""
    findings = check_criteria(raw)
    try:
        return Blueprint.model_validate(raw), findings
    except ValidationError as exc:
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"]) or "blueprint"
            findings.append(_error("blueprint", "invalid", f"{where}: {error['msg']}", where))
        return None, findings


# --- (a) criteria ↔ rubric items -------------------------------------------------------------


def check_criteria(blueprint: Blueprint | Mapping[str, Any]) -> list[Finding]:
    """Acceptance criteria and rubric items map one to one; weights are positive and sum to 1."""
    raw = blueprint.model_dump(mode="json") if isinstance(blueprint, Blueprint) else blueprint
    criteria = _dicts(raw.get("acceptance_criteria"))
    rubric = raw.get("rubric")
    items = _dicts(rubric.get("items")) if isinstance(rubric, Mapping) else []
    findings: list[Finding] = []
    if not criteria:
        findings.append(_error("criteria", "no_criteria", "the blueprint has no acceptance criteria"))
    if not items:
        findings.append(_error("criteria", "no_items", "the rubric has no items"))
    item_ids = [str(item.get("id", "")) for item in items]
    for repeated in sorted({i for i in item_ids if item_ids.count(i) > 1}):
        findings.append(_error("criteria", "duplicate_item", f"rubric item id {repeated!r} repeats", repeated))
    claimed: dict[str, list[str]] = {}
    for index, criterion in enumerate(criteria):
        name = str(criterion.get("id") or f"#{index}")
        target = criterion.get("rubric_item")
        if not target:
            findings.append(_error("criteria", "unmapped_criterion", f"criterion {name} names no rubric item", name))
        elif target not in item_ids:
            findings.append(_error("criteria", "unknown_item", f"criterion {name} maps to unknown item {target}", name))
        else:
            claimed.setdefault(str(target), []).append(name)
    for item_id in dict.fromkeys(item_ids):
        owners = claimed.get(item_id, [])
        if not owners:
            findings.append(_error("criteria", "orphan_item", f"rubric item {item_id} checks no criterion", item_id))
        elif len(owners) > 1:
            message = f"rubric item {item_id} is claimed by several criteria: {', '.join(owners)}"
            findings.append(_error("criteria", "shared_item", message, item_id))
    weights: list[float] = []
    for item in items:
        weight = item.get("weight")
        number = weight if isinstance(weight, int | float) and not isinstance(weight, bool) else None
        if number is None or not math.isfinite(number) or number <= 0:
            message = f"rubric item {item.get('id')} has weight {weight!r}; weights are positive numbers"
            findings.append(_error("criteria", "bad_weight", message, str(item.get("id", ""))))
        else:
            weights.append(float(number))
    if items and len(weights) == len(items) and abs(math.fsum(weights) - 1.0) > WEIGHT_TOLERANCE:
        findings.append(_error("criteria", "weights_sum", f"rubric weights sum to {math.fsum(weights):.6g}, not 1"))
    return findings


# --- (b) discoverable facts are where the blueprint says ---------------------------------------


def check_discoverable_facts(blueprint: Blueprint, documents: Mapping[str, Extracted]) -> list[Finding]:
    """Each discoverable fact's value is in the file its `location` names (or, for a folder `dir/` or
    a glob, in one of the files it matches; each part of a list somewhere among them)."""
    findings: list[Finding] = []
    for fact in blueprint.facts_at(InformationLevel.DISCOVERABLE):
        location = _workspace_relative(fact.location or "")
        matched = [documents[path] for path in documents if _covered(location, [path])]
        if not matched:
            message = f"discoverable fact {fact.id} lives in {location}, which the workspace does not hold"
            findings.append(_error("facts", "missing_file", message, fact.id))
            continue
        target = needle(fact.value)
        unreadable = [doc for doc in matched if not doc.readable]
        hay = Haystack.of(segment for doc in matched if doc.readable for segment in doc.segments)
        if target.kind == ValueKind.unchecked:
            message = f"discoverable fact {fact.id} ({fact.value!r}) cannot be looked for: {target.why_unchecked}"
            findings.append(Finding(check="facts", code="unchecked", severity=Severity.info, message=message,
                                    subject=fact.id))  # fmt: skip
        elif find(target, hay):
            continue
        elif unreadable:
            message = f"discoverable fact {fact.id} could not be verified in {location}: {unreadable[0].note}"
            findings.append(Finding(check="facts", code="unverifiable", severity=Severity.warning, message=message,
                                    subject=fact.id))  # fmt: skip
        else:
            message = f"discoverable fact {fact.id} ({fact.value!r}) is not in {location}"
            findings.append(_error("facts", "absent", message, fact.id))
    return findings


# --- (c) the leak check ----------------------------------------------------------------------


def check_leaks(blueprint: Blueprint, instruction: str, documents: Mapping[str, Extracted]) -> LeakCheck:
    """Author-only values and inferable conclusions must appear nowhere the agent can read."""
    sources = {INSTRUCTION: Haystack.of(instruction.splitlines())}
    sources[FILE_NAMES] = Haystack.of(documents)
    sources |= {path: Haystack.of(doc.segments) for path, doc in documents.items() if doc.readable}
    open_values = [(fact, needle(fact.value)) for fact in _open_facts(blueprint)]
    findings: list[Finding] = []
    checked = leaked = 0
    for fact in _hidden_facts(blueprint):
        target = needle(fact.value)
        if target.kind == ValueKind.unchecked:
            message = f"{fact.level.value} fact {fact.id} ({fact.value!r}) not searched for: {target.why_unchecked}"
            findings.append(Finding(check="leaks", code="unchecked", severity=Severity.info, message=message,
                                    subject=fact.id))  # fmt: skip
            continue
        shared = [other.id for other, value in open_values if same_value(target, value)]
        if shared:
            message = (f"{fact.level.value} fact {fact.id} has the same value as {', '.join(shared)}, which the "
                       "agent may see: not searched for")  # fmt: skip
            findings.append(Finding(check="leaks", code="shared_value", severity=Severity.warning, message=message,
                                    subject=fact.id))  # fmt: skip
            continue
        checked += 1
        where = [name for name, hay in sources.items() if find(target, hay)]
        if where:
            leaked += 1
            message = f"{fact.level.value} fact {fact.id} ({fact.value!r}) appears in {', '.join(where)}"
            findings.append(_error("leaks", "leaked", message, fact.id))
    if checked:
        for path, doc in documents.items():
            if not doc.readable:
                message = f"{path} was not searched for leaks: {doc.note}"
                findings.append(Finding(check="leaks", code="unsearched", severity=Severity.warning, message=message,
                                        subject=path))  # fmt: skip
    return LeakCheck(tuple(findings), checked, leaked)


def _hidden_facts(blueprint: Blueprint) -> list[Fact]:
    return blueprint.facts_at(InformationLevel.AUTHOR_ONLY) + blueprint.facts_at(InformationLevel.INFERABLE)


def _open_facts(blueprint: Blueprint) -> list[Fact]:
    return blueprint.facts_at(InformationLevel.STATED) + blueprint.facts_at(InformationLevel.DISCOVERABLE)


# --- (d) the evaluator's scope and secrecy -----------------------------------------------------


def check_evaluator(blueprint: Blueprint, instruction: str, workspace_paths: Sequence[str]) -> list[Finding]:
    findings: list[Finding] = []
    asked = []
    for deliverable in blueprint.deliverables:
        path = _workspace_relative(deliverable.path)
        if path in instruction or f"{WORKSPACE_PREFIX}{path}" in instruction:
            asked.append(path)
        else:
            message = f"deliverable {path} is not asked for in the instruction"
            findings.append(_error("evaluator", "deliverable_not_asked", message, path))
    readable = [*asked, *workspace_paths]
    for item in blueprint.rubric.items:
        if item.method != Method.deterministic:
            continue
        params = item.check.params if item.check else {}
        for reference in sorted(set(item.target_files) | set(_file_params(params))):
            if not _covered(_workspace_relative(reference), readable):
                message = (f"rubric item {item.id} reads {reference}: neither a deliverable the instruction asks for "
                           "nor a workspace input")  # fmt: skip
                findings.append(_error("evaluator", "unasked_file", message, item.id))
    findings += _instruction_reveals(blueprint, instruction)
    return findings


def _instruction_reveals(blueprint: Blueprint, instruction: str) -> list[Finding]:
    findings = []
    for match in sorted({m.group(0).lower() for m in EVALUATOR_WORDS.finditer(instruction)}):
        message = f"the instruction mentions the evaluator ({match!r})"
        findings.append(_error("evaluator", "reveals_evaluator", message, match))
    for item in blueprint.rubric.items:
        if _distinctive(item.id) and re.search(rf"(?<![\w-]){re.escape(item.id)}(?![\w-])", instruction):
            findings.append(_error("evaluator", "reveals_item_id", f"the instruction names rubric item {item.id}",
                                   item.id))  # fmt: skip
    hay = Haystack.of(instruction.splitlines())
    open_values = [needle(fact.value) for fact in _open_facts(blueprint)]
    for item in blueprint.rubric.items:
        for key, value in _expected_values(item.check.params if item.check else {}):
            target = needle(value)
            if target.kind not in (ValueKind.number, ValueKind.date):
                continue  # expected text (headers, ids) is often what the instruction must state
            if any(same_value(target, other) for other in open_values):
                continue
            if find(target, hay):
                message = f"the instruction states the expected value {value!r} of rubric item {item.id} ({key})"
                findings.append(_error("evaluator", "reveals_expected", message, item.id))
    return findings


def _distinctive(item_id: str) -> bool:
    """Ids like `summary_totals` or `c3` are evaluator vocabulary; a plain word like `summary` is not."""
    return bool(re.search(r"[_.\d-]", item_id)) or len(item_id) >= 12


def _expected_values(params: Mapping[str, Any], prefix: str = "") -> Iterable[tuple[str, object]]:
    """Leaves under every `expected*` (or `values`: {path: expected}) key, at any depth."""
    for key, value in params.items():
        name = f"{prefix}{key}"
        if str(key).startswith("expected") or key == "values":
            yield from _leaves(name, value)
        elif isinstance(value, Mapping):
            yield from _expected_values(value, f"{name}.")


def _leaves(name: str, value: object) -> Iterable[tuple[str, object]]:
    if isinstance(value, Mapping):
        for key, child in value.items():
            yield from _leaves(f"{name}.{key}", child)
    elif isinstance(value, list | tuple):
        for index, child in enumerate(value):
            yield from _leaves(f"{name}[{index}]", child)
    else:
        yield name, value


def _file_params(params: Mapping[str, Any]) -> list[str]:
    found: list[str] = []
    for key, value in params.items():
        if key in FILE_PARAMS:
            values = list(value) if isinstance(value, list | tuple | Mapping) else [value]  # a mapping: path → …
            found += [v for v in values if isinstance(v, str) and v]
    return found


def _covered(reference: str, readable: Sequence[str]) -> bool:
    if reference.endswith("/"):
        return any(path.startswith(reference) for path in readable)
    return any(
        reference == path or fnmatch.fnmatchcase(path, reference) or fnmatch.fnmatchcase(reference, path)
        for path in readable
    )


def _workspace_relative(path: str) -> str:
    path = path.strip()
    if path.startswith(WORKSPACE_PREFIX):
        path = path[len(WORKSPACE_PREFIX) :]
    return path.removeprefix("./")


def _dicts(value: object) -> list[Mapping[str, Any]]:
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _error(check: str, code: str, message: str, subject: str = "") -> Finding:
    return Finding(check=check, code=code, severity=Severity.error, message=message, subject=subject)
