"""What goes over the wire: one chat-completions request, and the reply decoded from its body.

Requests are plain JSON-able dicts (what `chat.completions.create` takes), so the cache key is
the hash of exactly what is sent. Replies are decoded from the raw response body rather than
from the openai package's models, so a cached body and a live one take the same path and an
OpenAI-compatible server's extra or missing fields do not matter.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

Message = dict[str, Any]


def canonical_json(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str).encode()


def digest(value: object) -> str:
    """sha256 of the canonical JSON of `value`, hex."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


@dataclass(frozen=True)
class ChatRequest:
    """One request to `chat.completions.create`."""

    model: str
    messages: tuple[Message, ...]
    max_tokens: int
    max_tokens_field: str = "max_tokens"
    temperature: float | None = None
    seed: int | None = None
    tools: tuple[Mapping[str, Any], ...] = ()
    tool_choice: str | Mapping[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    response_format: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Other sampling parameters (`top_p`, `stop`, …), sent as they are."""

    def body(self) -> dict[str, Any]:
        """The keyword arguments of `chat.completions.create`; only what is set."""
        body: dict[str, Any] = {"model": self.model, "messages": list(self.messages)}
        body[self.max_tokens_field] = self.max_tokens
        optional = {
            "temperature": self.temperature,
            "seed": self.seed,
            "tools": list(self.tools) or None,
            "tool_choice": self.tool_choice if self.tools else None,
            "parallel_tool_calls": self.parallel_tool_calls if self.tools else None,
            "response_format": self.response_format,
        }
        body.update({key: value for key, value in optional.items() if value is not None})
        body.update(self.extra)
        return body

    def key(self) -> str:
        """The cache key: sha256 of the full request body."""
        return digest(self.body())

    def extended(self, messages: Sequence[Message]) -> ChatRequest:
        return replace(self, messages=(*self.messages, *messages))

    def with_max_tokens(self, max_tokens: int) -> ChatRequest:
        return replace(self, max_tokens=max_tokens)

    def warmer(self, step: float = 0.4, ceiling: float = 1.0) -> ChatRequest:
        """This request at a higher temperature: a model stuck in a loop rarely repeats it warmer."""
        return replace(self, temperature=min(ceiling, (self.temperature or 0.0) + step))


class ReplyDecodeError(ValueError):
    """A response body that is not a chat completion."""


@dataclass(frozen=True)
class Reply:
    """The first choice of a chat completion, and its usage."""

    content: str | None
    refusal: str | None
    tool_calls: tuple[Mapping[str, Any], ...]
    """As sent: `{"id", "type": "function", "function": {"name", "arguments"}}`."""
    finish_reason: str | None
    input_tokens: int
    output_tokens: int
    model: str | None

    @classmethod
    def decode(cls, body: bytes) -> Reply:
        try:
            data = json.loads(body)
            choice = data["choices"][0]
            message = choice.get("message") or {}
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise ReplyDecodeError(f"not a chat completion: {body[:200]!r}") from exc
        usage = data.get("usage") or {}
        return cls(
            content=message.get("content"),
            refusal=message.get("refusal") or None,
            tool_calls=tuple(message.get("tool_calls") or ()),
            finish_reason=choice.get("finish_reason"),
            input_tokens=int(usage.get("prompt_tokens") or 0),
            output_tokens=int(usage.get("completion_tokens") or 0),
            model=data.get("model"),
        )

    def assistant_message(self) -> Message:
        """This reply as the assistant turn of a conversation (to send it back, or continue it)."""
        message: Message = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [dict(call) for call in self.tool_calls]
        return message
