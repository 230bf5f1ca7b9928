"""What scoring a rubric produces: one result per item, the reward, and the verification around it.

Statuses: `passed` / `failed` are scored (q ∈ {0, 1} for deterministic items, q ∈ [0, 1] for
judge items). A deterministic check is always one of the two: a check that raises, times out or
meets input of the wrong shape is `failed`, its cause kept as `error`. `error` as a status means
the judge could not judge the item (it failed or answered garbage); `unscored` means nobody was
asked (no judge endpoint). Neither ever helps the attempt: both count q = 0 in the reward and make
the attempt **incomplete** — never full credit, never passed, never in the SFT set.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from skill2env.rubric.checks import weighted_reward
from skill2env.rubric.models import Method, Rubric, RubricItem
from skill2env.thresholds import FULL_CREDIT_AT, JUDGE_PASS_Q

RESULT_SCHEMA_VERSION = 1


class ItemStatus(StrEnum):
    passed = "passed"
    failed = "failed"
    error = "error"
    unscored = "unscored"

    @property
    def scored(self) -> bool:
        return self in (ItemStatus.passed, ItemStatus.failed)


class Flag(StrEnum):
    """Why an attempt is incomplete."""

    unscored = "unscored"
    """Some judge items were not scored (no judge endpoint)."""
    item_errors = "item_errors"
    """Some items could not be judged (a failing judge)."""
    incomplete = "incomplete"
    """Not every item was scored (`scored_weight` < the rubric's weight): the reward counts those
    items 0 and the attempt is never full credit."""


class ItemResult(BaseModel):
    """One rubric item's outcome and the evidence behind it."""

    model_config = ConfigDict(extra="forbid")

    item_id: str
    method: Method
    weight: float = Field(gt=0, le=1)
    status: ItemStatus
    q: float | None = None
    """The item's quality: set exactly when the item was scored."""
    evidence: dict[str, Any] = Field(default_factory=dict)
    """For a check: what was compared and a bounded diff; for a judge: the quotes it gave from the
    files it read, its reasoning, every repeat's score and their variance."""
    error: str | None = None
    duration_s: float = 0.0

    @model_validator(mode="after")
    def _q_matches_status(self) -> ItemResult:
        if self.status.scored:
            if self.q is None or not math.isfinite(self.q) or not 0.0 <= self.q <= 1.0:
                raise ValueError(f"item {self.item_id}: a scored item has q in [0, 1], not {self.q}")
        elif self.q is not None:
            raise ValueError(f"item {self.item_id}: an {self.status} item has no q")
        return self

    @classmethod
    def unscored(cls, item: RubricItem, reason: str, evidence: Mapping[str, Any] | None = None) -> ItemResult:
        return cls(
            item_id=item.id,
            method=item.method,
            weight=item.weight,
            status=ItemStatus.unscored,
            evidence={"reason": reason, **(evidence or {})},
        )

    @classmethod
    def errored(cls, item: RubricItem, error: str, evidence: Mapping[str, Any] | None = None) -> ItemResult:
        """An item the judge could not judge: no q, the attempt incomplete."""
        return cls._with_cause(item, ItemStatus.error, None, error, evidence)

    @classmethod
    def failed(cls, item: RubricItem, error: str, evidence: Mapping[str, Any] | None = None) -> ItemResult:
        """A failed item with q = 0 whose cause is `error` (it could not be compared)."""
        return cls._with_cause(item, ItemStatus.failed, 0.0, error, evidence)

    @classmethod
    def _with_cause(cls, item: RubricItem, status: ItemStatus, q: float | None, error: str,
                    evidence: Mapping[str, Any] | None) -> ItemResult:  # fmt: skip
        return cls(item_id=item.id, method=item.method, weight=item.weight, status=status, q=q, error=error,
                   evidence=dict(evidence or {}))  # fmt: skip

    @classmethod
    def scored(cls, item: RubricItem, q: float, **fields: Any) -> ItemResult:
        if item.method == Method.deterministic:
            status = ItemStatus.passed if q >= 1.0 else ItemStatus.failed
        else:
            status = ItemStatus.passed if q >= JUDGE_PASS_Q else ItemStatus.failed
        return cls(item_id=item.id, method=item.method, weight=item.weight, status=status, q=q, **fields)


class Score(BaseModel):
    """r = Σ w·q over every item (unscored ones count 0) — flagged when incomplete."""

    model_config = ConfigDict(extra="forbid")

    reward: float | None
    """Σ w·q / Σ w over every item, an item without q counting 0; None only for an empty rubric."""
    raw_reward: float
    """Σ w·q over the scored items."""
    scored_weight: float
    complete: bool
    flags: list[Flag] = Field(default_factory=list)
    counts: dict[str, int] = Field(default_factory=dict)


def score(rubric: Rubric, item_results: Iterable[ItemResult]) -> Score:
    """Score `rubric` from its items' results (weights from the rubric; an item without a result
    counts as `error`).

    Raises: ValueError: a result for an item the rubric does not have, or two for one item.
    """
    by_id: dict[str, ItemResult] = {}
    for result in item_results:
        if result.item_id in by_id:
            raise ValueError(f"two results for rubric item {result.item_id}")
        by_id[result.item_id] = result
    unknown = sorted(set(by_id) - {item.id for item in rubric.items})
    if unknown:
        raise ValueError(f"results for items the rubric does not have: {unknown}")
    entries = []
    for item in rubric.items:
        found = by_id.get(item.id)
        status = found.status.value if found is not None else ItemStatus.error.value
        entries.append((item.weight, status, found.q if found is not None else None))
    totals = weighted_reward(entries)
    counts = totals["counts"]
    flags = []
    if counts.get(ItemStatus.unscored.value):
        flags.append(Flag.unscored)
    if counts.get(ItemStatus.error.value):
        flags.append(Flag.item_errors)
    if not totals["complete"]:
        flags.append(Flag.incomplete)
    return Score(
        reward=totals["reward"],
        raw_reward=totals["raw_reward"],
        scored_weight=totals["scored_weight"],
        complete=totals["complete"],
        flags=flags,
        counts=counts,
    )


class VerificationResult(BaseModel):
    """One rollout's verification: every item's result and the reward, or an infrastructure error
    (never a reward of 0 for what the infrastructure failed to judge)."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = RESULT_SCHEMA_VERSION
    status: Literal["scored", "infra_error"]
    reward: float | None = None
    raw_reward: float | None = None
    scored_weight: float = 0.0
    complete: bool = False
    flags: list[Flag] = Field(default_factory=list)
    passed: bool | None = None
    """reward ≥ the rubric's pass threshold; None unless the attempt is complete."""
    items: list[ItemResult] = Field(default_factory=list)
    error: str | None = None
    """What failed, for `infra_error`."""
    backend: str | None = None
    sandbox_mode: str | None = None
    """How the verifying sandbox ran (`Sandbox.mode`, e.g. `docker:exec-fallback`); None before it started."""
    rollout_id: str | None = None
    mode: Literal["checks", "task_script"] = "checks"
    """`checks`: the rubric's checks ran in the environment; `task_script`: the task's own
    verification script scored the deterministic items (Skill2Env authors' tasks)."""
    isolation: Literal["fresh", "in_place"] = "in_place"
    """`fresh`: verified in a new sandbox holding a copy of the final workspace; `in_place`: in the
    sandbox the agent used (after it finished)."""
    verifier_log: str = ""
    """The tail of the in-environment verifier's output."""
    started_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    duration_s: float = 0.0

    @classmethod
    def infra_error(cls, error: str, **fields: Any) -> VerificationResult:
        return cls(status="infra_error", error=error, **fields)

    @classmethod
    def scored_from(cls, rubric: Rubric, items: list[ItemResult], **fields: Any) -> VerificationResult:
        totals = score(rubric, items)
        passed = totals.reward >= rubric.pass_threshold if totals.complete and totals.reward is not None else None
        return cls(
            status="scored",
            reward=totals.reward,
            raw_reward=totals.raw_reward,
            scored_weight=totals.scored_weight,
            complete=totals.complete,
            flags=totals.flags,
            passed=passed,
            items=items,
            **fields,
        )

    @property
    def full_credit(self) -> bool:
        """Complete and at least `FULL_CREDIT_AT`: the only attempts that count as solved."""
        return self.status == "scored" and self.complete and self.reward is not None and self.reward >= FULL_CREDIT_AT

    def item(self, item_id: str) -> ItemResult:
        for result in self.items:
            if result.item_id == item_id:
                return result
        raise KeyError(item_id)

    def reward_json(self) -> dict[str, float]:
        """Harbor's reward.json: `reward` alone (Harbor averages every key as a dimension over trials);
        the per-item results go beside it. Empty when the attempt was not scored."""
        return {"reward": self.reward} if self.reward is not None else {}
