"""A pydantic mirror of Harbor's `task.toml` (schema 1.4), read with `tomllib`, written deterministically.

The one `task.toml` model of the project: field names, types and defaults are Harbor's
(`harbor.models.task.config`, Harbor 0.25), sections and `[[steps]]` included. Deprecated spellings
(`version`, `memory`, `storage`, `allow_internet`) are read and normalised, never written back.
Keys this mirror does not know are kept (Harbor ignores them) and listed by `unknown_keys`.

Harbor leaves resources unset by default (`cpus`, `memory_mb`, `storage_mb`, `gpus`): whoever runs
a task picks its own default at the point of use (the sandbox limits do).
"""

from __future__ import annotations

import json
import math
import re
import tomllib
import unicodedata
from enum import StrEnum
from pathlib import PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import to_jsonable_python

HARBOR_SCHEMA_VERSION = "1.4"
MAIN_SERVICE = "main"
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_SERVICE_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9_.-]*$")
_STEP_NAME_BAD = re.compile(r'[<>:"/\\|?*\x00-\x1f\x7f]')
_WINDOWS_DEVICE = re.compile(r"^(CON|PRN|AUX|NUL|CONIN\$|CONOUT\$|(?:COM|LPT)[1-9¹²³])$", re.IGNORECASE)


class _Section(BaseModel):
    model_config = ConfigDict(extra="allow")


class NetworkMode(StrEnum):
    public = "public"
    no_network = "no-network"
    allowlist = "allowlist"


class TaskOS(StrEnum):
    linux = "linux"
    windows = "windows"


class VerifierEnvironmentMode(StrEnum):
    shared = "shared"
    """The verifier runs in the agent's environment (Harbor's default without `[verifier.environment]`)."""
    separate = "separate"
    """The verifier runs in its own container (built from `tests/` when it holds a Dockerfile)."""


class MultiStepRewardStrategy(StrEnum):
    mean = "mean"
    """Per-key means across the steps (Harbor's default for a multi-step task)."""
    final = "final"
    """The last step's rewards."""


def _check_network(mode: NetworkMode | None, hosts: list[str] | None) -> None:
    if hosts is not None and mode != NetworkMode.allowlist and (mode is None or hosts):
        raise ValueError("allowed_hosts is only valid when network_mode='allowlist'.")


def _service_name(value: str | None) -> str | None:
    if value is not None and not _SERVICE_NAME.match(value := value.strip()):
        raise ValueError(f"invalid Docker Compose service name: {value!r}")
    return value


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

    @field_validator("name")
    @classmethod
    def _no_dot_dot(cls, value: str) -> str:
        if ".." in value:
            raise ValueError(f"package name may not contain '..': {value!r}")
        return value


class _PhaseNetwork(_Section):
    """`[agent]` and `[verifier]`: a network policy that overrides the environment's when set."""

    network_mode: NetworkMode | None = None
    allowed_hosts: list[str] | None = None

    @model_validator(mode="after")
    def _network_policy(self) -> _PhaseNetwork:
        _check_network(self.network_mode, self.allowed_hosts)
        return self


class AgentConfig(_PhaseNetwork):
    timeout_sec: float | None = None
    """Harbor's default is no limit; a runner picks its own."""
    user: str | int | None = None
    """Username or UID the agent runs as; None: the environment's default USER."""


class SolutionConfig(_Section):
    env: dict[str, str] = Field(default_factory=dict)


class HealthcheckConfig(_Section):
    command: str
    interval_sec: float = 5.0
    timeout_sec: float = 30.0
    start_period_sec: float = 0.0
    start_interval_sec: float = 5.0
    retries: int = 3


class TpuSpec(_Section):
    type: str = Field(min_length=1)
    topology: str
    """`NxM` or `NxMxK`."""

    @field_validator("topology")
    @classmethod
    def _topology(cls, value: str) -> str:
        if not re.fullmatch(r"[1-9]\d*(x[1-9]\d*)+", value := value.strip()):
            raise ValueError(f"invalid TPU topology {value!r}: expected e.g. '2x4' or '2x2x1'")
        return value


class MCPServerConfig(_Section):
    name: str
    transport: Literal["stdio", "sse", "streamable-http"] = "sse"
    url: str | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    headers: dict[str, str] = Field(default_factory=dict)
    """For the HTTP transports; values reference credentials as `${VAR}`, never hold them."""

    @field_validator("transport", mode="before")
    @classmethod
    def _http_alias(cls, value: Any) -> Any:
        return "streamable-http" if value == "http" else value

    @model_validator(mode="after")
    def _transport_fields(self) -> MCPServerConfig:
        if self.transport != "stdio" and not self.url:
            raise ValueError(f"'url' is required for transport '{self.transport}'")
        if self.transport == "stdio" and not self.command:
            raise ValueError("'command' is required for transport 'stdio'")
        return self


class EnvironmentConfig(_Section):
    build_timeout_sec: float = 600.0
    docker_image: str | None = None
    """A prebuilt image: `environment/Dockerfile` becomes optional."""
    os: TaskOS = TaskOS.linux
    cpus: int | float | None = None
    """Fractional cpus are kept; whole floats read as ints (as Harbor does)."""
    memory_mb: int | None = None
    storage_mb: int | None = None
    gpus: int | None = None
    gpu_types: list[str] | None = None
    tpu: TpuSpec | None = None
    network_mode: NetworkMode = NetworkMode.public
    """Harbor's default is public. The sandbox opens the network only when a task writes it out."""
    allowed_hosts: list[str] | None = None
    mcp_servers: list[MCPServerConfig] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    skills_dir: str | None = None
    healthcheck: HealthcheckConfig | None = None
    workdir: str | None = None
    """Overrides the image's WORKDIR for commands when set."""
    allow_internet: bool | None = Field(default=None, exclude=True)
    """Deprecated: read into `network_mode` (when that is not written), never written back."""

    @field_validator("cpus")
    @classmethod
    def _cpus(cls, value: int | float | None) -> int | float | None:
        if isinstance(value, float):
            if not math.isfinite(value):
                raise ValueError(f"cpus must be a finite number; got {value}")
            if value.is_integer():
                return int(value)
        return value

    @field_validator("os", mode="before")
    @classmethod
    def _os_case(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value

    @model_validator(mode="before")
    @classmethod
    def _deprecated_sizes(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for old, new in (("memory", "memory_mb"), ("storage", "storage_mb")):
            if old not in data:
                continue
            size = data.pop(old)
            if isinstance(size, str):
                mb = _size_mb(size)
                if new in data and data[new] != mb:
                    raise ValueError(f"conflicting {old!r} and {new!r}: {size!r} ({mb} MB) != {data[new]!r}")
                data.setdefault(new, mb)
        return data

    @model_validator(mode="after")
    def _legacy_allow_internet(self) -> EnvironmentConfig:
        _check_network(self.network_mode, self.allowed_hosts)
        allowed, self.__dict__["allow_internet"] = self.allow_internet, None
        if allowed is not None and "network_mode" not in self.model_fields_set and self.allowed_hosts is None:
            # Into the value, not the fields set: the mode stays "not written" (the sandbox's test for asking).
            self.__dict__["network_mode"] = NetworkMode.public if allowed else NetworkMode.no_network
        return self

    @property
    def network_requested(self) -> NetworkMode | None:
        """The network mode the task wrote out (`allow_internet` alone does not count), else None."""
        return self.network_mode if "network_mode" in self.model_fields_set else None


class VerifierCollectConfig(_Section):
    """`[[verifier.collect]]`: a command run in a compose service after the agent's phase."""

    command: str
    service: str = MAIN_SERVICE
    timeout_sec: float = 60.0
    user: str | int | None = None

    _service = field_validator("service")(classmethod(lambda cls, value: _service_name(value)))


class VerifierConfig(_PhaseNetwork):
    timeout_sec: float = 600.0
    env: dict[str, str] = Field(default_factory=dict)
    """Variables for the verifier; `${VAR}` values are resolved from the host at run time (never secrets here)."""
    user: str | int | None = None
    environment_mode: VerifierEnvironmentMode | None = None
    """Unset: `separate` when `environment` is set, else `shared`."""
    environment: EnvironmentConfig | None = None
    """The separate verifier's environment (unset with `separate`: a copy of `[environment]`)."""
    collect: list[VerifierCollectConfig] = Field(default_factory=list)

    @model_validator(mode="after")
    def _mode_and_environment(self) -> VerifierConfig:
        if self.environment_mode == VerifierEnvironmentMode.shared and self.environment is not None:
            raise ValueError("[verifier].environment_mode='shared' is incompatible with [verifier.environment]")
        return self

    @property
    def effective_mode(self) -> VerifierEnvironmentMode:
        if self.environment_mode is not None:
            return self.environment_mode
        return VerifierEnvironmentMode.separate if self.environment is not None else VerifierEnvironmentMode.shared


class ArtifactConfig(_Section):
    source: str
    destination: str | None = None
    exclude: list[str] = Field(default_factory=list)
    service: str | None = None

    @field_validator("source")
    @classmethod
    def _source(cls, value: str) -> str:
        if ".." in PurePosixPath(value).parts:
            raise ValueError(f"artifact source must not contain '..' components, got: {value!r}")
        return value

    _service = field_validator("service")(classmethod(lambda cls, value: _service_name(value)))


class StepConfig(_Section):
    """One `[[steps]]` entry: its files live in `steps/<name>/` (instruction.md, tests/, solution/)."""

    name: str
    agent: AgentConfig = Field(default_factory=AgentConfig)
    verifier: VerifierConfig = Field(default_factory=VerifierConfig)
    min_reward: float | dict[str, float] | None = None
    """Below it (the `reward` key, or every key of a table) the remaining steps are not run."""
    healthcheck: HealthcheckConfig | None = None
    artifacts: list[str | ArtifactConfig] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _portable_name(cls, name: str) -> str:
        if (
            not name.strip()
            or name in {".", ".."}
            or name.endswith((".", " "))
            or _STEP_NAME_BAD.search(name)
            or _WINDOWS_DEVICE.fullmatch(name.partition(".")[0].rstrip(" "))
            or len(name.encode()) > 255
        ):
            raise ValueError(f"invalid step name {name!r}: it must be one portable directory name")
        return name


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
    multi_step_reward_strategy: MultiStepRewardStrategy | None = None
    """Multi-step tasks only; unset there means `mean`."""
    steps: list[StepConfig] | None = None
    """`[[steps]]`: a multi-step task (none: a single-step one, its files at the root)."""
    artifacts: list[str | ArtifactConfig] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _version_rename(cls, data: Any) -> Any:
        if isinstance(data, dict) and "version" in data:
            data = dict(data)
            data.setdefault("schema_version", data.pop("version"))
        return data

    @field_validator("steps")
    @classmethod
    def _unique_steps(cls, steps: list[StepConfig] | None) -> list[StepConfig] | None:
        seen: set[str] = set()
        for step in steps or []:
            key = unicodedata.normalize("NFC", step.name).casefold()
            if key in seen:
                raise ValueError(f"step names must be unique (case and Unicode normalisation aside): {step.name!r}")
            seen.add(key)
        return steps

    @property
    def is_multi_step(self) -> bool:
        return bool(self.steps)

    @classmethod
    def from_toml(cls, text: str) -> TaskConfig:
        """Raises: tomllib.TOMLDecodeError, pydantic.ValidationError."""
        return cls.model_validate(tomllib.loads(text))

    def to_toml(self) -> str:
        """Deterministic TOML: `schema_version` first, then fields in model order, each written when it
        was set or differs from its default (None never, empty values only for a set optional field);
        `[[steps]]` and other lists of tables as arrays of tables."""
        return dumps_toml({"schema_version": self.schema_version, **_written(self)})


def unknown_keys(config: BaseModel, prefix: str = "") -> list[str]:
    """Dotted names of every key the mirror does not know (Harbor ignores them too); list items as `name[i]`."""
    found = [f"{prefix}{key}" for key in sorted(config.model_extra or {})]
    for name in type(config).model_fields:
        value = getattr(config, name)
        if isinstance(value, _Section):
            found += unknown_keys(value, f"{prefix}{name}.")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, _Section):
                    found += unknown_keys(item, f"{prefix}{name}[{index}].")
    return found


def _written(model: BaseModel) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, info in type(model).model_fields.items():
        if info.exclude:
            continue
        value = getattr(model, name)
        is_set = name in model.model_fields_set
        optional = info.default is None
        if isinstance(value, BaseModel):
            section = _written(value)
            if section or (is_set and optional):
                out[name] = section
            continue
        if isinstance(value, list) and any(isinstance(item, BaseModel) for item in value):
            out[name] = [_written(item) if isinstance(item, BaseModel) else _prune(to_jsonable_python(item))
                         for item in value]  # fmt: skip
            continue
        plain = _prune(to_jsonable_python(value))
        if plain is None or ((plain == {} or plain == []) and not (is_set and optional)):
            continue
        if is_set or plain != _prune(to_jsonable_python(info.get_default(call_default_factory=True))):
            out[name] = plain
    for key, value in (model.model_extra or {}).items():
        if (plain := _prune(to_jsonable_python(value))) is not None:
            out[key] = plain
    return out


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
    """TOML for nested dicts of scalars and lists; `None` left out. A non-empty list of tables only is
    written as an array of tables (`[[name]]`), a mixed one inline."""
    lines: list[str] = []
    _emit_table(lines, [], data)
    return "\n".join(lines).strip("\n") + "\n"


def _tables(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(item, dict) for item in value)


def _emit_table(lines: list[str], path: list[str], table: dict[str, Any], *, array: bool = False) -> None:
    scalars = [(k, v) for k, v in table.items() if v is not None and not isinstance(v, dict) and not _tables(v)]
    nested = [(k, v) for k, v in table.items() if isinstance(v, dict) or _tables(v)]
    header = ".".join(_key(p) for p in path)
    if array:
        lines += ["", f"[[{header}]]"]
    elif path and (scalars or not nested):
        lines += ["", f"[{header}]"]
    lines += [f"{_key(k)} = {_value(v)}" for k, v in scalars]
    for key, sub in nested:
        if isinstance(sub, dict):
            _emit_table(lines, [*path, key], sub)
        else:
            for item in sub:
                _emit_table(lines, [*path, key], item, array=True)


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
