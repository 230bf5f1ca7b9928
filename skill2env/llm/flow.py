"""The conversation logic of a call, once for sync and async: generators that yield requests.

A flow yields a `ChatRequest`, receives the `Reply` (or has the transport's `ModelError` thrown
in), and finally returns its result. The client drives it with blocking or awaited sends, so
truncation, refusals, repair rounds and format downgrades are written once.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from pydantic import BaseModel

from skill2env.llm.errors import (
    ModelOutputInvalid,
    ModelOverBudget,
    ModelRefused,
    ModelRequestRejected,
    ModelStalled,
    ModelTruncated,
)
from skill2env.llm.structured import (
    DOWNGRADES,
    StructuredMode,
    parse_answer,
    repair_messages,
    response_format,
    schema_instruction,
)
from skill2env.llm.tools import Tool, ToolCall, parse_tool_calls, tool_repair_messages
from skill2env.llm.wire import ChatRequest, Reply

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
Flow = Generator[ChatRequest, Reply, T]


@dataclass
class ModeMemory:
    """The structured-output mode that works with this endpoint; `auto` steps it down on rejection."""

    mode: StructuredMode
    auto: bool


@dataclass(frozen=True)
class Limits:
    max_repairs: int
    max_tokens_ceiling: int
    answer_bound: bool = False
    """The ceiling is the most an answer valid under its schema can take (`budget.answer_tokens`):
    an answer cut off there runs past what it may be, and more room would not help."""


@dataclass(frozen=True)
class Structured(Generic[M]):
    value: M
    reply: Reply
    mode: StructuredMode


@dataclass(frozen=True)
class ToolTurn:
    calls: list[ToolCall]
    """Validated calls, in the model's order (several when it called tools in parallel)."""
    reply: Reply
    repaired: int = 0
    """Rounds in which invalid calls were sent back for correction."""


def answer(request: ChatRequest, limits: Limits) -> Flow[Reply]:
    """One answer: a refusal raises; a truncated one is asked again with twice the room, up to the ceiling.

    A retry always changes the request: more room for an answer that was cut off while making
    progress, a higher temperature (once) for one that loops or stalls, since asking the same model
    the same question at the same temperature gets the same loop again."""
    warmed = False
    while True:
        try:
            reply = yield request
        except ModelOverBudget:
            raise
        except ModelStalled:
            if warmed:
                raise
            request, warmed = request.warmer(), True
            continue
        if reply.refusal or reply.finish_reason == "content_filter":
            raise ModelRefused(f"the model refused: {(reply.refusal or reply.finish_reason or '')[:300]}")
        if reply.finish_reason != "length":
            return reply
        looping = repeats_itself(reply.content or "")
        if looping and not warmed:
            request, warmed = request.warmer(), True
            continue
        if request.max_tokens >= limits.max_tokens_ceiling or looping:
            why = ("it repeats itself: the model is looping, and more room would not help" if looping else
                   "the most an answer valid under its schema can take: it runs past what the schema allows, "
                   "and more room would not help" if limits.answer_bound else
                   "the ceiling; raise max_tokens_ceiling if the answer needs more")  # fmt: skip
            raise ModelTruncated(f"the answer was cut off at {request.max_tokens} tokens ({why})",
                                 partial=reply.content or "")  # fmt: skip
        request = request.with_max_tokens(min(limits.max_tokens_ceiling, request.max_tokens * 2))


def repeats_itself(text: str, *, tail: int = 600, least: int = 3) -> bool:
    """Whether the end of `text` is one stretch (20-200 characters) written `least` times in a row."""
    end = text[-tail:]
    for width in range(20, min(200, len(end) // least) + 1):
        piece = end[-width:]
        if end.endswith(piece * least):
            return True
    return False


def structured(
    base: ChatRequest,
    model: type[M],
    memory: ModeMemory,
    limits: Limits,
    *,
    strict: bool,
    check: Callable[[M], list[str]] | None = None,
) -> Flow[Structured[M]]:
    """A validated `model` instance; invalid answers go back with their errors, `max_repairs` times."""
    while True:
        mode = memory.mode
        request = _with_mode(base, mode, model, strict)
        try:
            return (yield from _repairing(request, model, mode, limits, check))
        except ModelRequestRejected:
            if not memory.auto or mode not in DOWNGRADES:
                raise
            memory.mode = DOWNGRADES[mode]


def _repairing(
    request: ChatRequest,
    model: type[M],
    mode: StructuredMode,
    limits: Limits,
    check: Callable[[M], list[str]] | None,
) -> Flow[Structured[M]]:
    errors: list[str] = []
    for _ in range(limits.max_repairs + 1):
        reply = yield from answer(request, limits)
        value, errors = parse_answer(reply.content, model, check)
        if value is not None:
            return Structured(value, reply, mode)
        request = request.extended(repair_messages(reply.content, errors))
    raise ModelOutputInvalid(
        f"no valid {model.__name__} after {limits.max_repairs} repair rounds: {'; '.join(errors)[:500]}",
        errors=errors,
    )


def _with_mode(base: ChatRequest, mode: StructuredMode, model: type[BaseModel], strict: bool) -> ChatRequest:
    request = base.extended([schema_instruction(model)]) if mode != "json_schema" else base
    fmt = response_format(mode, model, strict=strict)
    return replace(request, response_format=fmt)


def tool_turn(base: ChatRequest, tools: Mapping[str, Tool], limits: Limits) -> Flow[ToolTurn]:
    """The model's tool calls, validated; invalid ones go back as tool errors, `max_repairs` times.

    With `tool_choice="required"`, an answer without calls is invalid too; otherwise a text
    answer (no calls) is a valid final turn.
    """
    required = base.tool_choice == "required"
    request = base
    problems: list[str] = []
    for repaired in range(limits.max_repairs + 1):
        reply = yield from answer(request, limits)
        calls, errors = parse_tool_calls(reply.tool_calls, tools)
        if not errors and (calls or not required):
            return ToolTurn(calls, reply, repaired)
        problems = [f"{call_id}: {e}" for call_id, found in errors.items() for e in found] or ["no tool was called"]
        request = request.extended(
            tool_repair_messages(reply.assistant_message(), reply.tool_calls, errors, required=required)
        )
    raise ModelOutputInvalid(
        f"no valid tool calls after {limits.max_repairs} repair rounds: {'; '.join(problems)[:500]}", errors=problems
    )
