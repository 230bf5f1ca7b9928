"""Where skill2env keeps its state: the lake, the object store and Dagster's instance.

A home's profile (`embedded`, the default, or `cluster`) is `$SKILL2ENV_PROFILE`, else `cluster` when the
home has a `cluster.toml` (read in full by `skill2env.cluster.profile`). In the cluster profile each
worker has a home of its own, and what every worker must see (the task store, trajectories, exports,
the pipeline settings) lives under the cluster's shared storage, `[storage] path`: the home's
`data_root`."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path

PACKAGE_DIR = Path(str(files("skill2env")))
"""The installed package; its data (`sql/`, `dagster.yaml`, the example skills) ships inside it."""
EXAMPLE_SKILLS = PACKAGE_DIR / "examples" / "skills"
DAGSTER_YAML = PACKAGE_DIR / "dagster.yaml"
DEFAULT_ITERATIONS = 2
ITERATIONS_VARIABLE = "SKILL2ENV_ITERATIONS"
"""Hardening iterations of the definitions: this variable, else `<home>/pipeline.toml`, else the default."""
PROFILE_VARIABLE = "SKILL2ENV_PROFILE"
EMBEDDED, CLUSTER = "embedded", "cluster"
CLUSTER_CONFIG = "cluster.toml"
CODE_LOCATION = "skill2env"
"""The code location's name in the UI (as `[tool.dagster]` in pyproject.toml names it); the CLI's runs
are runs of its jobs."""


@dataclass(frozen=True)
class Home:
    root: Path

    @classmethod
    def resolve(cls, explicit: str | Path | None = None) -> Home:
        """`explicit`, else `$SKILL2ENV_HOME`, else `./.skill2env`."""
        chosen = explicit or os.environ.get("SKILL2ENV_HOME") or ".skill2env"
        return cls(Path(chosen).expanduser().resolve())

    @property
    def lake_path(self) -> Path:
        return self.root / "lake.duckdb"

    @property
    def cluster_config(self) -> Path:
        return self.root / CLUSTER_CONFIG

    @property
    def profile(self) -> str:
        chosen = os.environ.get(PROFILE_VARIABLE) or (CLUSTER if self.cluster_config.is_file() else EMBEDDED)
        if chosen not in (EMBEDDED, CLUSTER):
            raise ProfileError(f"${PROFILE_VARIABLE} must be {EMBEDDED!r} or {CLUSTER!r}, not {chosen!r}")
        return chosen

    @property
    def data_root(self) -> Path:
        """Where the task store, trajectories, exports and pipeline settings live: the home itself, or
        in the cluster profile the shared storage its `cluster.toml` names (`[storage] path`), if any."""
        if self.profile == EMBEDDED or not self.cluster_config.is_file():
            return self.root
        shared = _shared_storage(self.cluster_config, self.cluster_config.stat().st_mtime_ns)
        return shared if shared is not None else self.root

    @property
    def pipeline_config(self) -> Path:
        """Settings that shape the definitions (`iterations`), shared by the CLI, the UI and the workers."""
        return self.data_root / "pipeline.toml"

    @property
    def dagster_home(self) -> Path:
        return self.root / "dagster"

    def prepare_dagster_home(self, instance_yaml: str | None = None) -> Path:
        """Create DAGSTER_HOME with `instance_yaml`, by default the package's `dagster.yaml` (rewritten
        whenever it differs)."""
        self.dagster_home.mkdir(parents=True, exist_ok=True)
        text = DAGSTER_YAML.read_text(encoding="utf-8") if instance_yaml is None else instance_yaml
        target = self.dagster_home / "dagster.yaml"
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        return self.dagster_home


class ProfileError(ValueError):
    """An unknown profile, or a `cluster.toml` that is missing or not valid."""


@cache
def _shared_storage(config: Path, _mtime_ns: int) -> Path | None:
    """`[storage] path` of a `cluster.toml` (cached per file version: every task store asks)."""
    try:
        raw = tomllib.loads(config.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{config}: {exc}") from exc
    storage = raw.get("storage", {})
    path = storage.get("path") if isinstance(storage, dict) else None
    if path is None:
        return None
    if not isinstance(path, str) or not path.strip():
        raise ProfileError(f"{config} [storage]: path must be a non-empty string")
    return Path(path).expanduser()


def default_skills_root() -> Path:
    """`$SKILL2ENV_SKILLS`, else the example skills the project ships."""
    configured = os.environ.get("SKILL2ENV_SKILLS")
    return Path(configured).expanduser().resolve() if configured else EXAMPLE_SKILLS


def activate_home(home: Home, instance_yaml: str | None = None) -> None:
    """Point Dagster and the lake resource at `home` for this process and the processes it starts
    (`instance_yaml`: see `Home.prepare_dagster_home`)."""
    os.environ["SKILL2ENV_HOME"] = str(home.root)
    os.environ["DAGSTER_HOME"] = str(home.prepare_dagster_home(instance_yaml))


class PipelineConfigError(ValueError):
    """`<home>/pipeline.toml` or `$SKILL2ENV_ITERATIONS` holds something that is not a valid setting."""


def configured_iterations(home: Home) -> int:
    """The hardening iterations the definitions unroll: `$SKILL2ENV_ITERATIONS`, else `iterations` in
    `<home>/pipeline.toml` (written by `skill2env run`), else `DEFAULT_ITERATIONS`."""
    raw: object = os.environ.get(ITERATIONS_VARIABLE) or None
    source = f"${ITERATIONS_VARIABLE}"
    if raw is None and home.pipeline_config.is_file():
        try:
            raw = tomllib.loads(home.pipeline_config.read_text(encoding="utf-8")).get("iterations")
        except tomllib.TOMLDecodeError as exc:
            raise PipelineConfigError(f"{home.pipeline_config}: {exc}") from exc
        source = str(home.pipeline_config)
    if raw is None:
        return DEFAULT_ITERATIONS
    try:
        iterations = int(str(raw))
    except ValueError:
        iterations = -1
    if iterations < 0:
        raise PipelineConfigError(f"{source}: iterations must be a whole number >= 0, not {raw!r}")
    return iterations


def save_iterations(home: Home, iterations: int) -> None:
    """Record `iterations` in `<data root>/pipeline.toml`, where the UI's and the workers' definitions read it."""
    home.pipeline_config.parent.mkdir(parents=True, exist_ok=True)
    home.pipeline_config.write_text(
        "# Written by `skill2env run`; read by the definitions the CLI and `skill2env ui` load.\n"
        f"iterations = {iterations}\n",
        encoding="utf-8",
    )
