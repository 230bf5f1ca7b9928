"""Where skill2env keeps its state: the lake, the object store and Dagster's instance."""

from __future__ import annotations

import os
import shutil
import tomllib
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

PACKAGE_DIR = Path(str(files("skill2env")))
"""The installed package; its data (`sql/`, `dagster.yaml`, the example skills) ships inside it."""
EXAMPLE_SKILLS = PACKAGE_DIR / "examples" / "skills"
DAGSTER_YAML = PACKAGE_DIR / "dagster.yaml"
DEFAULT_ITERATIONS = 2
ITERATIONS_VARIABLE = "SKILL2ENV_ITERATIONS"
"""Hardening iterations of the definitions: this variable, else `<home>/pipeline.toml`, else the default."""
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
    def pipeline_config(self) -> Path:
        """Settings that shape the definitions (`iterations`), shared by the CLI and the UI."""
        return self.root / "pipeline.toml"

    @property
    def dagster_home(self) -> Path:
        return self.root / "dagster"

    def prepare_dagster_home(self) -> Path:
        """Create DAGSTER_HOME with the package's `dagster.yaml` (refreshed when the package's changes)."""
        self.dagster_home.mkdir(parents=True, exist_ok=True)
        target = self.dagster_home / "dagster.yaml"
        if not target.exists() or target.read_bytes() != DAGSTER_YAML.read_bytes():
            shutil.copyfile(DAGSTER_YAML, target)
        return self.dagster_home


def default_skills_root() -> Path:
    """`$SKILL2ENV_SKILLS`, else the example skills the project ships."""
    configured = os.environ.get("SKILL2ENV_SKILLS")
    return Path(configured).expanduser().resolve() if configured else EXAMPLE_SKILLS


def activate_home(home: Home) -> None:
    """Point Dagster and the lake resource at `home` for this process and the processes it starts."""
    os.environ["SKILL2ENV_HOME"] = str(home.root)
    os.environ["DAGSTER_HOME"] = str(home.prepare_dagster_home())


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
    """Record `iterations` in `<home>/pipeline.toml`, where the UI's definitions read it."""
    home.root.mkdir(parents=True, exist_ok=True)
    home.pipeline_config.write_text(
        "# Written by `skill2env run`; read by the definitions the CLI and `skill2env ui` load.\n"
        f"iterations = {iterations}\n",
        encoding="utf-8",
    )
