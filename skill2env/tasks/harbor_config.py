"""A pydantic mirror of Harbor's `task.toml` (schema 1.4), read with `tomllib`, written deterministically.

Field names and defaults are Harbor's (`harbor.models.task.config`). Deprecated spellings
(`version`, `memory`, `storage`, `allow_internet`) are read and normalised, never written back.
Keys this mirror does not know are kept (Harbor ignores them) and listed by `unknown_keys`.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

HARBOR_SCHEMA_VERSION = "1.4"
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


class _Section(BaseModel):
    model_config = ConfigDict(extra="allow")


class NetworkMode(StrEnum):
    public = "public"
    no_network = "no-network"
    allowlist = "allowlist"


class Author(_Section):
    name: str
    email: str | None = None


class PackageInfo(_Section):
    """`[task]`: the task's registry identity."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")
    """`org/name`."""
    version: str | None = Field(default=None, min_length=1)
    description: str = ""
    authors: list[Author] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)


class VerifierEnvironmentMode(StrEnum):
    shared = "shared"
    separate = "separate"


class VerifierConfig(_Section):
    timeout_sec: float = 600.0
    env: dict[str, str] = Field(default_factory=dict)
    """Variables for the verifier; `${VAR}` values are resolved from the host at run time (never secrets here)."""
    user: str | int | None = None
    network_mode: NetworkMode | None = None
    allowed_hosts: list[str] = Field(default_factory=list)
    environment_mode: VerifierEnvironmentMode | None = None
    """`separate`: the verifier runs in its own container (built from `tests/` when it holds a Dockerfile)."""


class AgentConfig(_Section):
    timeout_sec: float | None = None
    user: str | int | None = None
    network_mode: NetworkMode | None = None
    allowed_hosts: list[str] = Field(default_factory=list)


class SolutionConfig(_Section):
    env: dict[str, str] = Field(default_factory=dict)


class HealthcheckConfig(_Section):
    command: str
    interval_sec: float = 5.0
    timeout_sec: float = 30.0
    start_period_sec: float = 0.0
    start_interval_sec: float = 5.0
    retries: int = 3


class MCPServerConfig(_Section):
    name: str
    transport: str = "sse"
    url: str | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=list)


class EnvironmentConfig(_Section):
    build_timeout_sec: float = 600.0
    docker_image: str | None = None
    cpus: int = 1
    memory_mb: int = 2048
    storage_mb: int = 10240
    gpus: int = 0
    gpu_types: list[str] | None = None
    network_mode: NetworkMode | None = None
    allowed_hosts: list[str] = Field(default_factory=list)
    mcp_servers: list[MCPServerConfig] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    skills_dir: str | None = None
    healthcheck: HealthcheckConfig | None = None

    @model_validator(mode="before")
    @classmethod
    def _deprecated_spellings(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for old, new in (("memory", "memory_mb"), ("storage", "storage_mb")):
            if old in data:
                data.setdefault(new, _size_mb(data.pop(old)))
        if "allow_internet" in data:
            allowed = data.pop("allow_internet")
            if data.get("network_mode") is None:
                data["network_mode"] = NetworkMode.public if allowed else NetworkMode.no_network
        return data


class TaskConfig(_Section):
    """One `task.toml`."""

    schema_version: str = HARBOR_SCHEMA_VERSION
    task: PackageInfo | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    verifier: VerifierConfig = Field(default_factory=VerifierConfig)
    agent: AgentConfig = Field(default_factory=AgentConfig)
    environment: EnvironmentConfig = Field(default_factory=EnvironmentConfig)
    solution: SolutionConfig = Field(default_factory=SolutionConfig)
    source: str | None = None
    artifacts: list[str | dict[str, Any]] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _version_rename(cls, data: Any) -> Any:
        if isinstance(data, dict) and "version" in data:
            data = dict(data)
            data.setdefault("schema_version", data.pop("version"))
        return data

    @classmethod
    def from_toml(cls, text: str) -> TaskConfig:
        """Raises: tomllib.TOMLDecodeError, pydantic.ValidationError."""
        return cls.model_validate(tomllib.loads(text))

    def to_toml(self) -> str:
        """Deterministic TOML: fields in model order, unset (None) and empty values left out."""
        return dumps_toml(_prune(self.model_dump(mode="json")))


def unknown_keys(config: BaseModel, prefix: str = "") -> list[str]:
    """Dotted names of every key the mirror does not know (Harbor ignores them too)."""
    found = [f"{prefix}{key}" for key in sorted(config.model_extra or {})]
    for name in type(config).model_fields:
        value = getattr(config, name)
        if isinstance(value, _Section):
            found += unknown_keys(value, f"{prefix}{name}.")
    return found


def _size_mb(size: object) -> int:
    text = str(size).strip().upper()
    factors = {"G": 1024.0, "M": 1.0, "K": 1 / 1024}
    if text and text[-1] in factors:
        return int(float(text[:-1]) * factors[text[-1]])
    raise ValueError(f"invalid size {size!r}: expected e.g. '512M' or '4G'")


def _prune(value: Any) -> Any:
    if isinstance(value, dict):
        pruned = {k: _prune(v) for k, v in value.items() if v is not None}
        return {k: v for k, v in pruned.items() if v != {} and v != []}
    if isinstance(value, list):
        return [_prune(v) for v in value]
    return value


def dumps_toml(data: dict[str, Any]) -> str:
    """TOML for nested dicts of scalars and lists (lists of tables as inline tables); `None` left out."""
    lines: list[str] = []
    _emit_table(lines, [], data)
    return "\n".join(lines).strip("\n") + "\n"


def _emit_table(lines: list[str], path: list[str], table: dict[str, Any]) -> None:
    scalars = [(k, v) for k, v in table.items() if v is not None and not isinstance(v, dict)]
    tables = [(k, v) for k, v in table.items() if isinstance(v, dict)]
    if path and (scalars or not tables):
        lines += ["", "[" + ".".join(_key(p) for p in path) + "]"]
    lines += [f"{_key(k)} = {_value(v)}" for k, v in scalars]
    for key, sub in tables:
        _emit_table(lines, [*path, key], sub)


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _string(key)


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value if v is not None) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items() if v is not None)
        return "{ " + items + " }" if items else "{}"
    raise TypeError(f"cannot write {type(value).__name__} as TOML: {value!r}")
