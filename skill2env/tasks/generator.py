"""Run an author's workspace generator: model-written Python that writes the initial workspace.

Large workspaces (thousands of log lines, a corpus of records) are not pasted into a prompt: the
author writes a standard-library script and the builder runs it. The script is model output, so
it runs in a sandbox (`bwrap` by default): fresh namespaces with no network, the host system
read-only, an empty private workspace as its working directory, rlimits, a wall clock. Then the
regular files it wrote are collected, capped in count and size; a link, an oversized file or too
many files make the run fail rather than be trimmed silently.

    files = SandboxGeneratorRunner().run(script)      # relative posix path → bytes
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from skill2env.sandbox import (
    BackendName,
    SandboxError,
    SandboxLimits,
    SandboxTimeout,
    SandboxUnavailable,
    TaskDir,
    make_sandbox,
)

SCRIPT_PATH = "/tmp/skill2env_generate.py"  # noqa: S108 — the sandbox's private /tmp
STDERR_TAIL_CHARS = 1500


class GeneratorError(RuntimeError):
    """The generator did not produce a usable workspace: it failed, timed out, wrote too much or a link."""


class GeneratorUnavailable(GeneratorError):
    """No sandbox can run a generator on this machine (bwrap missing or not permitted)."""


@dataclass(frozen=True)
class GeneratorLimits:
    timeout_s: float = 60.0
    max_files: int = 2000
    max_file_bytes: int = 8 << 20
    max_total_bytes: int = 48 << 20
    memory_mb: int = 1024


class GeneratorRunner(Protocol):
    """Runs a generator script; returns the files it wrote (relative posix path → bytes).

    Raises:
        GeneratorUnavailable: nothing can run it here.
        GeneratorError: it failed, timed out, or wrote what the limits refuse.
    """

    def run(self, script: str) -> dict[str, bytes]: ...


class SandboxGeneratorRunner:
    """Runs `python3 -I <script>` in a fresh sandbox whose working directory is the empty workspace."""

    def __init__(self, backend: BackendName = "bwrap", limits: GeneratorLimits | None = None) -> None:
        self.backend: BackendName = backend
        self.limits = limits or GeneratorLimits()

    def run(self, script: str) -> dict[str, bytes]:
        limits = self.limits
        sandbox_limits = SandboxLimits(
            cpus=1.0,
            memory_mb=limits.memory_mb,
            pids=64,
            storage_mb=(limits.max_total_bytes >> 20) + 16,
            wall_clock_s=limits.timeout_s + 30,
            network=False,
            output_limit_bytes=64 << 10,
        )
        with tempfile.TemporaryDirectory(prefix="skill2env-generator-") as scratch:
            task_root = Path(scratch) / "task"
            (task_root / "environment").mkdir(parents=True)
            (task_root / "task.toml").write_text('[environment]\nnetwork_mode = "no-network"\n')
            out = Path(scratch) / "out"
            sandbox = make_sandbox(self.backend, sandbox_limits)
            try:
                sandbox.start(TaskDir(task_root))
                sandbox.write_file(SCRIPT_PATH, script)
                result = sandbox.exec(["python3", "-I", SCRIPT_PATH], timeout=limits.timeout_s)
                if not result.ok:
                    raise GeneratorError(f"the generator exited with {result.exit_code}: {_tail(result.stderr)}")
                sandbox.copy_out(sandbox.workspace, out)
            except SandboxUnavailable as exc:
                raise GeneratorUnavailable(f"no {self.backend} sandbox to run the generator in: {exc}") from exc
            except SandboxTimeout as exc:
                raise GeneratorError(f"the generator ran past its {limits.timeout_s:g} s limit") from exc
            except SandboxError as exc:
                raise GeneratorError(f"the sandbox failed under the generator: {exc}") from exc
            finally:
                sandbox.stop()
            return collect_files(out, limits)


def collect_files(root: Path, limits: GeneratorLimits) -> dict[str, bytes]:
    """The regular files below `root` (relative posix path → bytes), sorted.

    Raises:
        GeneratorError: a link, more than `max_files` files, a file or a total over its cap.
    """
    files: dict[str, bytes] = {}
    total = 0
    for folder, dirs, names in os.walk(root):
        for name in sorted(dirs + names):
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                raise GeneratorError(f"the generator wrote a link ({relative}); write regular files only")
            if name in names and not path.is_file():
                raise GeneratorError(f"the generator wrote {relative}, which is not a regular file")
        for name in names:
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            size = path.stat().st_size
            if size > limits.max_file_bytes:
                raise GeneratorError(f"{relative} is {size} bytes; a workspace file may have {limits.max_file_bytes}")
            total += size
            if total > limits.max_total_bytes:
                raise GeneratorError(f"the generator wrote more than {limits.max_total_bytes} bytes")
            if len(files) >= limits.max_files:
                raise GeneratorError(f"the generator wrote more than {limits.max_files} files")
            files[relative] = path.read_bytes()
    return dict(sorted(files.items()))


def _tail(text: str) -> str:
    text = text.strip()
    return ("…" + text[-STDERR_TAIL_CHARS:]) if len(text) > STDERR_TAIL_CHARS else (text or "(no output)")
