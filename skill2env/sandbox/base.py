"""The sandbox interface every backend implements, the result of a command, and a rollout's limits."""

from __future__ import annotations

import os
import shlex
import uuid
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import ClassVar

from pydantic import BaseModel, Field

from skill2env.sandbox.errors import SandboxNotRunning
from skill2env.sandbox.task import TaskDir

DEFAULT_EXEC_TIMEOUT_S = 120.0
KILL_GRACE_S = 5
"""After a command's timeout it gets SIGTERM, and SIGKILL this many seconds later (`timeout -k`)."""
TIMEOUT_EXIT_CODES = frozenset({124, 137})
"""What `timeout -k` exits with when it had to stop the command (SIGTERM honoured / SIGKILL needed)."""
SANDBOX_TMP = "/tmp"  # noqa: S108 — a path inside the sandbox, private to it
AGENT_USER = "agent"
ROOT_USER = "root"


class ExecResult(BaseModel):
    """What one command in a sandbox did."""

    exit_code: int
    stdout: str = ""
    stderr: str = ""
    duration_s: float
    """Wall time of the command as the host saw it, including the backend's overhead."""
    timed_out: bool = False
    output_truncated: bool = False
    """stdout or stderr went past the output limit; the rest was read and dropped."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


TASK_DEFAULT_CPUS = 1.0
TASK_DEFAULT_MEMORY_MB = 2048
TASK_DEFAULT_STORAGE_MB = 10240
"""What a task that leaves `[environment]` cpus / memory_mb / storage_mb unset gets (Harbor sets no default)."""


class SandboxLimits(BaseModel):
    """Resources one rollout may use; every backend enforces what it can of them."""

    cpus: float = 1.0
    memory_mb: int = 2048
    pids: int = 256
    """Processes (docker: the container's pids cgroup; bwrap: RLIMIT_NPROC of the sandbox's host user)."""
    storage_mb: int = 1024
    """Size of the writable workspace (a size-limited tmpfs in both backends)."""
    tmp_mb: int = 256
    wall_clock_s: float = 3600.0
    """The whole rollout: past it the sandbox is torn down whatever runs in it."""
    network: bool = False
    output_limit_bytes: int = 1 << 20
    """Per stream and command: more is read and dropped, so a flood cannot exhaust the host's memory."""
    open_files: int = 4096
    environment: dict[str, str] = Field(default_factory=dict)
    """Extra variables for every command."""
    loader_capabilities: bool = False
    """docker: root in the container keeps CHOWN, DAC_OVERRIDE and FOWNER (otherwise it has none), for a
    verifier that loads the host's own candidate workspaces and drops them before any check runs (the
    hack-probe batch); never for a sandbox an agent acts in. bwrap: ignored (its root can already)."""

    @classmethod
    def for_task(cls, task: TaskDir, **overrides: object) -> SandboxLimits:
        """Limits from `task.toml`: cpus, memory, storage, network, and a wall clock covering agent + verifier.

        Harbor leaves cpus, memory and storage unset by default; unset, they are `TASK_DEFAULT_CPUS`,
        `TASK_DEFAULT_MEMORY_MB` and `TASK_DEFAULT_STORAGE_MB`."""
        env = task.config.environment
        values: dict[str, object] = {
            "cpus": TASK_DEFAULT_CPUS if env.cpus is None else env.cpus,
            "memory_mb": TASK_DEFAULT_MEMORY_MB if env.memory_mb is None else env.memory_mb,
            "storage_mb": TASK_DEFAULT_STORAGE_MB if env.storage_mb is None else env.storage_mb,
            "network": task.network_enabled,
            "wall_clock_s": task.agent_timeout_sec + task.verifier_timeout_sec + 60.0,
        }
        return cls.model_validate({**values, **overrides})


def new_rollout_id() -> str:
    return uuid.uuid4().hex[:16]


def owner_token() -> str:
    """This process, told apart from a later one that reuses its pid: `<boot id>:<pid>:<start time>`."""
    return f"{_boot_id()}:{os.getpid()}:{_process_start_time(os.getpid())}"


def owner_is_alive(token: str) -> bool:
    """Whether the process a token names still runs. A token from another boot names a dead process
    (engines shared between hosts are out of scope: there the rollout's deadline label decides)."""
    boot, _, rest = token.partition(":")
    pid_text, _, started = rest.partition(":")
    if not pid_text.isdigit():
        return False
    if boot != _boot_id():
        return False
    alive = _process_start_time(int(pid_text))
    return alive != "" and alive == started


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return "unknown-boot"


def _process_start_time(pid: int) -> str:
    """The process's start time in clock ticks since boot; '' when it is gone or a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    # The command name (field 2) may hold spaces or parentheses; fields after it are plain.
    fields = stat.rsplit(")", 1)[1].split()
    return "" if fields[0] in ("Z", "X") else fields[19]


def shell_command(cmd: str | Sequence[str]) -> list[str]:
    """A command as argv: a string runs through bash, a sequence runs as is."""
    return ["bash", "-c", cmd] if isinstance(cmd, str) else list(cmd)


def describe(cmd: str | Sequence[str]) -> str:
    return cmd if isinstance(cmd, str) else shlex.join(cmd)


class Sandbox(ABC):
    """One rollout's isolated machine. Use as a context manager, or call `start` and `stop`.

    Commands run as the unprivileged `agent` user unless `user="root"` is asked for (a root
    without capabilities). Paths inside the sandbox are POSIX strings; host paths are `Path`s.
    """

    backend: ClassVar[str]

    def __init__(self, limits: SandboxLimits | None = None, *, rollout_id: str | None = None) -> None:
        self.limits = limits or SandboxLimits()
        self.rollout_id = rollout_id or new_rollout_id()
        self._task: TaskDir | None = None
        self.mode: str | None = None
        """How the started sandbox runs, `<backend>:<how>` (`bwrap:image-rootfs`, `docker:attach`,
        `docker:exec-fallback`, …): recorded with what ran in it, so a fallback is never silent.
        None before `start`."""

    @property
    def task(self) -> TaskDir:
        if self._task is None:
            raise SandboxNotRunning("the sandbox has not been started")
        return self._task

    @property
    def workspace(self) -> str:
        """The workspace path inside the sandbox (the task Dockerfile's WORKDIR)."""
        return self.task.workdir

    def grant_loader_capabilities(self) -> bool:
        """Before `start`, for a verification sandbox no agent acts in: let its root load workspaces with
        any owner and mode (`SandboxLimits.loader_capabilities`). Whether anything was granted, which the
        verifier then drops before any check runs; a backend whose root can already grants nothing."""
        return False

    @abstractmethod
    def start(self, task: TaskDir) -> None:
        """Create the sandbox for `task` with the workspace's initial files.

        Raises:
            SandboxUnavailable: the backend cannot run here.
            ImageBuildError: the task's image could not be built.
        """

    @abstractmethod
    def exec(
        self,
        cmd: str | Sequence[str],
        *,
        timeout: float = DEFAULT_EXEC_TIMEOUT_S,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        user: str = AGENT_USER,
    ) -> ExecResult:
        """Run `cmd` (a string through bash, or argv) in `cwd` (default: the workspace).

        Raises:
            SandboxTimeout: it ran past `timeout`; its partial result is on the exception.
            SandboxDeadlineExceeded: the rollout's wall clock ran out.
            SandboxCrashed: the sandbox died under it.
            SandboxNotRunning: not started, or stopped.
        """

    @abstractmethod
    def read_file(self, path: str) -> bytes:
        """Raises: SandboxPathError: missing, a directory, or unreadable."""

    @abstractmethod
    def write_file(self, path: str, data: bytes | str) -> None:
        """Create or replace a file, owned by the agent user (parents are created).

        Raises: SandboxPathError: outside the sandbox's writable mounts.
        """

    @abstractmethod
    def copy_in(self, source: Path, destination: str) -> None:
        """Copy a host file or directory to `destination` (its full new path), owned by the agent user."""

    @abstractmethod
    def copy_out(self, source: str, destination: Path) -> None:
        """Copy a file or directory out of the sandbox to `destination` (its full new path); links stay links."""

    def copy_out_last(self, source: str, destination: Path) -> None:
        """`copy_out` as the sandbox's last use (the final workspace): a backend may stop or freeze
        what runs in it first, or read it by a faster way; after it, only `stop`."""
        self.copy_out(source, destination)

    @abstractmethod
    def stop(self) -> None:
        """Tear everything down (processes, container, volumes, mounts). Idempotent; never raises for
        a sandbox already gone."""

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
