"""The author a run uses, chosen by name: the model author when the author role has an endpoint,
else the offline world kits (`skill2env.kits.OfflineAuthor`: a curated skill is matched to the kit
that fits it best and its selected patterns are mapped onto that kit's), or a custom author."""

from __future__ import annotations

from typing import Final

from skill2env.kits import OfflineAuthor
from skill2env.lake.ports import AppendLog
from skill2env.llm import CallContext, LlmSettings, ModelNotConfigured
from skill2env.tasks.authoring import Author, load_author
from skill2env.tasks.model_author import ROLE, model_author

AUTO: Final = "auto"
KITS: Final = "kits"
MODEL: Final = "model"
NONE: Final = "none"
CHOICES = (AUTO, KITS, MODEL, NONE)


def choose_author(choice: str, settings: LlmSettings, *, log: AppendLog | None = None,
                  context: CallContext | None = None) -> Author | None:  # fmt: skip
    """The author `choice` names: `auto` (the model author when the author role has an endpoint, else
    the world kits), `kits`, `model` (raises `ModelNotConfigured` without an endpoint), `none` or ''
    (no author: skills are recorded as skipped), or `package.module:attribute` of a custom one. A model
    author appends its `llm_calls` rows to `log` after every skill."""
    name = choice.strip()
    if name in ("", NONE):
        return None
    if name == KITS:
        return OfflineAuthor()
    if name in (AUTO, MODEL):
        author = model_author(settings, log=log, context=context or CallContext(asset_key="tasks"))
        if author is None and name == MODEL:
            raise ModelNotConfigured(f"author '{MODEL}' needs an endpoint for the {ROLE} role")
        return author if author is not None else OfflineAuthor()
    return load_author(name)
