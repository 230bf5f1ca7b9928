"""A model-backed `Curator`: asks the curator role's model to decide what the rules left undecided.

One structured-output call per skill (template `curator_settle`), whose schema has exactly one
decision per undecided criterion: `pass` / `fail`, a `family:detail` reason code and a one-line
explanation. A `fail` keeps the model's code as the verdict's reason; either way the code and the
explanation go into the evidence, and `decided_by` names the model.

It never raises (the `Curator` contract). When the model cannot be used the rules' verdict
stands, marked with why: `curator:unavailable` (the endpoint is down or overloaded: after
`BREAKER_AFTER` such skills in a row it stops asking for the rest of the run),
`curator:invalid-answer`, `curator:refused` or `curator:truncated`.
"""

from __future__ import annotations

import logging
from collections import Counter
from functools import cache
from typing import Literal

from pydantic import BaseModel, Field, create_model

from skill2env.catalog.models import SkillRecord
from skill2env.curation.models import Outcome, Verdict
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

logger = logging.getLogger(__name__)

ROLE = "curator"
TEMPLATE = "curator_settle"
MAX_SKILL_MD_CHARS = 12_000
"""SKILL.md text beyond this is cut from the prompt (the rules saw all of it)."""
BREAKER_AFTER = 3
"""Consecutive skills with the endpoint unavailable before the curator stops asking."""
_FALLBACK_REASONS: tuple[tuple[type[ModelError], str], ...] = (
    (ModelUnavailable, "curator:unavailable"),
    (ModelOutputInvalid, "curator:invalid-answer"),
    (ModelRefused, "curator:refused"),
    (ModelTruncated, "curator:truncated"),
)


class Decision(BaseModel):
    """The model's decision on one criterion."""

    outcome: Literal["pass", "fail"]
    reason: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*:[a-z0-9][a-z0-9._:/-]*$", max_length=80)
    """A `family:detail` code, e.g. `workflow:clear`, `workflow:essay`."""
    explanation: str = Field(max_length=400)


@cache
def decisions_model(criteria: tuple[str, ...]) -> type[BaseModel]:
    """A schema with one required `Decision` per criterion asked about, and nothing else."""
    fields: dict[str, object] = {criterion: (Decision, ...) for criterion in criteria}
    return create_model("CuratorDecisions", **fields)  # type: ignore[call-overload]


class ModelCurator:
    """Settles undecided verdicts with the curator role's model (see the module docstring)."""

    def __init__(self, client: ModelClient) -> None:
        self.client = client
        self.name = client.model
        self.outcomes: Counter[str] = Counter()
        """How skills went: `settled`, or the fallback reason code."""
        self._unavailable_in_a_row = 0

    def settle(self, record: SkillRecord, undecided: list[Verdict]) -> list[Verdict]:
        if self._unavailable_in_a_row >= BREAKER_AFTER:
            detail = f"not asked: the endpoint was unavailable for {BREAKER_AFTER} skills in a row"
            return self._fallback(undecided, "curator:unavailable", detail)
        criteria = tuple(verdict.criterion.value for verdict in undecided)
        try:
            answer = self.client.structured(self._prompt(record, undecided), decisions_model(criteria),
                                            partition_key=record.domain).value  # fmt: skip
        except ModelError as exc:
            code = next((code for kind, code in _FALLBACK_REASONS if isinstance(exc, kind)), "curator:unavailable")
            self._unavailable_in_a_row = self._unavailable_in_a_row + 1 if isinstance(exc, ModelUnavailable) else 0
            logger.warning("curator %s could not settle %s: %s: %s", self.name, record.path, type(exc).__name__, exc)
            return self._fallback(undecided, code, f"{type(exc).__name__}: {exc}")
        self._unavailable_in_a_row = 0
        self.outcomes["settled"] += 1
        return [self._verdict(verdict, getattr(answer, verdict.criterion.value)) for verdict in undecided]

    def _prompt(self, record: SkillRecord, undecided: list[Verdict]) -> Prompt:
        text = record.skill_md_text
        return render(
            TEMPLATE,
            name=record.name or record.path,
            description=record.description or "",
            skill_md=text[:MAX_SKILL_MD_CHARS],
            truncated=len(text) > MAX_SKILL_MD_CHARS,
            undecided=[
                {"criterion": v.criterion.value, "reasons": v.reasons, "evidence": v.evidence[:5]} for v in undecided
            ],
        )

    def _verdict(self, asked: Verdict, decision: Decision) -> Verdict:
        outcome = Outcome.pass_ if decision.outcome == "pass" else Outcome.fail
        return Verdict(
            criterion=asked.criterion,
            outcome=outcome,
            reasons=[] if outcome == Outcome.pass_ else [decision.reason],
            evidence=[*asked.evidence, f"curator {self.name}: {decision.reason}: {decision.explanation}"],
            decided_by=f"curator:{self.name}",
        )

    def _fallback(self, undecided: list[Verdict], code: str, detail: str) -> list[Verdict]:
        self.outcomes[code] += 1
        note = f"curator: {detail[:200]}"
        return [
            verdict.model_copy(
                update={"reasons": [*verdict.reasons, code], "evidence": [*verdict.evidence, note]}, deep=True
            )
            for verdict in undecided
        ]


def model_curator(session: LlmSession) -> ModelCurator | None:
    """The model curator when the curator role is configured; None (rules only) otherwise."""
    return ModelCurator(session.client(ROLE)) if session.configured(ROLE) else None
