"""Streamed answers: chunks gathered into the chat completion the rest of the client reads.

With streaming a slow model that is still writing is never cut off: the HTTP read timeout bounds
the silence between chunks, not the whole answer. A model that stops sending after it has started,
or whose endpoint ends the answer with an error (a context overflow), has produced tokens: that is
an output failure (`ModelStalled`), with the tokens counted and the partial text kept, not an
infrastructure error retried as is.

A model stuck in a loop is stopped as soon as the loop is plain (`stuck_in_a_loop`), not when the
answer's room runs out: a small local model writing one list item over and over at a few tokens a
second would otherwise spend many minutes on an answer that cannot be used.
"""

from __future__ import annotations

import json
from typing import Any

from skill2env.llm.errors import ModelLooping, ModelStalled

LOOP_CHECK_EVERY = 32
"""Deltas between two looks for a loop (each look reads the answer's last LOOP_TAIL characters)."""
LOOP_TAIL = 1_600
LOOP_SPAN = 600
"""Characters of back-to-back copies of one stretch that make a loop: never one phrase said twice."""
LOOP_COPIES = 4
LOOP_DISTINCT = 5
"""A stretch of fewer distinct characters (a rule of '=' or a run of spaces) is layout, not a loop."""


class StreamedAnswer:
    """The deltas of one streamed chat completion, as they arrive."""

    def __init__(self) -> None:
        self._content: list[str] = []
        self._refusal: list[str] = []
        self._tool_calls: dict[int, dict[str, Any]] = {}
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] = {}
        self.model: str | None = None
        self.deltas = 0
        """Chunks that carried text or tool-call arguments: about one token each."""
        self.chunks = 0
        self._looked_at = 0

    def add(self, chunk: object) -> None:
        if not isinstance(chunk, dict):
            return
        self.chunks += 1
        self.model = chunk.get("model") or self.model
        if isinstance(chunk.get("usage"), dict):
            self.usage = chunk["usage"]
        for choice in chunk.get("choices") or ():
            delta = choice.get("delta") or {}
            if delta.get("content"):
                self._content.append(str(delta["content"]))
                self.deltas += 1
            if delta.get("refusal"):
                self._refusal.append(str(delta["refusal"]))
            for call in delta.get("tool_calls") or ():
                self._add_call(call)
            self.finish_reason = choice.get("finish_reason") or self.finish_reason

    def _add_call(self, call: dict[str, Any]) -> None:
        entry = self._tool_calls.setdefault(
            int(call.get("index") or 0), {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
        )
        entry["id"] = call.get("id") or entry["id"]
        function = call.get("function") or {}
        entry["function"]["name"] += function.get("name") or ""
        if function.get("arguments"):
            entry["function"]["arguments"] += function["arguments"]
            self.deltas += 1

    @property
    def produced(self) -> bool:
        return self.deltas > 0

    @property
    def text(self) -> str:
        return "".join(self._content)

    @property
    def output_tokens(self) -> int:
        return int(self.usage.get("completion_tokens") or self.deltas)

    def completion(self) -> bytes:
        """The answer as a (non-streamed) chat completion body."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text if self._content else None}
        if self._refusal:
            message["refusal"] = "".join(self._refusal)
        if self._tool_calls:  # a call the server sent without an id has none here either
            message["tool_calls"] = [{k: v for k, v in self._tool_calls[i].items() if k != "id" or v}
                                     for i in sorted(self._tool_calls)]  # fmt: skip
        usage = {"prompt_tokens": int(self.usage.get("prompt_tokens") or 0), "completion_tokens": self.output_tokens}
        body = {"model": self.model, "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason}],
                "usage": usage}  # fmt: skip
        return json.dumps(body).encode()

    def loop(self) -> ModelLooping | None:
        """The error that stops this answer when its end has become a loop (looked for every
        LOOP_CHECK_EVERY deltas), else None."""
        if self.deltas - self._looked_at < LOOP_CHECK_EVERY:
            return None
        self._looked_at = self.deltas
        arguments = "".join(call["function"]["arguments"] for call in self._tool_calls.values())
        found = stuck_in_a_loop((self.text + arguments)[-LOOP_TAIL:])
        if found is None:
            return None
        width, copies = found
        return ModelLooping(f"the model was looping (one stretch of {width} characters written {copies} times in a "
                            f"row): stopped after {self.output_tokens} tokens", partial=self.text,
                            output_tokens=self.output_tokens)  # fmt: skip

    def stalled(self, why: str, kind: type[ModelStalled] = ModelStalled) -> ModelStalled:
        return kind(f"the model {why} after {self.output_tokens} tokens", partial=self.text,
                    output_tokens=self.output_tokens)  # fmt: skip


def streamed_body(body: dict[str, Any]) -> dict[str, Any]:
    """`body` asking for a stream, with the usage in its last chunk."""
    return {**body, "stream": True, "stream_options": {"include_usage": True}}


def stuck_in_a_loop(text: str) -> tuple[int, int] | None:
    """(width, copies) when `text` ends with at least LOOP_COPIES back-to-back copies of one stretch of
    20-200 characters (with LOOP_DISTINCT or more distinct characters) spanning LOOP_SPAN or more."""
    for width in range(20, 201):
        copies = max(LOOP_COPIES, -(-LOOP_SPAN // width))
        if width * copies > len(text):
            break
        piece = text[-width:]
        if len(set(piece)) >= LOOP_DISTINCT and text.endswith(piece * copies):
            return width, copies
    return None
