"""Typed failures of model calls, so callers can tell an infrastructure error from a bad answer.

* infrastructure (`ModelError.infrastructure` is True): nothing was learned about the model —
  no endpoint configured, the endpoint unreachable, overloaded or refusing our credentials, the
  request rejected as malformed, or a replay-only cache without the answer. Record it as an
  error, never as the model's failure.
* output (`infrastructure` is False): the model answered, and the answer is unusable — invalid
  after every repair round, a refusal, cut off at the token ceiling, or stalled after it started.
"""

from __future__ import annotations

import re
from typing import ClassVar

_KEY_LIKE = re.compile(r"\b(?:sk|rk|pk)-[A-Za-z0-9_*\-]{6,}")


def scrub(message: str, key: str | None) -> str:
    """`message` without `key`, or anything shaped like an API key (endpoints echo keys, masked or not)."""
    if key:
        message = message.replace(key, "***")
    return _KEY_LIKE.sub("***", message)


class ModelError(RuntimeError):
    """Base class of model-call failures; `attempts` counts the requests the call made."""

    infrastructure: ClassVar[bool] = True

    def __init__(self, message: str, *, attempts: int = 0) -> None:
        super().__init__(message)
        self.attempts = attempts

    @property
    def kind(self) -> str:
        """`infrastructure` or `output`, as recorded in the ledger."""
        return "infrastructure" if self.infrastructure else "output"


class ModelNotConfigured(ModelError):
    """The role has no endpoint or no model configured; the pipeline takes its offline path."""


class ModelUnavailable(ModelError):
    """The endpoint did not answer usefully: connection errors, timeouts, 429 / 5xx after every
    retry, authentication failures, an unknown model or path, a body that is not a completion."""

    def __init__(self, message: str, *, attempts: int = 0, status_code: int | None = None) -> None:
        super().__init__(message, attempts=attempts)
        self.status_code = status_code


class ModelRequestRejected(ModelError):
    """The endpoint answered 400 / 413 / 422: it will not take this request (e.g. an unsupported
    `response_format`, a prompt over its context length). Not retried as is."""

    def __init__(self, message: str, *, attempts: int = 0, status_code: int | None = None) -> None:
        super().__init__(message, attempts=attempts)
        self.status_code = status_code


class ModelCacheMiss(ModelError):
    """Replay-only mode and the cache holds no answer to this exact request."""


class ModelOutputError(ModelError):
    """The model answered, but not usably."""

    infrastructure: ClassVar[bool] = False


class ModelOutputInvalid(ModelOutputError):
    """Invalid JSON, a schema violation or bad tool-call arguments, still after every repair round."""

    def __init__(self, message: str, *, attempts: int = 0, errors: list[str] | None = None) -> None:
        super().__init__(message, attempts=attempts)
        self.errors = errors or []


class ModelRefused(ModelOutputError):
    """The model refused (a `refusal` message or `finish_reason == "content_filter"`)."""


class ModelTruncated(ModelOutputError):
    """`finish_reason == "length"` even at the role's token ceiling; `partial` holds what came."""

    def __init__(self, message: str, *, attempts: int = 0, partial: str = "") -> None:
        super().__init__(message, attempts=attempts)
        self.partial = partial


class ModelStalled(ModelOutputError):
    """The model started answering, then went silent past the idle timeout, ran past the answer's
    time limit, or its endpoint ended the answer with an error; `partial` holds what came."""

    def __init__(self, message: str, *, attempts: int = 0, partial: str = "", output_tokens: int = 0) -> None:
        super().__init__(message, attempts=attempts)
        self.partial = partial
        self.output_tokens = output_tokens


class ModelLooping(ModelStalled):
    """The model's answer ended in one stretch written over and over: stopped while streaming, before
    it runs out of room, and retried like a stall (warmer, once)."""


class ModelOverBudget(ModelStalled):
    """The call ran past the deadline its caller gave it (an author's `budget_seconds` for one skill):
    stopped mid-answer, tokens counted and partial kept, or before its next request; never retried."""
