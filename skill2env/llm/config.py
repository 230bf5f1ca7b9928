"""Per-role model configuration: `<home>/llm.toml`, then environment overrides.

    # <home>/llm.toml
    cache = "read-write"                 # read-write | read-only | off | replay-only

    [default]                            # every role
    base_url = "http://127.0.0.1:8000/v1"
    model = "Qwen/Qwen2.5-7B-Instruct"
    api_key_env = "OPENAI_API_KEY"       # the *name* of the variable holding the key

    [judge]                              # one role
    model = "gpt-4.1-mini"
    base_url = "https://api.openai.com/v1"
    price_input_per_1k = 0.0004
    price_output_per_1k = 0.0016

Precedence, lowest first: built-in defaults, `[default]`, `[<role>]`, `SKILL2ENV_LLM_<FIELD>`
(every role), `SKILL2ENV_LLM_<ROLE>_<FIELD>` (one role), explicit overrides (the Dagster
resource, the CLI). `SKILL2ENV_LLM_CACHE` sets the cache mode. API keys are never part of the
configuration: a role names the environment variable that holds its key.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from skill2env.home import Home
from skill2env.llm.cache import CacheMode

ROLES = ("curator", "author", "solver", "judge", "verifier", "diagnoser")
"""Every role that calls a model (DESIGN.md, "Roles that call a language model")."""
ENV_PREFIX = "SKILL2ENV_LLM_"
CONFIG_FILE = "llm.toml"
CACHE_DIR = "llm-cache"
NO_KEY = "no-key"
"""Sent as the bearer token when the key variable is unset (local servers need none; the openai
client refuses to start without one)."""


class LlmConfigError(ValueError):
    """`llm.toml` or an override is invalid; the message says where."""


class RoleConfig(BaseModel):
    """How one role reaches its model. `base_url` and `model` both set = configured."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str = ""
    """OpenAI-compatible API root, e.g. `http://127.0.0.1:8000/v1`."""
    model: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    """Name of the environment variable holding the API key (the key itself is never stored)."""
    temperature: float | None = 0.0
    max_tokens: int = Field(2048, ge=1)
    max_tokens_ceiling: int = Field(8192, ge=1)
    """A truncated answer is asked again with twice the room, up to this many tokens."""
    max_tokens_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    context_tokens: int | None = Field(None, ge=512)
    """The model's context window. Unset: asked of the endpoint's `/models` once (vLLM's
    `max_model_len`, llama.cpp's `n_ctx`); an answer's room never runs past it."""
    seed: int | None = None
    timeout_seconds: float = Field(120.0, gt=0)
    """Per HTTP request; with `stream`, how long the endpoint may stay silent (before or between chunks)."""
    stream: bool = True
    """Stream answers: a slow model that is still writing is not cut off; one that stalls is."""
    max_answer_seconds: float = Field(1800.0, gt=0)
    """With `stream`, the longest one answer may take however steadily it arrives."""
    budget_seconds: float | None = Field(None, gt=0)
    """The author: the most one skill's calls (blueprint, build, their repairs) may take together;
    past it the skill is rejected as over budget (`ModelOverBudget`). Unset: no limit. For a slow
    local model, this is what bounds a run's time."""
    max_concurrency: int = Field(8, ge=1)
    """Requests in flight at once for this role (sync threads and async tasks alike)."""
    max_attempts: int = Field(4, ge=1)
    """HTTP tries per request on 429 / 5xx / connection errors / timeouts."""
    backoff_seconds: float = Field(0.5, ge=0)
    """First retry delay; doubled per retry, with full jitter, capped by `backoff_max_seconds`."""
    backoff_max_seconds: float = Field(30.0, ge=0)
    max_repairs: int = Field(2, ge=0)
    """Invalid answers (bad JSON, schema violations, bad tool arguments) sent back for correction."""
    structured_mode: Literal["auto", "json_schema", "json_object", "text"] = "auto"
    """`auto`: json_schema, stepping down to JSON mode, then plain text, when the endpoint rejects it."""
    strict_schema: bool = True
    """Send json_schema with `strict: true` (every property required, no extra properties)."""
    price_input_per_1k: float = Field(0.0, ge=0)
    price_output_per_1k: float = Field(0.0, ge=0)

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)

    @property
    def endpoint_host(self) -> str:
        """`host[:port]` of the endpoint, without credentials or path (what the ledger records)."""
        parts = urlsplit(self.base_url)
        host = parts.hostname or ""
        return f"{host}:{parts.port}" if parts.port else host

    def api_key(self) -> str | None:
        return os.environ.get(self.api_key_env) or None

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return input_tokens / 1000 * self.price_input_per_1k + output_tokens / 1000 * self.price_output_per_1k


class LlmSettings(BaseModel):
    """Every role's resolved configuration, the cache mode and where the cache lives."""

    model_config = ConfigDict(frozen=True)

    roles: dict[str, RoleConfig]
    cache_mode: CacheMode = CacheMode.read_write
    cache_dir: Path
    config_file: Path | None = None
    """The `llm.toml` read, if there was one."""

    def role(self, name: str) -> RoleConfig:
        if name not in self.roles:
            raise LlmConfigError(f"unknown model role {name!r}; roles are {', '.join(ROLES)}")
        return self.roles[name]

    @classmethod
    def load(
        cls,
        home: Home,
        *,
        environ: Mapping[str, str] | None = None,
        overrides: Mapping[str, Any] | None = None,
        cache_mode: str | None = None,
    ) -> LlmSettings:
        """Resolve every role from `<home>/llm.toml`, `environ` (default `os.environ`) and `overrides`."""
        environ = os.environ if environ is None else environ
        path = home.data_root / CONFIG_FILE
        document = _read_toml(path)
        file_cache = document.pop("cache", None)
        unknown = set(document) - {"default", *ROLES}
        if unknown:
            raise LlmConfigError(f"{path}: unknown tables {sorted(unknown)}; use [default] or one of {ROLES}")
        roles = {}
        for role in ROLES:
            layers = [
                document.get("default", {}),
                document.get(role, {}),
                _env_layer(environ, ENV_PREFIX),
                _env_layer(environ, f"{ENV_PREFIX}{role.upper()}_"),
                {k: v for k, v in (overrides or {}).items() if v not in (None, "")},
            ]
            roles[role] = _role_config(role, layers, path)
        mode = cache_mode or environ.get(f"{ENV_PREFIX}CACHE") or file_cache or CacheMode.read_write.value
        try:
            resolved_mode = CacheMode(mode)
        except ValueError:
            choices = ", ".join(m.value for m in CacheMode)
            raise LlmConfigError(f"cache mode {mode!r} is not one of {choices}") from None
        return cls(
            roles=roles,
            cache_mode=resolved_mode,
            cache_dir=home.data_root / CACHE_DIR,
            config_file=path if path.is_file() else None,
        )


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise LlmConfigError(f"{path}: {exc}") from exc


def _env_layer(environ: Mapping[str, str], prefix: str) -> dict[str, Any]:
    layer: dict[str, Any] = {}
    for field, info in RoleConfig.model_fields.items():
        value = environ.get(prefix + field.upper())
        if value is None:
            continue
        optional = info.default is None or field == "temperature"
        layer[field] = None if optional and value.strip().lower() in ("", "none", "null") else value
    return layer


def _role_config(role: str, layers: list[Mapping[str, Any]], path: Path) -> RoleConfig:
    merged: dict[str, Any] = {}
    for layer in layers:
        if not isinstance(layer, Mapping):
            raise LlmConfigError(f"{path}: [{role}] must be a table")
        if "api_key" in layer:
            raise LlmConfigError(
                f"{path}: API keys are never stored in the configuration; set `api_key_env` to the name "
                "of the environment variable that holds the key"
            )
        merged.update(layer)
    try:
        return RoleConfig.model_validate(merged)
    except ValidationError as exc:
        raise LlmConfigError(f"model role {role!r}: {exc}") from exc
