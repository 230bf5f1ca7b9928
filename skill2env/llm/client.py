"""`ModelClient`: every model call of a role goes through here, sync or async.

    client = ModelClient.for_role(settings, "curator", ledger=ledger, context=CallContext(...))
    reply = client.complete(prompts.render("some_template", ...))          # text
    verdict = client.structured(prompt, Verdicts).value                    # a validated pydantic model
    turn = client.call_tools(prompt, [Tool.from_model("run", "…", RunArgs)])  # validated tool calls
    # and `acomplete`, `astructured`, `acall_tools` under asyncio, bounded by the role's concurrency

Each call, whatever its outcome, leaves one row in the ledger. Failures raise the typed errors
of `skill2env.llm.errors`.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import BaseModel

from skill2env.llm.budget import answer_tokens
from skill2env.llm.cache import ResponseCache
from skill2env.llm.config import CONFIG_FILE, ENV_PREFIX, LlmSettings, RoleConfig
from skill2env.llm.context import ContextWindow
from skill2env.llm.errors import ModelError, ModelNotConfigured, scrub
from skill2env.llm.flow import Flow, Limits, ModeMemory, Structured, ToolTurn, answer, structured, tool_turn
from skill2env.llm.ledger import CallContext, Ledger
from skill2env.llm.prompts import Prompt
from skill2env.llm.tools import Tool
from skill2env.llm.transport import Tally, Transport
from skill2env.llm.wire import ChatRequest, Reply

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Scope:
    """What a call's options say about the call itself rather than the request it sends."""

    partition: str | None = None
    deadline: float | None = None
    """`time.monotonic()` instant past which the call stops (`ModelOverBudget`)."""


NARRATE_AFTER_SECONDS = 30.0
"""A call that takes this long is said in the run's log when it ends (a failed one always is)."""
NARRATED_ERROR_CHARS = 240

PromptLike = Prompt | Sequence[Mapping[str, Any]] | str


def not_configured_message(role: str) -> str:
    return (
        f"no model configured for role {role!r}: set base_url and model under [default] or [{role}] in "
        f"<home>/{CONFIG_FILE}, or {ENV_PREFIX}BASE_URL and {ENV_PREFIX}MODEL "
        f"(or {ENV_PREFIX}{role.upper()}_BASE_URL / _MODEL), or pass --llm-base-url/--llm-model"
    )


class ModelClient:
    """Calls one role's model; records every call in `ledger` with `context`."""

    def __init__(
        self,
        role: str,
        config: RoleConfig,
        *,
        cache: ResponseCache,
        ledger: Ledger | None = None,
        context: CallContext | None = None,
    ) -> None:
        if not config.configured:
            raise ModelNotConfigured(not_configured_message(role))
        self.role = role
        self.config = config
        self.ledger = ledger if ledger is not None else Ledger()
        self.context = context or CallContext()
        self._transport = Transport(config, cache)
        self._window = ContextWindow(config)
        initial = "json_schema" if config.structured_mode == "auto" else config.structured_mode
        self._memory = ModeMemory(initial, auto=config.structured_mode == "auto")

    @classmethod
    def for_role(
        cls, settings: LlmSettings, role: str, *, ledger: Ledger | None = None, context: CallContext | None = None
    ) -> ModelClient:
        cache = ResponseCache(settings.cache_dir, settings.cache_mode)
        return cls(role, settings.role(role), cache=cache, ledger=ledger, context=context)

    def bound(self, *, asset_key: str | None = None, partition_key: str | None = None,
              run_id: str | None = None) -> ModelClient:  # fmt: skip
        """The same client (connections, cache, ledger, concurrency) recording a different context
        (each given field replaces this client's; the narration stays)."""
        clone = object.__new__(ModelClient)
        clone.__dict__.update(self.__dict__)
        clone.context = replace(
            self.context,
            asset_key=asset_key or self.context.asset_key,
            partition_key=partition_key or self.context.partition_key,
            run_id=run_id or self.context.run_id,
        )
        return clone

    @property
    def model(self) -> str:
        return self.config.model

    @property
    def structured_mode(self) -> str:
        """The structured-output mode in use (after any step-down in `auto`)."""
        return self._memory.mode

    def close(self) -> None:
        """Close the blocking client's connections (async ones: `aclose`, in their event loop)."""
        self._transport.close()

    async def aclose(self) -> None:
        """Close this event loop's connections."""
        await self._transport.aclose()

    # -- calls ------------------------------------------------------------------------------------

    def complete(self, prompt: PromptLike, **options: Any) -> Reply:
        """A plain answer. Options: `max_tokens`, `temperature`, `seed`, `partition_key`, `deadline`
        (a `time.monotonic()` instant: no request starts after it, and an answer still arriving then is
        stopped, as `ModelOverBudget`), and any other chat-completions parameter (`top_p`, `stop`, …)."""
        rendered, request, limits, scope = self._prepare(prompt, options)
        return self._run("complete", rendered, answer(request, limits), scope)

    def structured(
        self, prompt: PromptLike, schema: type[M], *, check: Callable[[M], list[str]] | None = None, **options: Any
    ) -> Structured[M]:
        """A validated `schema` instance. `check` adds semantic errors (sent back for repair like
        schema violations)."""
        bound = answer_tokens(schema.model_json_schema())
        rendered, request, limits, scope = self._prepare(prompt, options, bound=bound)
        flow = structured(request, schema, self._memory, limits, strict=self.config.strict_schema, check=check)
        return self._run("structured", rendered, flow, scope)

    def call_tools(
        self,
        prompt: PromptLike,
        tools: Sequence[Tool],
        *,
        tool_choice: str | Mapping[str, Any] = "auto",
        parallel: bool | None = None,
        **options: Any,
    ) -> ToolTurn:
        """The model's next turn with `tools` available: validated calls (possibly several), or text."""
        rendered, request, limits, scope = self._prepare(prompt, options, tools, tool_choice, parallel)
        return self._run("tools", rendered, tool_turn(request, {t.name: t for t in tools}, limits), scope)

    async def acomplete(self, prompt: PromptLike, **options: Any) -> Reply:
        rendered, request, limits, scope = self._prepare(prompt, options)
        return await self._arun("complete", rendered, answer(request, limits), scope)

    async def astructured(
        self, prompt: PromptLike, schema: type[M], *, check: Callable[[M], list[str]] | None = None, **options: Any
    ) -> Structured[M]:
        bound = answer_tokens(schema.model_json_schema())
        rendered, request, limits, scope = self._prepare(prompt, options, bound=bound)
        flow = structured(request, schema, self._memory, limits, strict=self.config.strict_schema, check=check)
        return await self._arun("structured", rendered, flow, scope)

    async def acall_tools(
        self,
        prompt: PromptLike,
        tools: Sequence[Tool],
        *,
        tool_choice: str | Mapping[str, Any] = "auto",
        parallel: bool | None = None,
        **options: Any,
    ) -> ToolTurn:
        rendered, request, limits, scope = self._prepare(prompt, options, tools, tool_choice, parallel)
        flow = tool_turn(request, {t.name: t for t in tools}, limits)
        return await self._arun("tools", rendered, flow, scope)

    # -- driving flows ----------------------------------------------------------------------------

    def _prepare(
        self,
        prompt: PromptLike,
        options: dict[str, Any],
        tools: Sequence[Tool] = (),
        tool_choice: str | Mapping[str, Any] | None = None,
        parallel: bool | None = None,
        bound: int | None = None,
    ) -> tuple[Prompt, ChatRequest, Limits, Scope]:
        """The request and its limits. `bound`: the most tokens an answer valid under the call's schema
        can take (`budget.answer_tokens`); without an explicit `max_tokens` the call asks for room for
        that much at once (up to the ceiling, never below the configured `max_tokens`), and an answer
        cut off with that room is not given more."""
        options = dict(options)
        rendered = Prompt.of(prompt)
        scope = Scope(options.pop("partition_key", None), options.pop("deadline", None))
        explicit = options.pop("max_tokens", None)
        sized = explicit is None and bound is not None
        max_tokens = explicit or self.config.max_tokens
        if bound is not None and sized:
            max_tokens = max(max_tokens, min(bound, self.config.max_tokens_ceiling))
        specs = [tool.spec() for tool in tools]
        ceiling = self._window.fit(self._transport.connections.sync(), rendered.messages, specs,
                                   max(self.config.max_tokens_ceiling, max_tokens))  # fmt: skip
        max_tokens = min(max_tokens, ceiling)
        runaway = bound is not None and sized and bound <= max_tokens
        if runaway:
            ceiling = max_tokens
        temperature = options.pop("temperature", None)
        seed = options.pop("seed", None)
        request = ChatRequest(
            model=self.config.model,
            messages=rendered.messages,
            max_tokens=max_tokens,
            max_tokens_field=self.config.max_tokens_field,
            temperature=self.config.temperature if temperature is None else temperature,
            seed=self.config.seed if seed is None else seed,
            tools=tuple(specs),
            tool_choice=tool_choice,
            parallel_tool_calls=parallel,
            extra=options,
        )
        limits = Limits(self.config.max_repairs, ceiling, answer_bound=runaway)
        return rendered, request, limits, scope

    def _run(self, operation: str, prompt: Prompt, flow: Flow[T], scope: Scope) -> T:
        tally, started = Tally(deadline=scope.deadline), time.perf_counter()
        tally.started_at = datetime.now(UTC)
        error: BaseException | None = None
        try:
            request = next(flow)
            while True:
                try:
                    reply = self._transport.send(request, tally)
                except ModelError as exc:
                    request = flow.throw(exc)
                else:
                    request = flow.send(reply)
        except StopIteration as stop:
            return stop.value
        except BaseException as exc:
            error = exc
            raise
        finally:
            self._record(operation, prompt, tally, started, error, scope.partition)

    async def _arun(self, operation: str, prompt: Prompt, flow: Flow[T], scope: Scope) -> T:
        tally, started = Tally(deadline=scope.deadline), time.perf_counter()
        tally.started_at = datetime.now(UTC)
        error: BaseException | None = None
        try:
            request = next(flow)
            while True:
                try:
                    reply = await self._transport.asend(request, tally)
                except ModelError as exc:
                    request = flow.throw(exc)
                else:
                    request = flow.send(reply)
        except StopIteration as stop:
            return stop.value
        except BaseException as exc:
            error = exc
            raise
        finally:
            self._record(operation, prompt, tally, started, error, scope.partition)

    def _record(
        self, operation: str, prompt: Prompt, tally: Tally, started: float, error: BaseException | None,
        partition: str | None,
    ) -> None:  # fmt: skip
        if isinstance(error, ModelError):
            error.attempts = tally.attempts
        kind = None if error is None else error.kind if isinstance(error, ModelError) else "internal"
        self.ledger.record(
            {
                "call_id": uuid.uuid4().hex,
                "called_at": tally.started_at or datetime.now(UTC),
                "role": self.role,
                "model": self.config.model,
                "endpoint_host": self.config.endpoint_host,
                "operation": operation,
                "prompt_hash": prompt.prompt_hash,
                "request_key": tally.first_key,
                "template_id": prompt.template_id,
                "template_version": prompt.template_version,
                "input_tokens": tally.input_tokens,
                "output_tokens": tally.output_tokens,
                "cached_input_tokens": tally.cached_input_tokens,
                "cached_output_tokens": tally.cached_output_tokens,
                "cost_usd": self.config.cost(tally.input_tokens, tally.output_tokens),
                "latency_ms": (time.perf_counter() - started) * 1000,
                "cache_hit": tally.cache_hit,
                "attempts": tally.attempts,
                "endpoint_requests": tally.endpoint_requests,
                "finish_reason": tally.finish_reason,
                "status": "ok" if error is None else "error",
                "error_class": None if error is None else type(error).__name__,
                "error_kind": kind,
                "error_message": None if error is None else scrub(str(error), self.config.api_key())[:500],
                "asset_key": self.context.asset_key,
                "partition_key": partition or self.context.partition_key,
                "run_id": self.context.run_id,
            },
            tally.rounds,
        )
        self._narrate(operation, prompt, tally, time.perf_counter() - started, error)

    def _narrate(
        self, operation: str, prompt: Prompt, tally: Tally, seconds: float, error: BaseException | None
    ) -> None:
        """Say a call that was slow or failed in the run's log: with a slow model the log would
        otherwise stay silent for minutes, and a failure would show only in the ledger."""
        say = self.context.narrate
        if say is None or (error is None and seconds < NARRATE_AFTER_SECONDS):
            return
        what = f"model call {self.role}/{prompt.template_id or operation}"
        took = (f"{seconds:.1f} s, {tally.input_tokens:,} tokens in, {tally.output_tokens:,} out, "
                f"{tally.endpoint_requests} request{'s' if tally.endpoint_requests != 1 else ''}")  # fmt: skip
        if error is None:
            line = f"{what}: answered in {took}"
        else:
            message = scrub(str(error), self.config.api_key())[:NARRATED_ERROR_CHARS]
            line = f"{what}: failed after {took}: {type(error).__name__}: {message}"
        try:
            say(line)
        except Exception:  # the log is a courtesy; the call's result and ledger row stand
            logger.debug("model call not narrated", exc_info=True)
