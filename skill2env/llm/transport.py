"""One request to one endpoint: the cache first, then the openai client with our own retries.

Requests go through the openai client's own `post` (its authentication, headers and typed
HTTP errors) with the chat-completions body as built, and come back as the raw response:
`chat.completions.create` would re-walk the messages to transform them and parse the answer
into models we do not use, ~0.5 ms per call.

The client runs with `max_retries=0`: retries are ours, so every failure is typed and counted.
429, 408, 409, 5xx, connection errors and timeouts are retried with exponential backoff and full
jitter (a `Retry-After` header wins, capped), up to `max_attempts`; then `ModelUnavailable`.
400 / 413 / 422 are `ModelRequestRejected` (and cached: the same request would be rejected
again); 401 / 403 / 404 are `ModelUnavailable` at once.

Concurrency is bounded per role (see `skill2env.llm.connections`); cache hits take no slot.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from skill2env.llm.cache import CacheEntry, CacheMode, ResponseCache
from skill2env.llm.config import RoleConfig
from skill2env.llm.connections import Connections, http_library
from skill2env.llm.errors import (
    ModelCacheMiss,
    ModelError,
    ModelOverBudget,
    ModelRequestRejected,
    ModelStalled,
    ModelUnavailable,
    scrub,
)
from skill2env.llm.streaming import StreamedAnswer, streamed_body
from skill2env.llm.wire import ChatRequest, Reply, ReplyDecodeError

if TYPE_CHECKING:
    import openai

RETRY_STATUS = frozenset({408, 409, 429}) | frozenset(range(500, 600))
REJECT_STATUS = frozenset({400, 413, 422})
COMPLETIONS_PATH = "/chat/completions"
ROUND_CONTENT_CHARS = 20_000


@dataclass
class Tally:
    """What one logical call cost, over all its requests (retries and repair rounds included)."""

    attempts: int = 0
    """Requests made: each HTTP try and each answer served from the cache."""
    endpoint_requests: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    """Spent at the endpoint (cache hits spend none)."""
    output_tokens: int = 0
    cached_input_tokens: int = 0
    """Tokens of the answers served from the cache: what re-running saved."""
    cached_output_tokens: int = 0
    finish_reason: str | None = None
    first_key: str | None = None
    started_at: datetime | None = None
    deadline: float | None = None
    """`time.monotonic()` instant past which no request starts and no answer keeps streaming."""
    rounds: list[dict[str, Any]] = field(default_factory=list)
    """One `llm_call_rounds` row per request (without `call_id`), raw answers included."""

    def add_round(self, request: ChatRequest, key: str, source: str, reply: Reply | None = None,
                  error: BaseException | None = None) -> None:  # fmt: skip
        content = reply.content if reply is not None else getattr(error, "partial", None)
        self.rounds.append(
            {
                "round": len(self.rounds) + 1,
                "request_key": key,
                "source": source,
                "max_tokens": request.max_tokens,
                "temperature": request.temperature,
                "finish_reason": reply.finish_reason if reply is not None else None,
                "input_tokens": reply.input_tokens if reply is not None else 0,
                "output_tokens": reply.output_tokens if reply is not None else getattr(error, "output_tokens", 0),
                "content": content[:ROUND_CONTENT_CHARS] if content is not None else None,
                "content_chars": len(content or ""),
                "tool_calls": json.dumps(list(reply.tool_calls)) if reply is not None and reply.tool_calls else None,
                "error_class": type(error).__name__ if error is not None else None,
                "error_message": str(error)[:500] if error is not None else None,
            }
        )

    @property
    def cache_hit(self) -> bool:
        """Every answer came from the cache."""
        return self.cache_hits > 0 and self.endpoint_requests == 0


class Transport:
    """Sends `ChatRequest`s for one role: cache, bounded concurrency, retries, typed failures."""

    def __init__(self, config: RoleConfig, cache: ResponseCache, *, rng: random.Random | None = None) -> None:
        self.config = config
        self.cache = cache
        self._rng = rng or random.Random()  # noqa: S311 - jitter, not cryptography
        self._slots = threading.BoundedSemaphore(config.max_concurrency)
        self.connections = Connections(config)

    # -- the two send loops (same steps; one blocks, one awaits) --------------------------------

    def send(self, request: ChatRequest, tally: Tally) -> Reply:
        key = request.key()
        cached = self._lookup(request, key, tally)
        if cached is not None:
            return cached
        client = self.connections.sync()
        body = request.body()
        for attempt in range(1, self.config.max_attempts + 1):
            _check_deadline(tally)
            tally.attempts += 1
            tally.endpoint_requests += 1
            try:
                with self._slots:
                    raw = self._post(client, body, tally)
                return self._store(request, key, raw, tally)
            except Exception as exc:
                delay = self._failure(request, key, exc, attempt, tally)
            time.sleep(delay)
        raise AssertionError("unreachable: the last attempt raises")  # pragma: no cover

    async def asend(self, request: ChatRequest, tally: Tally) -> Reply:
        key = request.key()
        cached = self._lookup(request, key, tally)
        if cached is not None:
            return cached
        pools = self.connections.async_pools()
        body = request.body()
        for attempt in range(1, self.config.max_attempts + 1):
            _check_deadline(tally)
            tally.attempts += 1
            tally.endpoint_requests += 1
            try:
                async with pools.client() as client:
                    raw = await self._apost(client, body, tally)
                return self._store(request, key, raw, tally)
            except Exception as exc:
                delay = self._failure(request, key, exc, attempt, tally)
            await asyncio.sleep(delay)
        raise AssertionError("unreachable: the last attempt raises")  # pragma: no cover

    # -- one HTTP request, whole or streamed -----------------------------------------------------

    def _post(self, client: openai.OpenAI, body: dict[str, Any], tally: Tally) -> bytes:
        if not self.config.stream:
            return bytes(client.post(COMPLETIONS_PATH, cast_to=http_library().Response, body=body).content)
        import openai

        answer, started = StreamedAnswer(), time.monotonic()
        stream = client.post(COMPLETIONS_PATH, cast_to=object, body=streamed_body(body), stream=True,
                             stream_cls=openai.Stream[object])  # fmt: skip
        try:
            for chunk in stream:
                answer.add(chunk)
                self._check_pace(answer, started, tally)
        except Exception as exc:
            raise self._broken_stream(exc, answer, tally) from exc
        finally:
            stream.close()
        return self._completion(answer)

    async def _apost(self, client: openai.AsyncOpenAI, body: dict[str, Any], tally: Tally) -> bytes:
        if not self.config.stream:
            response = await client.post(COMPLETIONS_PATH, cast_to=http_library().Response, body=body)
            return bytes(response.content)
        import openai

        answer, started = StreamedAnswer(), time.monotonic()
        stream = await client.post(COMPLETIONS_PATH, cast_to=object, body=streamed_body(body), stream=True,
                                   stream_cls=openai.AsyncStream[object])  # fmt: skip
        try:
            async for chunk in stream:
                answer.add(chunk)
                self._check_pace(answer, started, tally)
        except Exception as exc:
            raise self._broken_stream(exc, answer, tally) from exc
        finally:
            await stream.close()
        return self._completion(answer)

    def _completion(self, answer: StreamedAnswer) -> bytes:
        if answer.chunks == 0:
            raise ReplyDecodeError(
                "not a chat completion: the streamed answer held no chunks (an endpoint that does "
                "not stream needs `stream = false`)"
            )
        return answer.completion()

    def _check_pace(self, answer: StreamedAnswer, started: float, tally: Tally) -> None:
        loop = answer.loop()
        if loop is not None:
            raise loop
        if tally.deadline is not None and time.monotonic() > tally.deadline:
            raise answer.stalled("was still writing when the call's deadline passed", ModelOverBudget)
        if time.monotonic() - started > self.config.max_answer_seconds:
            raise answer.stalled(f"was still writing at the answer's limit of {self.config.max_answer_seconds:g} s")

    def _broken_stream(self, exc: Exception, answer: StreamedAnswer, tally: Tally) -> Exception:
        """What a stream that ended badly is. Silence after the first tokens, or an endpoint that ends
        the answer with an error, is the model's failure (its tokens counted in the tally); silence
        before them and a broken connection are the same transport errors a whole response raises."""
        import openai

        if isinstance(exc, ModelStalled):
            tally.output_tokens += exc.output_tokens
            return exc
        timed_out = isinstance(exc, http_library().TimeoutException | openai.APITimeoutError)
        broken = isinstance(exc, http_library().TransportError | openai.APIConnectionError)
        if answer.produced and (timed_out or (isinstance(exc, openai.APIError) and not broken)):
            why = (f"went silent for {self.config.timeout_seconds:g} s" if timed_out else
                   f"was stopped by the endpoint ({_message(exc, self.config.api_key())})")  # fmt: skip
            stalled = answer.stalled(why)
            tally.output_tokens += stalled.output_tokens
            return stalled
        tally.output_tokens += answer.output_tokens if answer.produced else 0
        request = getattr(exc, "request", None)
        if isinstance(exc, openai.APIError) and not broken and not isinstance(exc, openai.APIStatusError):
            message = _message(exc, self.config.api_key())
            return ModelRequestRejected(f"{self.config.endpoint_host} ended the answer before its first token: "
                                        f"{message}", attempts=tally.attempts)  # fmt: skip
        if isinstance(exc, openai.APIError) or request is None:
            return exc
        if timed_out:
            return openai.APITimeoutError(request=request)
        return openai.APIConnectionError(request=request) if broken else exc

    def _lookup(self, request: ChatRequest, key: str, tally: Tally) -> Reply | None:
        tally.first_key = tally.first_key or key
        entry = self.cache.get(key)
        if entry is None:
            if self.cache.mode is CacheMode.replay_only:
                tally.attempts += 1
                raise ModelCacheMiss(f"replay-only cache has no answer for request {key[:16]}", attempts=tally.attempts)
            return None
        tally.attempts += 1
        tally.cache_hits += 1
        if entry.status != 200:
            raise ModelRequestRejected(
                f"the endpoint rejected this request before (HTTP {entry.status}, cached): "
                f"{entry.body.decode(errors='replace')}",
                attempts=tally.attempts,
                status_code=entry.status,
            )
        reply = Reply.decode(entry.body)
        tally.add_round(request, key, "cache", reply)
        tally.cached_input_tokens += reply.input_tokens
        tally.cached_output_tokens += reply.output_tokens
        tally.finish_reason = reply.finish_reason
        return reply

    def _store(self, request: ChatRequest, key: str, raw: bytes, tally: Tally) -> Reply:
        try:
            reply = Reply.decode(raw)
        except ReplyDecodeError as exc:
            raise ModelUnavailable(f"{self.config.endpoint_host}: {exc}", attempts=tally.attempts) from exc
        tally.add_round(request, key, "endpoint", reply)
        tally.input_tokens += reply.input_tokens
        tally.output_tokens += reply.output_tokens
        tally.finish_reason = reply.finish_reason
        self.cache.put(key, CacheEntry(200, raw))
        return reply

    def _failure(self, request: ChatRequest, key: str, exc: Exception, attempt: int, tally: Tally) -> float:
        """Seconds to wait before the next try, or raise the typed error (last try, or not retryable)."""
        import openai

        tally.add_round(request, key, "endpoint", error=exc)
        if isinstance(exc, ModelError):
            raise exc
        host = self.config.endpoint_host
        if isinstance(exc, ReplyDecodeError):
            raise ModelUnavailable(f"{host}: {exc}", attempts=tally.attempts) from exc
        status = exc.status_code if isinstance(exc, openai.APIStatusError) else None
        message = _message(exc, self.config.api_key())
        if status in REJECT_STATUS:
            self.cache.put(key, CacheEntry(status, message.encode()))
            raise ModelRequestRejected(
                f"{host} rejected the request (HTTP {status}): {message}", attempts=tally.attempts, status_code=status
            ) from exc
        if isinstance(exc, openai.APITimeoutError):
            what = f"timed out after {self.config.timeout_seconds:g} s"
        elif isinstance(exc, openai.APIConnectionError):
            what = f"connection failed ({exc.__cause__ or exc})"
        elif status in RETRY_STATUS:
            what = f"HTTP {status}: {message}"
        elif status is not None:
            hint = f" (is ${self.config.api_key_env} right?)" if status in (401, 403) else ""
            raise ModelUnavailable(
                f"{host} answered HTTP {status}{hint}: {message}", attempts=tally.attempts, status_code=status
            ) from exc
        else:
            raise exc
        if attempt >= self.config.max_attempts:
            raise ModelUnavailable(
                f"{host}: {what}; gave up after {attempt} attempts", attempts=tally.attempts, status_code=status
            ) from exc
        return self._delay(attempt, exc)

    def _delay(self, attempt: int, exc: Exception) -> float:
        cap = self.config.backoff_max_seconds
        retry_after = _retry_after(exc)
        if retry_after is not None:
            return min(retry_after, cap)
        return self._rng.uniform(0, min(cap, self.config.backoff_seconds * 2 ** (attempt - 1)))

    def close(self) -> None:
        self.connections.close()

    async def aclose(self) -> None:
        await self.connections.aclose()


def _message(exc: Exception, key: str | None) -> str:
    """The endpoint's error message, without the API key."""
    import openai

    if not isinstance(exc, openai.APIStatusError):
        return scrub(str(exc), key)[:300]
    error = exc.body.get("error", exc.body) if isinstance(exc.body, dict) else None
    found = error.get("message") if isinstance(error, dict) else None
    return scrub(str(found or exc.response.text or exc), key)[:300]


def _retry_after(exc: Exception) -> float | None:
    import openai

    if not isinstance(exc, openai.APIStatusError):
        return None
    headers = exc.response.headers
    for header, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(header)
        if value is not None:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                continue
    return None


def _check_deadline(tally: Tally) -> None:
    if tally.deadline is not None and time.monotonic() > tally.deadline:
        raise ModelOverBudget(f"the call's deadline passed before request {tally.endpoint_requests + 1} was sent",
                              attempts=tally.attempts)  # fmt: skip
