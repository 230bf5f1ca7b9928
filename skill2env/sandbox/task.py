"""A Harbor task directory as a sandbox sees it: paths, the parsed `task.toml`, limits, the environment's digest.

`config` is the project's one `task.toml` model (`skill2env.tasks.harbor_config`, Harbor's fields and
defaults). Where Harbor leaves a value unset, the sandbox's own default applies at the point of use
(`DEFAULT_AGENT_TIMEOUT_SEC` here, the resource defaults in `SandboxLimits.for_task`).

A multi-step task (`[[steps]]`) is run as its first step only: `instruction`, `tests_dir` and
`solution_dir` are that step's (`steps/<name>/...`, as Harbor lays them out), and reading such a
task's config logs a warning saying so. Its other steps are kept with the task, never run.
"""

from __future__ import annotations

import hashlib
import logging
import posixpath
import tomllib
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from skill2env.sandbox.errors import SandboxError
from skill2env.tasks.harbor_config import NetworkMode, TaskConfig

DEFAULT_WORKDIR = "/workspace"
DEFAULT_AGENT_TIMEOUT_SEC = 600.0
"""Harbor leaves `[agent] timeout_sec` unset (no limit); a sandbox always needs a wall clock."""
DEFAULT_SKILL_MOUNT = "/skills"

logger = logging.getLogger(__name__)


class TaskFormatError(SandboxError, ValueError):
    """A task directory lacks a required file or its `task.toml` does not parse."""


class TaskDir:
    """A Harbor task directory: one property per file, `is_valid()`, the parsed config and digests."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def __repr__(self) -> str:
        return f"TaskDir({str(self.root)!r})"

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def task_toml(self) -> Path:
        return self.root / "task.toml"

    @property
    def step_dir(self) -> Path:
        """Where the run step's files live: the root, or `steps/<first step>/` for a multi-step task."""
        step = self.run_step
        return self.root if step is None else self.root / "steps" / step

    @property
    def instruction(self) -> Path:
        return self.step_dir / "instruction.md"

    @property
    def environment_dir(self) -> Path:
        return self.root / "environment"

    @property
    def dockerfile(self) -> Path:
        return self.environment_dir / "Dockerfile"

    @property
    def skill_dir(self) -> Path:
        """The skill folder the task exercises (docker copies it into the image; bwrap binds it)."""
        return self.environment_dir / "skill"

    @property
    def workspace_dir(self) -> Path:
        """The workspace's initial files (copied to the workdir by the Dockerfile, bound there by bwrap)."""
        return self.environment_dir / "workspace"

    @property
    def tests_dir(self) -> Path:
        """`tests/`; a multi-step task's first step's own when it has a test script, else the shared one."""
        own = self.step_dir / "tests"
        return own if (own / "test.sh").is_file() else self.root / "tests"

    @property
    def test_script(self) -> Path:
        return self.tests_dir / "test.sh"

    @property
    def solution_dir(self) -> Path:
        """`solution/`; a multi-step task's first step's own when it has a solve script, else the shared one."""
        own = self.step_dir / "solution"
        return own if (own / "solve.sh").is_file() else self.root / "solution"

    @property
    def solve_script(self) -> Path:
        return self.solution_dir / "solve.sh"

    def missing_files(self) -> list[str]:
        required = (self.task_toml, self.instruction, self.test_script)
        missing = [str(p.relative_to(self.root)) for p in required if not p.is_file()]
        if not self.dockerfile.is_file() and self.config.environment.docker_image is None:
            missing.append("environment/Dockerfile")
        return missing

    def is_valid(self) -> bool:
        try:
            return not self.missing_files()
        except TaskFormatError:
            return False

    @cached_property
    def config(self) -> TaskConfig:
        """Raises: TaskFormatError: `task.toml` is missing or malformed."""
        try:
            config = TaskConfig.model_validate(tomllib.loads(self.task_toml.read_text()))
        except (OSError, tomllib.TOMLDecodeError, ValidationError) as exc:
            raise TaskFormatError(f"{self.task_toml}: {exc}") from exc
        if config.steps:
            names = ", ".join(step.name for step in config.steps)
            logger.warning("%s is a multi-step task (%s): only its first step, %r, is run here",
                           self.root, names, config.steps[0].name)  # fmt: skip
        return config

    @property
    def run_step(self) -> str | None:
        """The step run (the first of `[[steps]]`), or None for a single-step task (or an unreadable config)."""
        try:
            steps = self.config.steps
        except TaskFormatError:
            return None
        return steps[0].name if steps else None

    @property
    def agent_timeout_sec(self) -> float:
        """`[agent] timeout_sec` (the run step's when it sets one), else `DEFAULT_AGENT_TIMEOUT_SEC`."""
        config = self.config
        timeout = config.steps[0].agent.timeout_sec if config.steps else None
        if timeout is None:
            timeout = config.agent.timeout_sec
        return DEFAULT_AGENT_TIMEOUT_SEC if timeout is None else timeout

    @property
    def verifier_timeout_sec(self) -> float:
        """`[verifier] timeout_sec`, the run step's for a multi-step task."""
        config = self.config
        return config.steps[0].verifier.timeout_sec if config.steps else config.verifier.timeout_sec

    @property
    def network_enabled(self) -> bool:
        """Only a written-out `[environment] network_mode = "public"` opens the network.

        Harbor's default (public) and `allow_internet` alone do not: a sandbox is offline unless
        the task asks for the network explicitly."""
        return self.config.environment.network_requested == NetworkMode.public

    @property
    def skill2env_metadata(self) -> dict[str, Any]:
        """`[metadata.skill2env]`: the lineage skill2env writes (empty for other tasks)."""
        lineage = self.config.metadata.get("skill2env")
        return dict(lineage) if isinstance(lineage, dict) else {}

    @property
    def skill_mount(self) -> str:
        """Where the task's skill folder (`environment/skill/`) is available inside the environment."""
        return str(self.skill2env_metadata.get("skill_mount") or DEFAULT_SKILL_MOUNT)

    @property
    def author(self) -> str | None:
        """Who built the task (`offline:<kit>`, `model:<name>`), from `[metadata.skill2env]`."""
        author = self.skill2env_metadata.get("author")
        return None if author is None else str(author)

    @cached_property
    def environment_digest(self) -> str:
        """sha256 over environment/: every file's relative path, executable bit and bytes (links: target)."""
        digest = hashlib.sha256()
        for path in sorted(self.environment_dir.rglob("*")):
            relative = path.relative_to(self.environment_dir).as_posix()
            if path.is_symlink():
                digest.update(f"link\0{relative}\0{path.readlink()}\0".encode())
            elif path.is_file():
                executable = "x" if path.stat().st_mode & 0o111 else "-"
                digest.update(f"file\0{relative}\0{executable}\0".encode())
                digest.update(hashlib.sha256(path.read_bytes()).digest())
        return digest.hexdigest()

    @cached_property
    def workdir(self) -> str:
        """The Dockerfile's last WORKDIR (the agent's workspace), else /workspace."""
        return workdir_of(self.dockerfile.read_text()) if self.dockerfile.is_file() else DEFAULT_WORKDIR


def workdir_of(dockerfile: str) -> str:
    """Where a Dockerfile leaves its working directory: WORKDIRs applied in order (relative ones join)."""
    current = ""
    for line in dockerfile.splitlines():
        words = line.strip().split(maxsplit=1)
        if len(words) == 2 and words[0].upper() == "WORKDIR":
            current = posixpath.normpath(posixpath.join(current or "/", words[1].strip().strip("\"'")))
    return current or DEFAULT_WORKDIR
