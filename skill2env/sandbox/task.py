"""The slice of a Harbor task directory a sandbox needs: paths, limits, timeouts, the environment's digest.

Deliberately minimal (the full Harbor model lives elsewhere): unknown `task.toml` keys are
ignored, and only what starting, limiting and timing a sandbox needs is read.
"""

from __future__ import annotations

import hashlib
import posixpath
import tomllib
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from skill2env.sandbox.errors import SandboxError

DEFAULT_WORKDIR = "/workspace"


class TaskFormatError(SandboxError, ValueError):
    """A task directory lacks a required file or its `task.toml` does not parse."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="ignore")


class AgentSection(_Section):
    timeout_sec: float = 600.0
    """Harbor leaves it unset (no limit); a sandbox always needs a wall clock, so 10 minutes."""


class VerifierSection(_Section):
    timeout_sec: float = 600.0


class EnvironmentSection(_Section):
    build_timeout_sec: float = 600.0
    docker_image: str | None = None
    """A prebuilt image to use instead of building `environment/Dockerfile`."""
    cpus: float = 1.0
    memory_mb: int = 2048
    storage_mb: int = 10240
    network_mode: Literal["public", "no-network", "allowlist"] | None = None
    """Only `public` opens the network. Harbor's `allow_internet` (default true) is not honoured:
    a sandbox is offline unless the task asks for the network explicitly."""


class Skill2envMetadata(_Section):
    skill_mount: str = "/skills"
    """Where the task's skill folder (`environment/skill/`) is available inside the environment."""
    author: str | None = None
    """Who built the task: `offline:<kit>` or `model:<name>`."""


class MetadataSection(_Section):
    skill2env: Skill2envMetadata = Field(default_factory=Skill2envMetadata)


class TaskConfig(_Section):
    """The sections of Harbor's `task.toml` a sandbox reads."""

    metadata: MetadataSection = Field(default_factory=MetadataSection)
    agent: AgentSection = Field(default_factory=AgentSection)
    verifier: VerifierSection = Field(default_factory=VerifierSection)
    environment: EnvironmentSection = Field(default_factory=EnvironmentSection)

    @property
    def network_enabled(self) -> bool:
        return self.environment.network_mode == "public"


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
    def instruction(self) -> Path:
        return self.root / "instruction.md"

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
        return self.root / "tests"

    @property
    def test_script(self) -> Path:
        return self.tests_dir / "test.sh"

    @property
    def solution_dir(self) -> Path:
        return self.root / "solution"

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
            return TaskConfig.model_validate(tomllib.loads(self.task_toml.read_text()))
        except (OSError, tomllib.TOMLDecodeError, ValidationError) as exc:
            raise TaskFormatError(f"{self.task_toml}: {exc}") from exc

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
