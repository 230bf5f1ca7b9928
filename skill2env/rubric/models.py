"""The rubric: weighted items (Σ w = 1), each deterministic (a named check) or judged by a model."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from skill2env.rubric.checks import safe_regex, spec_problems
from skill2env.rubric.checks.text import FLAGS as TEXT_FLAGS
from skill2env.thresholds import PASS_THRESHOLD

RUBRIC_SCHEMA_VERSION = 1
WEIGHT_TOLERANCE = 1e-6
RESERVED_ITEM_IDS = frozenset({"reward", "scored_weight"})
"""Keys of Harbor's reward.json besides the items' own."""
TASK_SCRIPT_CHECK = "task_script"
"""The check of a deterministic item scored by the task's own verification script (the Skill2Env
authors' `tests/verify.py`), not by the check library."""


MAX_ITEMS = 200
MAX_TARGET_FILES = 100
"""Bounds a rubric written by a model answers to (in its schema; far above any task's needs)."""


class Method(StrEnum):
    deterministic = "deterministic"
    llm_judge = "llm_judge"


class CheckSpec(BaseModel):
    """A deterministic check by registered name, with its parameters (expected values included:
    they come from the blueprint's author-only facts and travel only with the verifier)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    check: str = Field(min_length=1)
    params: dict[str, Any] = Field(default_factory=dict)
    timeout_s: float | None = Field(default=None, gt=0)
    """The check's time limit inside the verifier (default: the verifier's, 60 s); past it the item fails."""


class RubricItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=80)
    description: str = Field(min_length=1)
    weight: float = Field(gt=0, le=1)
    method: Method
    target_files: list[str] = Field(default_factory=list, max_length=MAX_TARGET_FILES)
    """Workspace paths or globs (relative to the workspace) the item reads."""
    check: CheckSpec | None = None
    judge_instruction: str | None = None

    @model_validator(mode="after")
    def _method_has_its_spec(self) -> RubricItem:
        if self.id in RESERVED_ITEM_IDS:
            raise ValueError(f"rubric item id {self.id!r} is reserved for reward.json's own keys")
        if self.method == Method.deterministic and self.check is None:
            raise ValueError(f"rubric item {self.id}: a deterministic item needs a check")
        if self.method == Method.llm_judge and not self.judge_instruction:
            raise ValueError(f"rubric item {self.id}: an llm_judge item needs a judge_instruction")
        return self


class Rubric(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int = RUBRIC_SCHEMA_VERSION
    items: list[RubricItem] = Field(min_length=1, max_length=MAX_ITEMS)
    pass_threshold: float = Field(default=PASS_THRESHOLD, ge=0, le=1)
    summary: str = ""

    @model_validator(mode="after")
    def _weights_and_ids(self) -> Rubric:
        ids = [item.id for item in self.items]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"rubric item ids repeat: {repeated}")
        total = math.fsum(item.weight for item in self.items)
        if abs(total - 1.0) > WEIGHT_TOLERANCE:
            raise ValueError(f"rubric weights sum to {total:.6f}, not 1")
        return self

    def item(self, item_id: str) -> RubricItem:
        for item in self.items:
            if item.id == item_id:
                return item
        raise KeyError(item_id)


def check_problems(rubric: Rubric) -> list[str]:
    """Deterministic items whose check is not registered, whose params it does not take, or whose
    regular expression the checks' linear-time engine refuses."""
    problems = []
    for item in rubric.items:
        if item.check is not None and item.check.check != TASK_SCRIPT_CHECK:
            found = spec_problems(item.check.check, item.check.params)
            found += _pattern_problems(item.check.check, item.check.params)
            problems += [f"{item.id}: {problem}" for problem in found]
    return problems


def _pattern_problems(check: str, params: Mapping[str, Any]) -> list[str]:
    """The regular expressions among a check's params that do not compile or that the engine refuses."""
    patterns: list[tuple[Any, int]] = []
    if check == "text_matches":
        names = params.get("flags") or []
        if isinstance(names, str):
            names = [names]
        flags = 0
        for name in names if isinstance(names, list) else []:
            flags |= TEXT_FLAGS.get(str(name).upper(), 0)
        patterns.append((params.get("pattern"), flags))
    elif check == "cross_file_consistent" and isinstance(params.get("sources"), list):
        patterns += [(s.get("regex"), re.MULTILINE) for s in params["sources"] if isinstance(s, Mapping)]
    return [p for pattern, flags in patterns if isinstance(pattern, str) and (p := safe_regex.problem(pattern, flags))]
