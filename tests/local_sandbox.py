"""A test double of `Sandbox`: commands run as plain subprocesses in a temporary workspace on the host.

No isolation at all — for unit tests of the agent loop and its tools, which need real commands
and files but not a container. The workspace is a host directory; `workspace` returns its path.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from skill2env.sandbox.base import DEFAULT_EXEC_TIMEOUT_S, ExecResult, Sandbox, SandboxLimits, shell_command
from skill2env.sandbox.errors import SandboxCrashed, SandboxNotRunning, SandboxPathError, SandboxTimeout
from skill2env.sandbox.task import TaskDir


class LocalSandbox(Sandbox):
    backend = "local"

    def __init__(self, limits: SandboxLimits | None = None, *, rollout_id: str | None = None) -> None:
        super().__init__(limits, rollout_id=rollout_id)
        self.root: Path | None = None
        self.commands: list[str | list[str]] = []
        self.crash_on: str | None = None
        """A substring of a command that makes `exec` raise `SandboxCrashed` (the sandbox dying under it)."""
        self.start_error: Exception | None = None
        self.start_delay = 0.0

    @property
    def workspace(self) -> str:
        return str(self._root() / "workspace")

    @property
    def host_workspace(self) -> Path:
        """The workspace as a host path."""
        return self._root() / "workspace"

    def _root(self) -> Path:
        if self.root is None:
            raise SandboxNotRunning("not started")
        return self.root

    def start(self, task: TaskDir | None = None) -> None:
        time.sleep(self.start_delay)
        if self.start_error is not None:
            raise self.start_error
        self.root = Path(tempfile.mkdtemp(prefix="local-sandbox-"))
        workspace = self.root / "workspace"
        if task is not None and task.workspace_dir.is_dir():
            shutil.copytree(task.workspace_dir, workspace)
        workspace.mkdir(exist_ok=True)
        self._task = task

    def exec(
        self,
        cmd: str | Sequence[str],
        *,
        timeout: float = DEFAULT_EXEC_TIMEOUT_S,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        user: str = "agent",
    ) -> ExecResult:
        self.commands.append(cmd if isinstance(cmd, str) else list(cmd))
        if self.crash_on is not None and self.crash_on in (cmd if isinstance(cmd, str) else " ".join(cmd)):
            raise SandboxCrashed("the sandbox died under the command")
        started = time.monotonic()
        try:
            done = subprocess.run(
                shell_command(cmd), cwd=cwd or self.workspace, capture_output=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired as exc:
            partial = ExecResult(
                exit_code=124,
                stdout=(exc.stdout or b"").decode(errors="replace"),
                stderr=(exc.stderr or b"").decode(errors="replace"),
                duration_s=time.monotonic() - started,
                timed_out=True,
            )
            raise SandboxTimeout(f"ran past its {timeout:g} s timeout", partial) from exc
        return ExecResult(
            exit_code=done.returncode,
            stdout=done.stdout.decode(errors="replace"),
            stderr=done.stderr.decode(errors="replace"),
            duration_s=time.monotonic() - started,
        )

    def _host(self, path: str) -> Path:
        """Relative paths start at the workspace; other absolute ones stay inside the sandbox's root."""
        if path == self.workspace or path.startswith(self.workspace + "/"):
            return Path(path)
        if path.startswith("/"):
            return self._root() / path.lstrip("/")
        return Path(self.workspace) / path

    def read_file(self, path: str) -> bytes:
        host = self._host(path)
        if not host.is_file():
            raise SandboxPathError(f"{path} is not a file")
        return host.read_bytes()

    def write_file(self, path: str, data: bytes | str) -> None:
        host = self._host(path)
        host.parent.mkdir(parents=True, exist_ok=True)
        host.write_bytes(data.encode() if isinstance(data, str) else data)

    def copy_in(self, source: Path, destination: str) -> None:
        target = self._host(destination)
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True)
        else:
            shutil.copy2(source, target)

    def copy_out(self, source: str, destination: Path) -> None:
        host = self._host(source)
        if host.is_dir():
            shutil.copytree(host, destination, dirs_exist_ok=True)
        else:
            shutil.copy2(host, destination)

    def stop(self) -> None:
        root, self.root = self.root, None
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)
