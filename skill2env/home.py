"""Where skill2env keeps its state: the lake, the object store and Dagster's instance."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

PACKAGE_DIR = Path(str(files("skill2env")))
"""The installed package; its data (`sql/`, `dagster.yaml`, the example skills) ships inside it."""
EXAMPLE_SKILLS = PACKAGE_DIR / "examples" / "skills"
DAGSTER_YAML = PACKAGE_DIR / "dagster.yaml"


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
