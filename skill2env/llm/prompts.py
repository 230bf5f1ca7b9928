"""Prompt templates: Jinja2 files in `skill2env/llm/prompts/`, each with an id and a content hash.

A template `<id>.j2` defines a `system` block and a `user` block; each becomes one message.
The template's id (its file stem) and version (sha256 of its source) are recorded with every
call made from it, so the ledger says which wording produced which answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import jinja2

from skill2env.llm.wire import Message, digest

PROMPTS_DIR = Path(str(files("skill2env.llm") / "prompts"))
ROLE_BLOCKS = ("system", "user")


class PromptNotFoundError(LookupError):
    """No template with that id."""


@dataclass(frozen=True)
class Prompt:
    """Messages to send, and the template they came from (None for ad-hoc messages)."""

    messages: tuple[Message, ...]
    template_id: str | None = None
    template_version: str | None = None

    @classmethod
    def of(cls, messages: Prompt | Sequence[Mapping[str, Any]] | str) -> Prompt:
        """A prompt from messages, a single user message, or a prompt as is."""
        if isinstance(messages, Prompt):
            return messages
        if isinstance(messages, str):
            return cls(({"role": "user", "content": messages},))
        return cls(tuple(dict(message) for message in messages))

    @property
    def prompt_hash(self) -> str:
        """sha256 (first 16 hex) of the messages."""
        return digest(list(self.messages))[:16]

    def extended(self, messages: Sequence[Mapping[str, Any]]) -> Prompt:
        """The same template lineage with more turns (tool results, a follow-up question)."""
        return Prompt((*self.messages, *(dict(m) for m in messages)), self.template_id, self.template_version)


@cache
def _environment() -> jinja2.Environment:
    # Prompts are plain text for a model, not HTML: escaping would corrupt them.
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(PROMPTS_DIR),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # noqa: S701
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )


def template_ids() -> list[str]:
    return sorted(path.stem for path in PROMPTS_DIR.glob("*.j2"))


@cache
def template_version(template_id: str) -> str:
    """sha256 (first 16 hex) of the template's source."""
    path = PROMPTS_DIR / f"{template_id}.j2"
    if not path.is_file():
        raise PromptNotFoundError(f"no prompt template {template_id!r} in {PROMPTS_DIR} (have {template_ids()})")
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def render(template_id: str, **variables: Any) -> Prompt:
    """Render template `template_id`: one message per `system` / `user` block it defines."""
    version = template_version(template_id)
    template = _environment().get_template(f"{template_id}.j2")
    context = template.new_context(variables)
    messages = []
    for role in ROLE_BLOCKS:
        block = template.blocks.get(role)
        if block is not None:
            text = "".join(block(context)).strip()
            if text:
                messages.append({"role": role, "content": text})
    if not messages:
        messages.append({"role": "user", "content": template.render(variables).strip()})
    return Prompt(tuple(messages), template_id, version)
