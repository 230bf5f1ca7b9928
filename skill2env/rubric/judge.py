"""The judge role: scores an `llm_judge` item in [0, 1] from the files it names, with quoted evidence.

A `Judge` is anything with `judge(request, seed=…) -> JudgeVerdict`; `ModelJudge` is the one
backed by the model client (temperature 0 and a seed). `judge_item` asks it k times (seeds
seed, seed+1, …), records every score and their variance, checks each quote against the files
the judge read, and turns a judge that raises or answers garbage into an `error` item — never 0.
"""

from __future__ import annotations

import hashlib
import math
import statistics
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from skill2env.rubric.judge_prompt import (
    JUDGE_SEED,
    JUDGE_SYSTEM,
    MAX_QUOTE_CHARS,
    MAX_REASONING_CHARS,
    JudgeReplyError,
    check_answer,
)
from skill2env.rubric.judge_prompt import judge_messages as shared_messages
from skill2env.rubric.judge_prompt import quote_found as shared_quote_found
from skill2env.rubric.models import RubricItem
from skill2env.rubric.results import ItemResult

if TYPE_CHECKING:
    from skill2env.llm.client import ModelClient
    from skill2env.llm.config import LlmSettings
    from skill2env.llm.session import LlmSession

DEFAULT_SEED = JUDGE_SEED


class Quote(BaseModel):
    path: str
    """The file the quote is from, as the request named it."""
    quote: str
    """Text copied verbatim from that file."""


class JudgeFile(BaseModel):
    """One target file as the verifier read it (size-capped; the cut is marked in `text`)."""

    path: str
    text: str = ""
    bytes: int = 0
    truncated: bool = False
    binary: bool = False
    omitted: bool = False
    """Not shown: the item's character budget was spent on earlier files."""
    unreadable: str | None = None
    """Why the verifier could not read it (e.g. permissions the agent set)."""


class JudgeRequest(BaseModel):
    item_id: str
    description: str
    instruction: str
    files: list[JudgeFile] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    """Target paths or globs that matched nothing in the workspace."""
    listing: list[str] = Field(default_factory=list)
    """The workspace's files with sizes (capped), for context."""

    @classmethod
    def build(cls, item: RubricItem, inputs: Mapping[str, Any]) -> JudgeRequest:
        """From a rubric item and the verifier's `judge_inputs` for it."""
        return cls(
            item_id=item.id,
            description=item.description,
            instruction=item.judge_instruction or "",
            files=[JudgeFile.model_validate(f) for f in inputs.get("files", [])],
            missing=list(inputs.get("missing", [])),
            listing=list(inputs.get("listing", [])),
        )


class JudgeVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    score: float
    quotes: list[Quote] = Field(default_factory=list)
    reasoning: str = ""

    @field_validator("score", mode="before")
    @classmethod
    def _a_number(cls, value: object) -> object:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"the score must be a number, not {type(value).__name__}")
        return value


@runtime_checkable
class Judge(Protocol):
    """Scores one judge item; raises (any exception) when it cannot."""

    name: str

    def judge(self, request: JudgeRequest, *, seed: int) -> JudgeVerdict: ...


class JudgeGarbage(ValueError):
    """The judge answered, but not with a usable verdict."""


def _as_verdict(answer: object) -> JudgeVerdict:
    if isinstance(answer, JudgeVerdict):
        verdict = answer
    else:
        try:
            verdict = JudgeVerdict.model_validate(answer)
        except ValidationError as exc:
            raise JudgeGarbage(f"not a verdict: {exc.errors()[0]['msg']}") from exc
    if isinstance(verdict.score, bool) or not math.isfinite(verdict.score) or not 0.0 <= verdict.score <= 1.0:
        raise JudgeGarbage(f"score {verdict.score!r} is not a number in [0, 1]")
    return verdict


def quote_found(quote: Quote, request: JudgeRequest) -> bool:
    """Whether the quote occurs (whitespace and case aside) in the file it names, or in any file
    the judge read when the name matches none (`judge_prompt.quote_found`, as the verifier checks)."""
    return shared_quote_found(quote.path, quote.quote, [{"path": f.path, "text": f.text} for f in request.files])


def judge_item(
    judge: Judge, item: RubricItem, inputs: Mapping[str, Any], *, repeats: int = 1, seed: int = DEFAULT_SEED
) -> ItemResult:
    """Score one judge item with `repeats` independent asks (seeds seed…seed+k-1); q is their mean."""
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    request = JudgeRequest.build(item, inputs)
    started = time.perf_counter()
    verdicts: list[JudgeVerdict] = []
    read = [{"path": f.path, "bytes": f.bytes, "truncated": f.truncated, "binary": f.binary} for f in request.files]
    base: dict[str, Any] = {"judge": getattr(judge, "name", type(judge).__name__), "files_read": read}
    if request.missing:
        base["missing"] = request.missing
    for attempt in range(repeats):
        try:
            verdicts.append(_as_verdict(judge.judge(request, seed=seed + attempt)))
        except JudgeGarbage as exc:
            return _failed(item, f"the judge returned garbage: {exc}", base, verdicts, started)
        except Exception as exc:  # any failure of the judge is an error of the item, never a 0
            return _failed(item, f"the judge failed: {type(exc).__name__}: {exc}", base, verdicts, started)
    scores = [v.score for v in verdicts]
    quotes = [
        {"path": q.path, "quote": q.quote[:MAX_QUOTE_CHARS], "found": quote_found(q, request)}
        for v in verdicts
        for q in v.quotes
    ]
    evidence = {
        **base,
        "scores": scores,
        "variance": statistics.pvariance(scores) if len(scores) > 1 else 0.0,
        "seeds": [seed + i for i in range(repeats)],
        "quotes": quotes,
        "quotes_found": sum(1 for q in quotes if q["found"]),
        "reasoning": [v.reasoning[:MAX_REASONING_CHARS] for v in verdicts],
    }
    return ItemResult.scored(
        item, statistics.fmean(scores), evidence=evidence, duration_s=time.perf_counter() - started
    )


def _failed(
    item: RubricItem, error: str, base: dict[str, Any], verdicts: list[JudgeVerdict], started: float
) -> ItemResult:
    result = ItemResult.errored(item, error, {**base, "scores_before_failure": [v.score for v in verdicts]})
    result.duration_s = time.perf_counter() - started
    return result


# -- the model-backed judge ---------------------------------------------------------------------------


class JudgeAnswer(BaseModel):
    """The judge model's structured answer (its schema is the response format asked for). What
    counts as an answer is `judge_prompt.check_answer`'s decision, the same as the verifier's."""

    model_config = ConfigDict(extra="forbid")

    score: float
    reasoning: str
    evidence: list[Quote]

    @model_validator(mode="before")
    @classmethod
    def _a_verdict(cls, value: object) -> object:
        if isinstance(value, JudgeAnswer):
            return value
        try:
            return check_answer(value)
        except JudgeReplyError as exc:  # a ValueError: sent back to the model for repair
            raise ValueError(str(exc)) from None


def judge_messages(request: JudgeRequest) -> list[dict[str, str]]:
    """The judge's prompt (`judge_prompt.judge_messages`, which the verifier uses too)."""
    return shared_messages(request.model_dump())


JUDGE_TEMPLATE_ID = "rubric_judge"
JUDGE_TEMPLATE_VERSION = hashlib.sha256(JUDGE_SYSTEM.encode()).hexdigest()[:16]


class ModelJudge:
    """The judge role through the model client: structured output, temperature 0, a seed per ask."""

    def __init__(self, client: ModelClient, *, temperature: float = 0.0) -> None:
        self.client = client
        self.temperature = temperature
        self.name = f"model:{client.model}"

    def judge(self, request: JudgeRequest, *, seed: int) -> JudgeVerdict:
        from skill2env.llm.prompts import Prompt

        prompt = Prompt(tuple(judge_messages(request)), JUDGE_TEMPLATE_ID, JUDGE_TEMPLATE_VERSION)
        answer = self.client.structured(prompt, JudgeAnswer, temperature=self.temperature, seed=seed).value
        return JudgeVerdict(score=answer.score, quotes=answer.evidence, reasoning=answer.reasoning)


def configured_judge(settings: LlmSettings, **client_options: Any) -> ModelJudge | None:
    """The model-backed judge of the `judge` role, or None when no endpoint is configured for it
    (judge items are then left unscored)."""
    from skill2env.llm.client import ModelClient
    from skill2env.llm.errors import ModelNotConfigured

    try:
        client = ModelClient.for_role(settings, "judge", **client_options)
    except ModelNotConfigured:
        return None
    return ModelJudge(client)


class FunctionJudge:
    """A judge from a plain function (tests, offline heuristics)."""

    def __init__(self, function: Callable[[JudgeRequest, int], Any], name: str = "function") -> None:
        self.function = function
        self.name = name

    def judge(self, request: JudgeRequest, *, seed: int) -> JudgeVerdict:
        return self.function(request, seed)


def session_judge(models: LlmSession) -> Judge | None:
    """The judge role's model, recorded in this session's ledger; None when no judge is configured."""
    return ModelJudge(models.client("judge")) if models.configured("judge") else None
