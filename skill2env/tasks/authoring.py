"""Who drafts tasks: the `Author` protocol, and how the pipeline finds one.

An author turns a curated skill and its selected patterns into a `TaskDraft` (blueprint +
instruction + workspace + rubric + reference solution, built jointly), or declines with a
`Rejection`. Offline world kits and the model-backed author both implement it; the pipeline
loads one by reference (`package.module:attribute`), and with none it records the skill as
skipped instead of failing.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from skill2env.tasks.draft import TaskDraft

NO_AUTHOR_REASON = "no author available (offline kits not installed, no model configured)"


@dataclass(frozen=True)
class Rejection:
    """An author's reasoned refusal to draft a task for a skill: a skill it does not serve (recorded as
    `skipped`), or, with `failed`, a skill it tried and failed on (recorded as `rejected`, a failure of
    the authoring stage: a model's answers still invalid after repair, a refusal, a kit that broke)."""

    reason: str
    author: str = ""
    failed: bool = False


@runtime_checkable
class Author(Protocol):
    """Drafts one task per skill from the skill's row (`skills`) and its rows of `pattern_selections`."""

    @property
    def name(self) -> str: ...

    def draft(
        self, skill_row: Mapping[str, Any], selection_rows: Sequence[Mapping[str, Any]]
    ) -> TaskDraft | Rejection: ...


class AuthorLoadError(ValueError):
    """An author reference does not import, or does not name an author."""


def load_author(reference: str) -> Author | None:
    """The author `package.module:attribute` names: an `Author`, or a factory (no arguments) of one.

    `""` means none is configured; a factory may return None when its author cannot work here
    (e.g. no model endpoint), which also means none.

    Raises:
        AuthorLoadError: the reference is malformed, does not import, or names no author.
    """
    if not reference.strip():
        return None
    module_name, _, attribute = reference.strip().partition(":")
    if not module_name or not attribute:
        raise AuthorLoadError(f"author reference {reference!r} is not of the form package.module:attribute")
    try:
        target: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as exc:
        raise AuthorLoadError(f"author {reference!r} could not be loaded: {exc}") from exc
    if isinstance(target, type) or (callable(target) and not isinstance(target, Author)):
        target = target()  # a class or a factory (a class passes the protocol check itself, so test it first)
    if target is None:
        return None
    if not isinstance(target, Author):
        raise AuthorLoadError(f"{reference!r} is not an author (it needs a `name` and a `draft` method)")
    return target
