"""ClawHub (OpenClaw) skill metadata: `metadata.openclaw` and its older aliases.

ClawHub skills declare what they need inside the frontmatter `metadata` field, under
`openclaw` (current) or `clawdbot` / `clawdis` / `moltbot` (names the project used before). Authors
write it by hand, so shapes vary: `metadata` may be a JSON string, `requires.env` may be a list of
names, a list of `{name: ...}` objects or a `{NAME: description}` mapping, `os` may sit under
`requires` or be a bare string. Everything is coerced; junk is dropped; nothing raises.
"""

from __future__ import annotations

import json
import re
from typing import Any

from skill2env.catalog.models import ClawHubMeta

CLAWHUB_KEYS = ("openclaw", "clawdbot", "clawdis", "moltbot")
"""Checked in this order; the first present wins."""

_MAX_ITEMS = 100
_MAX_ITEM_CHARS = 200
_ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def clawhub_meta(frontmatter: dict[str, Any]) -> ClawHubMeta | None:
    """Read the ClawHub block from a parsed frontmatter mapping; None when there is none."""
    if not isinstance(frontmatter, dict):
        return None
    metadata = _as_mapping(frontmatter.get("metadata"))
    if metadata is None:
        return None
    for key in CLAWHUB_KEYS:
        if key in metadata:
            block = _as_mapping(metadata[key])
            return _meta_from_block(key, block or {})
    return None


def _as_mapping(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            loaded = json.loads(value)
        except ValueError:
            return None
        return loaded if isinstance(loaded, dict) else None
    return None


def _meta_from_block(key: str, block: dict[str, Any]) -> ClawHubMeta:
    requires = _as_mapping(block.get("requires")) or {}
    config = _as_mapping(block.get("config")) or {}
    env = _env_names(requires.get("env"))
    # Seen in the wild: `env` beside `requires`, and moltbot's `config.requiredEnv`.
    env += _env_names(block.get("env")) + _env_names(config.get("requiredEnv"))
    return ClawHubMeta(
        key=key,
        bins=_strings(requires.get("bins")) + _strings(requires.get("commands")),
        any_bins=_strings(requires.get("anyBins")),
        env=_unique(env),
        config=_strings(requires.get("config")),
        os=_unique(s.lower() for s in _strings(block.get("os")) + _strings(requires.get("os"))),
        install=_install_entries(block.get("install")),
        primary_env=_primary_env(block.get("primaryEnv")),
    )


def _strings(value: Any) -> list[str]:
    """Coerce a string or a list to a unique list of non-empty, trimmed strings; drop everything else."""
    if isinstance(value, str):
        items: list[Any] = [value]
    elif isinstance(value, list):
        items = value[:_MAX_ITEMS]
    else:
        return []
    return _unique(item.strip() for item in items if _is_short_text(item))


def _is_short_text(item: Any) -> bool:
    return isinstance(item, str) and 0 < len(item.strip()) <= _MAX_ITEM_CHARS


def _unique(items: Any) -> list[str]:
    return list(dict.fromkeys(items))


def _env_names(value: Any) -> list[str]:
    if isinstance(value, dict):
        candidates: list[Any] = list(value)[:_MAX_ITEMS]
    elif isinstance(value, list):
        candidates = [item.get("name") if isinstance(item, dict) else item for item in value[:_MAX_ITEMS]]
    else:
        candidates = [value]
    return [c.strip() for c in candidates if isinstance(c, str) and _ENV_NAME_RE.match(c.strip())]


def _primary_env(value: Any) -> str | None:
    if isinstance(value, str) and _ENV_NAME_RE.match(value.strip()):
        return value.strip()
    return None


def _install_entries(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return []
    return [entry for entry in value[:_MAX_ITEMS] if isinstance(entry, dict) and entry]
