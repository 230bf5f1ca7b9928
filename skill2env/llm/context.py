"""How much room the model's context leaves an answer: asked of the endpoint once, then fitted.

A request whose prompt and answer budget together exceed the context window is one the endpoint
rejects or cuts off after a long wait; the budget is fitted to the window instead (the ceiling too,
so a truncated answer is not asked again with room the model does not have).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from skill2env.llm.config import RoleConfig

CHARS_PER_TOKEN = 3.5
"""A conservative estimate for English prose, JSON and code (tokenizers average 3.5-4.5)."""
MARGIN_TOKENS = 64
"""Chat template tokens around the messages."""
LEAST_ANSWER_TOKENS = 256
_WINDOW_KEYS = ("max_model_len", "context_length", "context_window", "n_ctx", "n_ctx_train", "max_context_length")


class ContextWindow:
    """A role's context window: configured, or read once from the endpoint's model listing."""

    def __init__(self, config: RoleConfig) -> None:
        self.config = config
        self._tokens: int | None = config.context_tokens
        self._asked = config.context_tokens is not None
        self._lock = threading.Lock()

    def tokens(self, client: Any) -> int | None:
        """The window in tokens, or None when the endpoint does not say (`client`: the openai client)."""
        with self._lock:
            if not self._asked:
                self._asked = True
                self._tokens = _listed_window(client, self.config.model)
            return self._tokens

    def fit(self, client: Any, messages: Sequence[Any], tools: Sequence[Any], max_tokens: int) -> int:
        """`max_tokens`, lowered to what the window leaves after the prompt (never below 256)."""
        window = self.tokens(client)
        if window is None:
            return max_tokens
        room = window - prompt_tokens(messages, tools) - MARGIN_TOKENS
        return max(LEAST_ANSWER_TOKENS, min(max_tokens, room))


def prompt_tokens(messages: Sequence[Any], tools: Sequence[Any] = ()) -> int:
    chars = sum(len(str(m.get("content") or "")) if isinstance(m, dict) else len(str(m)) for m in messages)
    chars += sum(len(str(tool)) for tool in tools)
    return int(chars / CHARS_PER_TOKEN) + 1


def _listed_window(client: Any, model: str) -> int | None:
    from skill2env.llm.connections import http_library

    try:
        listing = client.get("/models", cast_to=http_library().Response).json()
    except Exception:  # a listing is a courtesy of the endpoint: without it the window is unknown
        return None
    entries = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(entries, list):
        return None
    for entry in entries:
        if len(entries) == 1 or (isinstance(entry, dict) and entry.get("id") == model):
            return _window_in(entry)
    return None


def _window_in(entry: Any) -> int | None:
    if not isinstance(entry, dict):
        return None
    for key in _WINDOW_KEYS:
        value = entry.get(key)
        if isinstance(value, int) and value >= 512:
            return value
    for nested in ("meta", "metadata"):
        found = _window_in(entry.get(nested))
        if found:
            return found
    return None
