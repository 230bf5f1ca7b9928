"""The bubblewrap backend: a fast local sandbox for machines without Docker and for many short rollouts.

The sandbox is a set of namespaces (user, pid, net, ipc, uts, cgroup) over the unpacked base
image's system directories (`rootfs`) bound read-only, never the host's own: where that file
system is missing, `start` raises `SandboxUnavailable` saying how to make it. The rollout's
private directories are bound in: the workspace,
/tmp, /logs (writable) and /tests, /solution (read-only). Its init is a command server
(`command_server`), started with the sandbox: the agent's commands are forked by it, so a
command costs no new namespaces. Nothing a command started survives it (the server kills what
it leaves behind), nothing in the sandbox can signal or trace the server, and when the server
ends (at `stop`, or with this process) the kernel ends every process in the namespace. Commands
as root get namespaces of their own per command, as every command did before the server (one
user namespace maps one uid); so do all commands where the system has no python3 or the server
cannot harden itself: a fallback logged, kept in `server_fallback`, and recorded in `mode`.

Limits come from `prlimit` (processes, address space, file size, open files). Run as root, the
rollout's directories live on a size-limited tmpfs, commands run as a dedicated unprivileged host
uid, and where the memory controller is writable the sandbox gets a memory cgroup of its own
(`MemoryCgroup`): `memory_mb` bounds everything in it together — the tmpfs pages its commands
write too — as a container's limit does, and the OOM killer acts inside it. Run as a user, commands
run as that user on a plain directory (file size capped per file, not in total; memory per
process).

When the command server dies or stops answering, the sandbox says whose doing it was
(`_server_lost`): the outer bwrap killed by a signal (only something on the host can reach it),
or the server ended by a signal that only the host can send it (SIGKILL without an OOM kill in the
sandbox's cgroup, SIGTERM, ...), or exiting by itself: outside, `SandboxCrashed`. The OOM killer
(counted by the sandbox's cgroup, or without one by the host's counter: the agent's commands are
its first choice, so it reaches the server only when the sandbox's own processes got it there), a
signal the kernel sends for what happened inside, or a server that stops answering while it still
runs (starved by the sandbox's processes): the agent's, `SandboxBroken`. The workspace stays on the
host either way, so such an attempt can still be scored.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import posixpath
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from skill2env.sandbox.base import (
    AGENT_USER,
    DEFAULT_EXEC_TIMEOUT_S,
    ROOT_USER,
    SANDBOX_TMP,
    ExecResult,
    Sandbox,
    SandboxLimits,
    describe,
    owner_token,
    shell_command,
)
from skill2env.sandbox.base_image import SANDBOX_UID, SANDBOX_USER
from skill2env.sandbox.command_client import (
    HARDENING_FAILED,
    STOP_WAIT_S,
    CommandServer,
    popen_from_lasting_thread,
    run_command,
    server_argv,
    server_end,
)
from skill2env.sandbox.copying import CopyBudget, left_out_of_copy
from skill2env.sandbox.errors import (
    CommandServerLost,
    SandboxBroken,
    SandboxCrashed,
    SandboxDeadlineExceeded,
    SandboxError,
    SandboxNotRunning,
    SandboxPathError,
    SandboxTimeout,
    SandboxUnavailable,
)
from skill2env.sandbox.reaper import OWNER_FILE, ROLLOUT_FS, reap_bwrap, remove_rollout_dir
from skill2env.sandbox.rootfs import (
    CONFIGURED_ROOT,
    configured_root,
    image_rootfs,
    missing_rootfs,
    needs_own_image,
    task_rootfs,
)
from skill2env.sandbox.task import TaskDir

logger = logging.getLogger(__name__)

HOST_UID = int(os.environ.get("SKILL2ENV_BWRAP_UID", "61000"))
"""The unprivileged host uid commands run as when skill2env runs as root (no other process should use it)."""
STORAGE_CAP_MB = int(os.environ.get("SKILL2ENV_BWRAP_STORAGE_CAP_MB", "2048"))
"""The rollout tmpfs is host RAM outside any memory cgroup, so Harbor's 10 GiB default storage is capped."""
SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
SYSTEM_ETC = (
    "alternatives",
    "ca-certificates",
    "debian_version",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "magic",
    "magic.mime",
    "mime.types",
    "nsswitch.conf",
    "os-release",
    "profile",
    "protocols",
    "python3",
    "python3.11",
    "services",
    "ssl/certs",
    "ssl/openssl.cnf",
)
"""What of the host's /etc a command sees: what programs need to run, nothing about the host."""
SANDBOX_ETC = {
    "passwd": f"root:x:0:0:root:{SANDBOX_TMP}:/bin/bash\n"
    f"{SANDBOX_USER}:x:{SANDBOX_UID}:{SANDBOX_UID}::{SANDBOX_TMP}:/bin/bash\n",
    "group": f"root:x:0:\n{SANDBOX_USER}:x:{SANDBOX_UID}:\n",
    "hostname": "sandbox\n",
}
ETC_VERSION = 2
"""Part of the /etc template's name: a new layout gets a new template."""
PRIVATE_DIRS = {SANDBOX_TMP: "tmp", "/logs": "logs"}
READ_ONLY_DIRS = {"/tests": "tests", "/solution": "solution"}
SKILL_COPY = "skill"
"""The task's skill folder, copied into the rollout and bound read-only at the task's skill mount."""
SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
KILLED_EXIT_CODE = 137
SERVER_LOG = "command-server.log"
"""The command server's stderr, beside (not in) the rollout's file system."""
SETPRIV = shutil.which("setpriv") or "/usr/bin/setpriv"
SHELL = shutil.which("sh") or "/bin/sh"
CGROUP_ROOT = Path("/sys/fs/cgroup")
JOIN_CGROUP = 'echo $$ > "$0" && exec "$@"'
"""Run as `sh -c JOIN_CGROUP <cgroup.procs> argv...`: argv starts inside the cgroup, with everything it forks."""
CGROUP_REMOVE_WAIT_S = 2.0


@dataclass(frozen=True)
class MemoryCgroup:
    """A sandbox's own memory cgroup (cgroup v1's memory controller, or v2's where it is delegated
    to skill2env's cgroup), below skill2env's own: one limit on all its processes together and on
    the tmpfs pages they write, swap included; its OOM kill count tells an OOM inside it from a
    signal from outside. Made only as root; None where the controller is missing or read-only."""

    path: Path
    v2: bool

    @classmethod
    def create(cls, group: str, name: str, limit_bytes: int) -> MemoryCgroup | None:
        own = _own_memory_cgroup()
        if own is None:
            return None
        base, v2 = own
        path = base / group / name
        try:
            path.parent.mkdir(exist_ok=True)
            if v2:
                (path.parent / "cgroup.subtree_control").write_text("+memory")
            path.mkdir()
            cgroup = cls(path, v2)
            cgroup._write("memory.max" if v2 else "memory.limit_in_bytes", str(limit_bytes))
            swap = "memory.swap.max" if v2 else "memory.memsw.limit_in_bytes"
            if (path / swap).exists():
                cgroup._write(swap, "0" if v2 else str(limit_bytes))
        except OSError as exc:
            logger.warning("no memory cgroup for sandbox %s (memory is limited per process): %s", name, exc)
            with contextlib.suppress(OSError):
                path.rmdir()
            return None
        return cgroup

    @property
    def procs(self) -> Path:
        return self.path / "cgroup.procs"

    def oom_kills(self) -> int:
        """Processes the OOM killer ended in this cgroup (0 where the kernel does not count them)."""
        try:
            text = (self.path / ("memory.events" if self.v2 else "memory.oom_control")).read_text()
        except OSError:
            return 0
        counts = dict(line.split(maxsplit=1) for line in text.splitlines() if " " in line)
        return int(counts.get("oom_kill", "0"))

    def remove(self) -> None:
        """Remove it once its processes are gone (SIGKILLed ones take a moment to leave)."""
        deadline = time.monotonic() + CGROUP_REMOVE_WAIT_S
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError as exc:
                if time.monotonic() >= deadline:
                    logger.warning("memory cgroup %s left behind: %s", self.path, exc)
                    return
                time.sleep(0.02)

    def _write(self, name: str, value: str) -> None:
        (self.path / name).write_text(value)


def _own_memory_cgroup() -> tuple[Path, bool] | None:
    """(this process's memory cgroup directory, cgroup v2?) where sandboxes' cgroups can be made below it."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        hierarchy, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            base = CGROUP_ROOT / "memory" / path.lstrip("/")
            return (base, False) if os.access(base, os.W_OK) else None
    for line in lines:
        hierarchy, _, path = line.split(":", 2)
        base = CGROUP_ROOT / path.lstrip("/")
        if hierarchy == "0" and os.access(base, os.W_OK):
            with contextlib.suppress(OSError):
                if "memory" in (base / "cgroup.controllers").read_text().split():
                    return base, True
    return None


def _host_oom_kills() -> int:
    """The host's count of OOM kills (0 where the kernel does not say)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/vmstat").read_text().splitlines():
            if line.startswith("oom_kill "):
                return int(line.split()[1])
    return 0


def bwrap_root() -> Path:
    """Where rollouts keep their directories: `$SKILL2ENV_BWRAP_DIR`, else `<tmp>/skill2env-bwrap-<uid>`."""
    configured = os.environ.get("SKILL2ENV_BWRAP_DIR")
    return Path(configured) if configured else Path(tempfile.gettempdir()) / f"skill2env-bwrap-{os.geteuid()}"


def bwrap_installed() -> bool:
    """bubblewrap and prlimit are on the PATH."""
    return shutil.which("bwrap") is not None and shutil.which("prlimit") is not None


def bwrap_available() -> bool:
    """bwrap sandboxes can start here: the tools are installed and there is a system root to run
    them over (the unpacked base image, or `$SKILL2ENV_BWRAP_SYSTEM`)."""
    return bwrap_installed() and (configured_root() is not None or image_rootfs() is not None)


class BwrapSandbox(Sandbox):
    """A rollout in bubblewrap: no network (unless the task asks), read-only base image system, private
    writable workspace, prlimit limits, killed with its parent."""

    backend = "bwrap"

    def __init__(
        self,
        limits: SandboxLimits | None = None,
        *,
        rollout_id: str | None = None,
        root: Path | None = None,
        reap: bool = True,
        system: Path | None = None,
    ) -> None:
        super().__init__(limits, rollout_id=rollout_id)
        self._root = root or bwrap_root()
        self._given_system = system
        self._system: Path | None = None
        """Where programs come from, chosen at `start`: the unpacked base image (see `rootfs`)."""
        self.server_fallback: str | None = None
        """Why agent commands each get a bwrap of their own (None: the command server runs them)."""
        self._reap = reap
        self._dir: Path | None = None
        self._task: TaskDir | None = None
        self._deadline = 0.0
        self._etc: Path | None = None
        self._server: CommandServer | None = None
        self._as_root = os.geteuid() == 0
        self._host_uid = HOST_UID if self._as_root else os.geteuid()
        self._host_gid = HOST_UID if self._as_root else os.getegid()
        self._cgroup: MemoryCgroup | None = None
        self._host_oom_kills_at_start = 0
        self._lost: SandboxError | None = None
        """Why the command server is gone, once it is: every later agent command raises it."""

    @property
    def rollout_dir(self) -> Path:
        if self._dir is None:
            raise SandboxNotRunning("the bwrap sandbox is not running (not started, or stopped)")
        return self._dir

    @property
    def memory_cgroup(self) -> MemoryCgroup | None:
        """The sandbox's own memory cgroup (None: memory is limited per process only)."""
        return self._cgroup

    @property
    def _fs(self) -> Path:
        return self.rollout_dir / ROLLOUT_FS

    def _mounts(self) -> dict[str, Path]:
        """Sandbox path → host directory, for every private mount."""
        mounts = {self.workspace: self._fs / "workspace"}
        mounts.update({path: self._fs / name for path, name in {**PRIVATE_DIRS, **READ_ONLY_DIRS}.items()})
        return mounts

    def start(self, task: TaskDir) -> None:
        if self._dir is not None:
            raise SandboxCrashed("this sandbox was already started")
        if not bwrap_installed():
            raise SandboxUnavailable("bubblewrap (bwrap) or prlimit is missing; `apt-get install bubblewrap`")
        self._system, root = self._choose_system(task)
        if self._reap:
            reap_bwrap(self._root)
        self._root.mkdir(parents=True, exist_ok=True, mode=0o711)
        rollout = self._root / self.rollout_id
        rollout.mkdir(mode=0o711)
        self._dir = rollout
        self._task = task
        try:
            (rollout / OWNER_FILE).write_text(owner_token())
            if self._as_root:
                group = self._cgroup_group()
                _remove_stale_cgroups(group, self._root)
                self._cgroup = MemoryCgroup.create(group, self.rollout_id, self.limits.memory_mb << 20)
            self._host_oom_kills_at_start = _host_oom_kills()
            self._make_filesystem(task)
            self._deadline = time.monotonic() + self.limits.wall_clock_s
            self._server = self._start_server()
        except BaseException:
            self.stop()
            raise
        self.mode = f"{self.backend}:{root}"
        if self._server is None:
            self.mode += ":per-command-fallback"
            logger.warning("rollout %s: every command gets its own bwrap: %s", self.rollout_id, self.server_fallback)

    @property
    def system(self) -> Path:
        """The system root programs come from (chosen at `start`)."""
        if self._system is None:
            raise SandboxNotRunning("the bwrap sandbox has no system root before it starts")
        return self._system

    def _choose_system(self, task: TaskDir) -> tuple[Path, str]:
        """(the system root, how it was chosen): the one given, `$SKILL2ENV_BWRAP_SYSTEM`, the task's own
        image's file system when its environment installs anything, or the unpacked base image; never
        the host's `/` unless that is what was explicitly given."""
        given = self._given_system or configured_root()
        own = needs_own_image(task)
        if given is None and own:
            return task_rootfs(task), "task-image-rootfs"
        if given is not None and own:
            logger.warning("rollout %s: task %s installs an environment of its own, but the system root given "
                           "(%s) runs it instead of the task's image", self.rollout_id, task.name, given)  # fmt: skip
        if given is not None:
            if given.resolve() == Path("/"):
                logger.warning("rollout %s runs over the host's / (%s or the system given)", self.rollout_id,
                               CONFIGURED_ROOT)  # fmt: skip
                return given, "host-root"
            return given, "configured-root"
        image = image_rootfs()
        if image is None:
            raise SandboxUnavailable(missing_rootfs())
        return image, "image-rootfs"

    def _make_filesystem(self, task: TaskDir) -> None:
        fs = self._fs
        fs.mkdir()
        if self._as_root:
            size_mb = min(self.limits.storage_mb, STORAGE_CAP_MB)
            options = f"size={size_mb}m,mode=0755,uid={self._host_uid},gid={self._host_gid}"
            mounted = subprocess.run(
                ["mount", "-t", "tmpfs", "-o", options, "skill2env-bwrap", str(fs)],
                capture_output=True,
                text=True,
                check=False,
            )
            if mounted.returncode != 0:
                raise SandboxUnavailable(f"mounting the rollout's tmpfs failed: {mounted.stderr.strip()}")
        for host_dir in self._mounts().values():
            host_dir.mkdir(parents=True, exist_ok=True)
        if task.workspace_dir.is_dir():
            shutil.copytree(task.workspace_dir, fs / "workspace", symlinks=True, dirs_exist_ok=True)
        if task.skill_dir.is_dir():  # a copy: the task store may not be readable by the sandbox's uid
            shutil.copytree(task.skill_dir, fs / SKILL_COPY, symlinks=True)
        self._etc = self._etc_template()
        self._hand_over(fs)

    def _hand_over(self, path: Path, *, recursive: bool = True) -> None:
        """Give a host path (with what is under it, if `recursive`) to the sandbox's host uid; the
        read-only mounts stay root's."""
        if not self._as_root:
            return
        read_only = {str(self._fs / name) for name in READ_ONLY_DIRS.values()}
        if any(path == Path(top) or path.is_relative_to(top) for top in read_only):
            return
        owner = (self._host_uid, self._host_gid)
        os.chown(path, *owner, follow_symlinks=False)
        if not recursive or not path.is_dir() or path.is_symlink():
            return
        # Names relative to directory descriptors, no path objects: a copy-in can bring thousands of files.
        for current, dirs, files, folder in os.fwalk(path):
            dirs[:] = [name for name in dirs if f"{current}/{name}" not in read_only]
            for name in files + dirs:
                os.chown(name, *owner, dir_fd=folder, follow_symlinks=False)

    def exec(
        self,
        cmd: str | Sequence[str],
        *,
        timeout: float = DEFAULT_EXEC_TIMEOUT_S,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        user: str = AGENT_USER,
    ) -> ExecResult:
        if self._dir is None:
            raise SandboxNotRunning("the bwrap sandbox is not running (not started, or stopped)")
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise SandboxDeadlineExceeded(f"rollout {self.rollout_id} ran out of its wall clock")
        limit = min(timeout, remaining)
        if user == AGENT_USER and self._lost is not None:
            raise self._lost
        if user == AGENT_USER and self._server is not None:
            return self._exec_in_server(self._server, cmd, limit, timeout, cwd, env)
        argv = [*self._join_cgroup(), *self._drop_to_host_user(), *self._prlimit(), "bwrap",
                *self._bwrap_args(cwd, env, user), "--", *shell_command(cmd)]  # fmt: skip
        started = time.monotonic()
        try:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={"PATH": SANDBOX_PATH},
                cwd="/",
            )
        except OSError as exc:
            raise SandboxCrashed(f"starting bwrap failed: {exc}") from exc
        stdout, stderr, truncated, killed = _collect(process, started + limit, self.limits.output_limit_bytes)
        duration = time.monotonic() - started
        exit_code = KILLED_EXIT_CODE if killed else process.returncode
        if exit_code < 0:
            exit_code = 128 - exit_code
        result = ExecResult(
            exit_code=exit_code,
            stdout=stdout,
            stderr=stderr,
            duration_s=duration,
            timed_out=killed,
            output_truncated=truncated,
        )
        if killed:
            if limit < timeout:
                raise SandboxDeadlineExceeded(f"rollout {self.rollout_id} ran out of its wall clock")
            raise SandboxTimeout(f"{describe(cmd)!r} ran past its {timeout:g} s timeout", result)
        if exit_code == 1 and stderr.startswith("bwrap:"):
            raise SandboxCrashed(f"bwrap could not set up the sandbox: {stderr.strip()}")
        return result

    def _start_server(self) -> CommandServer | None:
        """The agent's command server, as the init of a namespace set up like a command's (None
        where the system has no python3 to run it: then every command gets its own bwrap)."""
        if not (self.system / "usr" / "bin" / "python3").exists():
            self.server_fallback = f"no python3 in the system root {self.system} to run the command server"
            return None
        variables = self._variables(None, AGENT_USER)
        config = {"env": variables, "output_limit": self.limits.output_limit_bytes, "kill_grace": 0, "sweep": True,
                  "require_hardening": True}  # fmt: skip
        argv = [*self._join_cgroup(), *self._drop_to_host_user(), *self._prlimit(), "bwrap",
                *self._bwrap_args(None, None, AGENT_USER), "--as-pid-1", "--",
                *server_argv("/usr/bin/python3", config)]  # fmt: skip
        with (self.rollout_dir / SERVER_LOG).open("wb") as log:
            try:
                process = popen_from_lasting_thread(
                    argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env={"PATH": SANDBOX_PATH}, cwd="/"
                )
            except OSError as exc:
                raise SandboxCrashed(f"starting bwrap failed: {exc}") from exc
        server = CommandServer(process, describe=f"command server of rollout {self.rollout_id}")
        try:
            server.client.wait_ready()
        except SandboxCrashed as exc:
            server.stop(wait_s=0)
            log_tail = (self.rollout_dir / SERVER_LOG).read_text(errors="replace").strip()[-2000:]
            if HARDENING_FAILED in log_tail:  # an unhardened server could be signalled or traced: no server
                self.server_fallback = f"the command server could not harden itself: {log_tail}"
                return None
            raise SandboxCrashed(f"{exc}; {log_tail}") from None
        return server

    def _exec_in_server(
        self,
        server: CommandServer,
        cmd: str | Sequence[str],
        limit: float,
        timeout: float,
        cwd: str | None,
        env: Mapping[str, str] | None,
    ) -> ExecResult:
        try:
            return run_command(server.client, cmd, cwd=cwd or self.workspace, env=env, limit=limit, timeout=timeout,
                               reply_within=limit, rollout_id=self.rollout_id)  # fmt: skip
        except CommandServerLost as exc:
            self._lost = self._server_lost(server, exc)
            raise self._lost from exc

    def _server_lost(self, server: CommandServer, lost: CommandServerLost) -> SandboxError:
        """Whose doing the server's end is (see the module docstring)."""
        if time.monotonic() >= self._deadline:
            return SandboxDeadlineExceeded(f"rollout {self.rollout_id} ran out of its wall clock")
        process = server.process
        if lost.unresponsive and process.poll() is None:
            return SandboxBroken(f"{lost}; the sandbox still runs: its own processes starved its command server")
        try:  # its output ends just before it does
            status = process.wait(timeout=STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            return SandboxCrashed(f"{lost}; its output ended, but bwrap still runs")
        if status == -signal.SIGKILL and self._cgroup is not None and self._cgroup.oom_kills() > 0:
            # bwrap shares the sandbox's memory cgroup: its OOM killer may end bwrap with the server
            return server_end(lost, 128 + signal.SIGKILL, oom_killed=True, detail=self._server_log_tail())
        if status < 0:
            return SandboxCrashed(f"{lost}; bwrap itself was killed by signal {-status} on the host")
        if self._cgroup is not None:
            oom_killed = self._cgroup.oom_kills() > 0
        else:
            oom_killed = _host_oom_kills() > self._host_oom_kills_at_start
        oom_killed = oom_killed and status == 128 + signal.SIGKILL
        log = self._server_log_tail()
        return server_end(lost, status, oom_killed=oom_killed, detail=log)

    def _server_log_tail(self) -> str:
        with contextlib.suppress(OSError):
            return (self.rollout_dir / SERVER_LOG).read_text(errors="replace").strip()[-2000:]
        return ""

    def _cgroup_group(self) -> str:
        """The parent of this root's sandboxes' cgroups (one per root: stale ones are found by their rollouts)."""
        return f"skill2env-bwrap-{hashlib.sha256(str(self._root.resolve()).encode()).hexdigest()[:12]}"

    def _join_cgroup(self) -> list[str]:
        return [SHELL, "-c", JOIN_CGROUP, str(self._cgroup.procs)] if self._cgroup is not None else []

    def _prlimit(self) -> list[str]:
        limits = self.limits
        return [
            "prlimit",
            f"--nproc={limits.pids}",
            f"--as={limits.memory_mb << 20}",
            f"--fsize={limits.storage_mb << 20}",
            f"--nofile={limits.open_files}",
            "--core=0",
            "--",
        ]

    def _etc_template(self) -> Path:
        """The sandboxes' /etc, made once per system root beside the rollouts' folder (not in it: the
        reaper clears that one) and bound read-only into every sandbox: what programs need from the
        system's /etc, nothing about the host, and the sandbox's own users (the same in every
        sandbox, so nothing of it is per rollout)."""
        digest = hashlib.sha256(f"{ETC_VERSION}:{self.system.resolve()}".encode()).hexdigest()[:12]
        template = self._root.with_name(f"{self._root.name}-etc") / digest
        if template.is_dir():
            return template
        template.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        scratch = Path(tempfile.mkdtemp(prefix=".etc-", dir=template.parent))
        scratch.chmod(0o755)
        for name in SYSTEM_ETC:
            host, copy = self.system / "etc" / name, scratch / name
            copy.parent.mkdir(parents=True, exist_ok=True)
            if host.is_dir() and not host.is_symlink():
                shutil.copytree(host, copy, symlinks=True, ignore=_unreadable_by_others)
            elif host.is_symlink() or (host.exists() and host.stat().st_mode & 0o004):
                shutil.copy2(host, copy, follow_symlinks=False)
        for name, content in SANDBOX_ETC.items():
            (scratch / name).write_text(content)
            (scratch / name).chmod(0o644)
        try:
            scratch.rename(template)
        except OSError:  # another process made it first
            shutil.rmtree(scratch, ignore_errors=True)
        return template

    def _drop_to_host_user(self) -> list[str]:
        """As root, run bwrap as the sandboxes' unprivileged host uid through `setpriv`, not Popen's
        `user=`: Python forks the whole parent for that, while a plain exec can use vfork (~3x
        cheaper per command for a large parent process)."""
        if not self._as_root:
            return []
        return [SETPRIV, f"--reuid={self._host_uid}", f"--regid={self._host_gid}", "--clear-groups"]

    def _bwrap_args(self, cwd: str | None, env: Mapping[str, str] | None, user: str) -> list[str]:
        args = ["--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        if self.limits.network:
            args.append("--share-net")
        uid = 0 if user == ROOT_USER else SANDBOX_UID
        args += ["--uid", str(uid), "--gid", str(uid), "--disable-userns", "--hostname", "sandbox"]
        for name in SYSTEM_DIRS:
            host = self.system / name
            if host.is_symlink():
                args += ["--symlink", str(host.readlink()), f"/{name}"]
            elif host.is_dir():
                args += ["--ro-bind", str(host), f"/{name}"]
        args += ["--ro-bind", str(self._etc or self._etc_template()), "/etc"]
        args += ["--proc", "/proc", "--dev", "/dev"]
        task = self._task
        if task is not None and (self._fs / SKILL_COPY).is_dir():
            args += ["--ro-bind", str(self._fs / SKILL_COPY), task.skill_mount]
        for path, host_dir in self._mounts().items():
            option = "--ro-bind" if path in READ_ONLY_DIRS else "--bind"
            args += [option, str(host_dir), path]
        args += ["--remount-ro", "/", "--chdir", cwd or self.workspace, "--clearenv"]
        for key, value in self._variables(env, user).items():
            args += ["--setenv", key, value]
        return args

    def _variables(self, env: Mapping[str, str] | None, user: str) -> dict[str, str]:
        variables = {"PATH": SANDBOX_PATH, "HOME": SANDBOX_TMP, "LANG": "C.UTF-8", "USER": user}
        variables.update(self.limits.environment)
        variables.update(env or {})
        return variables

    def _host_path(self, path: str, *, writable: bool) -> Path:
        """The host path behind a sandbox path, refusing anything that resolves outside its mount."""
        normalized = posixpath.normpath(posixpath.join(self.workspace, path))
        for mount, host_dir in self._mounts().items():
            if normalized == mount or normalized.startswith(mount.rstrip("/") + "/"):
                if normalized == mount:
                    return host_dir
                candidate = host_dir / posixpath.relpath(normalized, mount)
                checked = candidate.parent if writable else candidate
                if not checked.resolve().is_relative_to(host_dir.resolve()):
                    raise SandboxPathError(f"{path} leads outside the sandbox's {mount} through a link")
                return candidate
        raise SandboxPathError(f"{path} is not under the sandbox's private directories ({', '.join(self._mounts())})")

    def read_file(self, path: str) -> bytes:
        host = self._host_path(path, writable=False)
        if not host.is_file():
            raise SandboxPathError(f"{path} is not a regular file in the sandbox")
        return host.read_bytes()

    def write_file(self, path: str, data: bytes | str) -> None:
        host = self._host_path(path, writable=True)
        if host.is_symlink():
            raise SandboxPathError(f"{path} is a link; refusing to write through it")
        self._make_parents(host)
        host.write_bytes(data.encode() if isinstance(data, str) else data)
        self._hand_over(host)

    def copy_in(self, source: Path, destination: str) -> None:
        if not source.exists():
            raise SandboxPathError(f"{source} does not exist on the host")
        host = self._host_path(destination, writable=True)
        self._make_parents(host)
        if not source.is_dir():
            shutil.copy2(source, host)
            self._hand_over(host)
            return
        shutil.copytree(source, host, symlinks=True, dirs_exist_ok=True)
        # Only what came from `source`: copying into a folder that already holds much must not cost its size.
        self._hand_over(host, recursive=False)
        for child in source.iterdir():
            self._hand_over(host / child.name)

    def copy_out(self, source: str, destination: Path) -> None:
        host = self._host_path(source, writable=False)
        if not host.exists() and not host.is_symlink():
            raise SandboxPathError(f"{source} does not exist in the sandbox")
        destination.parent.mkdir(parents=True, exist_ok=True)
        if host.is_dir() and not host.is_symlink():
            budget = CopyBudget.of_storage(self.limits.storage_mb)
            shutil.copytree(host, destination, symlinks=True, dirs_exist_ok=True,
                            ignore=functools.partial(left_out_of_copy, str(host), budget=budget))  # fmt: skip
        else:
            shutil.copy2(host, destination, follow_symlinks=False)

    def _make_parents(self, host: Path) -> None:
        missing = [p for p in reversed(host.parents) if not p.exists()]
        host.parent.mkdir(parents=True, exist_ok=True)
        for created in missing:
            self._hand_over(created)

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:  # first: its tmpfs cannot be unmounted under running commands
            server.stop()
        rollout, self._dir = self._dir, None
        if rollout is not None:
            remove_rollout_dir(rollout)
        cgroup, self._cgroup = self._cgroup, None
        if cgroup is not None:
            cgroup.remove()


def _remove_stale_cgroups(group: str, root: Path) -> None:
    """Remove the cgroups of rollouts whose directories are gone (a killed run's; empty by now, as
    their processes died with it). A live rollout's directory is made before its cgroup."""
    own = _own_memory_cgroup()
    parent = own[0] / group if own is not None else None
    if parent is None or not parent.is_dir():
        return
    for child in parent.iterdir():
        if child.is_dir() and not (root / child.name).exists():
            with contextlib.suppress(OSError):
                child.rmdir()


def _unreadable_by_others(directory: str, names: list[str]) -> set[str]:
    """What a copy of the host's /etc leaves out: anything not world-readable (keys, shadow files)."""
    skipped = set()
    for name in names:
        path = Path(directory, name)
        if not path.is_symlink() and not path.stat().st_mode & 0o004:
            skipped.add(name)
    return skipped


def _collect(process: subprocess.Popen[bytes], deadline: float, limit: int) -> tuple[str, str, bool, bool]:
    """Read stdout and stderr until the process ends or the deadline passes (then kill it), keeping
    at most `limit` bytes of each. Returns (stdout, stderr, truncated, killed)."""
    if process.stdout is None or process.stderr is None:
        raise SandboxCrashed("bwrap was started without pipes for its output")
    order = (process.stdout.fileno(), process.stderr.fileno())
    kept = {fd: bytearray() for fd in order}
    selector = selectors.DefaultSelector()
    for fd in order:
        selector.register(fd, selectors.EVENT_READ)
    truncated = killed = False
    while selector.get_map():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            # bwrap's init dies with it, and the kernel then kills the whole pid namespace.
            process.kill()
            killed = True
            break
        for key, _ in selector.select(timeout=remaining):
            chunk = os.read(key.fd, 65536)
            if not chunk:
                selector.unregister(key.fd)
                continue
            room = limit - len(kept[key.fd])
            truncated = truncated or len(chunk) > room
            if room > 0:
                kept[key.fd] += chunk[:room]
    selector.close()
    process.wait()
    process.stdout.close()
    process.stderr.close()
    return kept[order[0]].decode(errors="replace"), kept[order[1]].decode(errors="replace"), truncated, killed
