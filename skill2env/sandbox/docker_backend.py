"""The Docker backend: one locked-down container per rollout, from the task's image.

The container's own process (its pid namespace's init) is the command server (`command_server`),
run by the image's python3 as the agent user, with its stdin and stdout attached to this process
over the engine's API (`docker_attach`): an agent command costs a fork and an exec in the
container, not an engine round trip. Nothing in the container can signal it (it installs no
signal handlers, and the kernel drops those signals to a namespace's init), trace it (it is
non-dumpable) or lower its limits (its seccomp filter, inherited by every command, refuses
`prlimit` on other processes). It ends itself, and so the container and every command in it, when
the wall clock runs out or when its stdin closes — at `stop`, or when the engine drops the attach
because the process that started it died. Commands as root (the verifier) run through `docker
exec`, each wrapped in `timeout -k`; so does every command where the image has no python3 (or
the server does not come up): then the container's process is `sleep <wall clock>` under
docker-init, run as a root without capabilities that the agent user cannot signal. That fallback
(each command an engine round trip, ~100x slower) is logged, its reason kept in `server_fallback`,
and recorded in `mode` (`docker:exec-fallback`; `docker:attach` otherwise).

Writable places are size-limited tmpfs volumes: the workspace (agent's), and Harbor's
`/logs`, `/tests`, `/solution` (root's). Named volumes, not `--tmpfs` mounts, because the
engine's archive calls (`put_archive`) write beneath a `--tmpfs` mount and the files vanish. A
tmpfs volume lives while its container runs: once the container has ended, its files are gone,
and reading them (`copy_out`) fails rather than return the empty volume the engine mounts again.

When the command server dies or stops answering, the engine is asked why (`_server_lost`). The
agent's doing (`SandboxBroken`): the container OOM-killed (its memory limit is the sandbox's), the
server dead of a signal only the kernel sends for what happened inside, or the server not
answering while its container runs (starved by its own processes). Outside (`SandboxCrashed`): the
engine not answering, the container removed, still running with the attach stream dropped,
killed or stopped from the host (SIGKILL without an OOM kill, SIGTERM), or the server exiting by
itself (its stdin closed; a fault of ours). The container's own wall clock is the rollout's
deadline (`SandboxDeadlineExceeded`).
"""

from __future__ import annotations

import contextlib
import functools
import io
import logging
import os
import posixpath
import shutil
import tarfile
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import docker
import requests
from docker.errors import APIError, DockerException, NotFound
from docker.models.containers import Container
from docker.types import LogConfig, Mount, Ulimit

from skill2env.sandbox.base import (
    AGENT_USER,
    DEFAULT_EXEC_TIMEOUT_S,
    KILL_GRACE_S,
    ROOT_USER,
    SANDBOX_TMP,
    TIMEOUT_EXIT_CODES,
    ExecResult,
    Sandbox,
    SandboxLimits,
    describe,
    owner_token,
    shell_command,
)
from skill2env.sandbox.base_image import SANDBOX_UID
from skill2env.sandbox.command_client import run_command, server_argv, server_end
from skill2env.sandbox.copying import (
    STREAM_FACTOR,
    CopyBudget,
    clear_mode_bits,
    left_out_of_copy,
    tar_member_copied,
)
from skill2env.sandbox.docker_attach import ATTACH_PARAMS, AttachedServer
from skill2env.sandbox.engine import docker_client, engine_client
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
from skill2env.sandbox.hosts import EngineHost
from skill2env.sandbox.images import WORKSPACE_SEED, ensure_task_image
from skill2env.sandbox.labels import (
    DEADLINE_LABEL,
    OWNER_LABEL,
    ROLLOUT_LABEL,
    SANDBOX_LABEL,
)
from skill2env.sandbox.reaper import reap_docker
from skill2env.sandbox.task import TaskDir
from skill2env.sandbox.warm_pool import WarmPool

logger = logging.getLogger(__name__)

HARBOR_DIRS_MB = {"/logs": 256, "/tests": 64, "/solution": 64}
"""Harbor's fixed paths: root-owned, so the agent can read them but not plant files there."""
USERS = {AGENT_USER: f"{SANDBOX_UID}:{SANDBOX_UID}", ROOT_USER: "0:0"}
LOADER_CAPABILITIES = ("CHOWN", "DAC_OVERRIDE", "FOWNER")
MAX_READ_BYTES = 256 << 20
CLIENT_SLACK_S = 60.0
"""The HTTP timeout exceeds the wall clock by this much: a command's own timeout always fires first."""
INSPECT_TIMEOUT_S = 30
"""How long the engine may take to say what became of a container whose command server is lost."""
SERVER_PYTHON = "python3"
"""The image's python3, found on its PATH when the container starts."""
END_ALL_TIMEOUT_S = 10.0


class DockerSandbox(Sandbox):
    """A rollout in a Docker container: no network (unless the task asks), read-only root, no
    capabilities, no-new-privileges, pids / memory / CPU limits, non-root commands."""

    backend = "docker"

    def __init__(
        self,
        limits: SandboxLimits | None = None,
        *,
        rollout_id: str | None = None,
        client: docker.DockerClient | None = None,
        engine: EngineHost | None = None,
        reap: bool = True,
        warm: WarmPool | None = None,
        idle_allowance_s: float = 0.0,
    ) -> None:
        """`engine`: the engine of a pool to run on (default: `$DOCKER_HOST`'s, or `client`'s).
        `warm`: take a started container from this pool when it has one (`start`).
        `idle_allowance_s`: the container's clock runs this much longer than the wall clock (a warm
        sandbox's, for the time it may wait for a rollout; `WarmPool`)."""
        super().__init__(limits, rollout_id=rollout_id)
        self._client = client
        self._engine = engine
        self._reap = reap
        self._warm = warm
        self._idle_allowance_s = idle_allowance_s
        self._container: Container | None = None
        self._volumes: list[str] = []
        self._mountpoints: dict[str, str] = {}
        """Sandbox path → where the engine mounts its volume on its own machine (`copy_out_last`)."""
        self._deadline = 0.0
        self._server: AttachedServer | None = None
        self.server_fallback: str | None = None
        """Why agent commands go through `docker exec` in this sandbox (None: the command server runs them)."""
        self._lost: SandboxError | None = None
        """Why the command server is gone, once it is: every later agent command raises it."""

    @property
    def client(self) -> docker.DockerClient:
        if self._client is None:
            self._client = self._connect(self.limits.wall_clock_s + CLIENT_SLACK_S)
        return self._client

    def _connect(self, timeout: float) -> docker.DockerClient:
        """A new client of this sandbox's engine (its pool engine, else `$DOCKER_HOST`'s)."""
        if self._engine is not None:
            return engine_client(self._engine, timeout=timeout)
        return docker_client(timeout=timeout)

    @property
    def container_id(self) -> str:
        return self._running().id or ""

    def grant_loader_capabilities(self) -> bool:
        self.limits = self.limits.model_copy(update={"loader_capabilities": True})
        return True

    def start(self, task: TaskDir) -> None:
        if self._container is not None:
            raise SandboxCrashed("this sandbox was already started")
        if self._warm is not None and (warm := self._warm.claim(task, self.limits, self._engine)) is not None:
            self._take_over(warm)
            self._say_fallback()
            return
        client = self.client
        if self._reap:
            self._reap_orphans(client)
        image = ensure_task_image(client, task)
        self._task = task
        labels = {
            SANDBOX_LABEL: "1",
            ROLLOUT_LABEL: self.rollout_id,
            OWNER_LABEL: owner_token(),
            DEADLINE_LABEL: str(int(time.time() + self._container_clock_s)),
        }
        # The container's clock starts when it does, after this: a host deadline taken now is never
        # later than the container's, so a container its clock ended is always reported as a deadline.
        self._deadline = time.monotonic() + self.limits.wall_clock_s
        try:
            mounts = self._create_volumes(client, task.workdir, labels)
            options = self._container_options(task, mounts, labels)
            if self.limits.loader_capabilities:
                # Docker gives a container whose user is not root no capabilities even for `docker exec`
                # as root: a loader's container runs as root, without the command server no agent needs here.
                self._container, self._server = None, None
            else:
                self._container, self._server = self._start_with_server(client, image, options)
            if self._server is None:
                self._container = client.containers.run(
                    image,
                    command=["sleep", str(int(self._container_clock_s))],
                    detach=True,
                    init=True,
                    user=USERS[ROOT_USER],
                    **options,
                )
            self._seed_workspace()
        except DockerException as exc:
            self.stop()
            raise SandboxCrashed(f"starting the container for {task.name} failed: {exc}") from exc
        except BaseException:
            self.stop()
            raise
        if self.limits.loader_capabilities:
            self.mode = f"{self.backend}:loader"
            return
        self.mode = f"{self.backend}:{'attach' if self._server is not None else 'exec-fallback'}"
        if not self._idle_allowance_s:  # a warm sandbox is not a rollout's yet: the one taking it says so
            self._say_fallback()

    def _reap_orphans(self, client: docker.DockerClient) -> None:
        """Housekeeping before a cold start: a reap that fails is logged and the start goes on (an engine that
        does not answer fails the start itself, next, with its own error)."""
        try:
            reap_docker(client)
        except (DockerException, requests.RequestException) as exc:
            logger.warning("rollout %s: removing orphaned sandboxes failed; starting anyway: %s", self.rollout_id, exc)

    def _say_fallback(self) -> None:
        if self.mode == f"{self.backend}:exec-fallback":
            logger.warning("rollout %s: agent commands go through `docker exec` (no command server): %s",
                           self.rollout_id, self.server_fallback)  # fmt: skip

    @property
    def _container_clock_s(self) -> float:
        """How long the container lives: the wall clock, plus a warm sandbox's wait for its rollout."""
        return self.limits.wall_clock_s + self._idle_allowance_s

    def _take_over(self, warm: DockerSandbox) -> None:
        """Run in `warm`'s started container, renamed after this rollout; the wall clock starts now."""
        self._container, self._server, self._volumes = warm._container, warm._server, warm._volumes
        self._mountpoints = warm._mountpoints
        self._task, self.mode, self.server_fallback = warm._task, warm.mode, warm.server_fallback
        self._client, warm._client = warm._client, None
        warm._container, warm._server, warm._volumes = None, None, []
        self._deadline = time.monotonic() + self.limits.wall_clock_s
        threading.Thread(target=self._rename, name=f"rename-{self.rollout_id}", daemon=True).start()

    def _rename(self) -> None:
        """Name the container after its rollout, for `docker ps` (in the background: only a name)."""
        try:
            self.client.api.rename(self.container_id, f"skill2env-{self.rollout_id}")
        except (DockerException, requests.RequestException, SandboxNotRunning) as exc:
            logger.debug("renaming rollout %s's warm container failed: %s", self.rollout_id, exc)

    def _container_options(self, task: TaskDir, mounts: list[Mount], labels: dict[str, str]) -> dict[str, Any]:
        """The container's settings, whichever process it runs."""
        return {
            "name": f"skill2env-{self.rollout_id}",
            "read_only": True,
            "cap_drop": ["ALL"],
            "cap_add": list(LOADER_CAPABILITIES) if self.limits.loader_capabilities else [],
            "security_opt": ["no-new-privileges:true"],
            "pids_limit": self.limits.pids,
            "mem_limit": f"{self.limits.memory_mb}m",
            "memswap_limit": f"{self.limits.memory_mb}m",
            "nano_cpus": int(self.limits.cpus * 1e9),
            "network_mode": "bridge" if self.limits.network else "none",
            "ulimits": [
                Ulimit(name="nofile", soft=self.limits.open_files, hard=self.limits.open_files),
                Ulimit(name="core", soft=0, hard=0),
            ],
            "tmpfs": {SANDBOX_TMP: f"rw,nosuid,nodev,exec,size={self.limits.tmp_mb}m,mode=1777"},
            "mounts": mounts,
            "environment": {"HOME": SANDBOX_TMP, **self.limits.environment},
            "working_dir": task.workdir,
            "hostname": "sandbox",
            "labels": labels,
        }

    def _start_with_server(
        self, client: docker.DockerClient, image: str, options: dict[str, Any]
    ) -> tuple[Container | None, AttachedServer | None]:
        """The container with the command server as its process, attached to before it starts
        (None, None where it cannot run one: the image has no python3, or the server did not
        come up; that container is removed and the reason kept in `server_fallback`)."""
        config = {
            "env": {},
            "inherit_env": True,  # the container's environment, as `docker exec` gave commands
            "output_limit": self.limits.output_limit_bytes,
            "kill_grace": KILL_GRACE_S,
            "sweep": False,  # background processes live on between commands, as under `docker exec`
            "deadline_s": self._container_clock_s,
            "require_hardening": True,
        }
        container: Container | None = None
        server: AttachedServer | None = None
        try:
            container = client.containers.create(  # attached to before it starts: no output missed
                image,
                command=server_argv(SERVER_PYTHON, config),
                init=False,
                user=USERS[AGENT_USER],
                stdin_open=True,  # with detach off, also StdinOnce: stdin closes when our attach does
                detach=False,
                tty=False,
                log_config=LogConfig(type=LogConfig.types.NONE),  # replies carry output: keep none on disk
                **options,
            )
            handle = client.api.attach_socket(container.id or "", params=dict(ATTACH_PARAMS))
            container.start()
            server = AttachedServer(handle, describe=f"command server of rollout {self.rollout_id}")
            server.client.wait_ready()
            return container, server
        except (DockerException, requests.RequestException, SandboxCrashed) as exc:
            detail = server.stderr().strip()[-1000:] if server is not None else ""
            self.server_fallback = f"{exc}{'; ' + detail if detail else ''}"
            if server is not None:
                server.stop()
            if container is not None:
                with contextlib.suppress(NotFound):
                    container.remove(force=True)
            return None, None

    def _create_volumes(self, client: docker.DockerClient, workdir: str, labels: dict[str, str]) -> list[Mount]:
        sizes = {workdir: (self.limits.storage_mb, f"uid={SANDBOX_UID},gid={SANDBOX_UID},mode=0755")}
        sizes.update({path: (mb, "mode=0755") for path, mb in HARBOR_DIRS_MB.items()})
        mounts = []
        for target, (megabytes, options) in sizes.items():
            name = f"skill2env-{self.rollout_id}-{target.strip('/').replace('/', '-') or 'root'}"
            volume = client.volumes.create(
                name=name,
                driver="local",
                driver_opts={"type": "tmpfs", "device": "tmpfs", "o": f"size={megabytes}m,{options}"},
                labels=labels,
            )
            self._volumes.append(name)
            self._mountpoints[target] = str(volume.attrs.get("Mountpoint") or "")
            mounts.append(Mount(target=target, source=name, type="volume"))
        return mounts

    def _seed_workspace(self) -> None:
        seeded = self.exec(
            f"if [ -d {WORKSPACE_SEED} ]; then cp -a {WORKSPACE_SEED}/. {self.workspace}/; fi", timeout=120
        )
        if not seeded.ok:
            raise SandboxCrashed(f"copying the workspace seed failed: {seeded.stderr.strip()}")

    def _running(self) -> Container:
        if self._container is None:
            raise SandboxNotRunning("the docker sandbox is not running (not started, or stopped)")
        return self._container

    def exec(
        self,
        cmd: str | Sequence[str],
        *,
        timeout: float = DEFAULT_EXEC_TIMEOUT_S,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        user: str = AGENT_USER,
    ) -> ExecResult:
        container = self._running()
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise SandboxDeadlineExceeded(f"rollout {self.rollout_id} ran out of its wall clock")
        limit = min(timeout, remaining)
        if user == AGENT_USER and self._lost is not None:
            raise self._lost
        if user == AGENT_USER and self._server is not None:
            return self._exec_in_server(self._server, cmd, limit, timeout, cwd, env)
        argv = ["timeout", "-k", str(KILL_GRACE_S), f"{limit:.3f}", *shell_command(cmd)]
        api = self.client.api
        started = time.monotonic()
        try:
            exec_id = api.exec_create(
                container.id,
                argv,
                stdout=True,
                stderr=True,
                user=USERS.get(user, user),
                workdir=cwd or self.workspace,
                environment=dict(env) if env else None,
            )["Id"]
            stdout, stderr, truncated = _drain(api.exec_start(exec_id, stream=True, demux=True), self.limits)
            exit_code = api.exec_inspect(exec_id)["ExitCode"]
        except (APIError, requests.RequestException) as exc:
            raise self._failure(f"running {describe(cmd)!r} failed: {exc}") from exc
        duration = time.monotonic() - started
        if exit_code is None or exit_code >= 128:
            self._raise_if_gone(cmd)
        result = ExecResult(
            exit_code=-1 if exit_code is None else exit_code,
            stdout=stdout,
            stderr=stderr,
            duration_s=duration,
            timed_out=exit_code in TIMEOUT_EXIT_CODES and duration >= limit,
            output_truncated=truncated,
        )
        if result.timed_out:
            if limit < timeout:
                raise SandboxDeadlineExceeded(f"rollout {self.rollout_id} ran out of its wall clock")
            raise SandboxTimeout(f"{describe(cmd)!r} ran past its {timeout:g} s timeout", result)
        return result

    def _exec_in_server(
        self,
        server: AttachedServer,
        cmd: str | Sequence[str],
        limit: float,
        timeout: float,
        cwd: str | None,
        env: Mapping[str, str] | None,
    ) -> ExecResult:
        try:
            return run_command(server.client, cmd, cwd=cwd or self.workspace, env=env, limit=limit, timeout=timeout,
                               reply_within=limit + KILL_GRACE_S, rollout_id=self.rollout_id)  # fmt: skip
        except CommandServerLost as exc:
            self._lost = self._server_lost(exc)
            raise self._lost from exc
        except SandboxCrashed as exc:
            raise self._failure(str(exc)) from exc

    def _server_lost(self, lost: CommandServerLost) -> SandboxError:
        """Whose doing the server's end is (see the module docstring)."""
        if time.monotonic() >= self._deadline:
            return SandboxDeadlineExceeded(f"rollout {self.rollout_id} ran out of its wall clock")
        try:
            state = self._state()
        except NotFound:
            return SandboxCrashed(f"{lost}; its container was removed")
        except (DockerException, requests.RequestException, SandboxUnavailable) as exc:
            return SandboxCrashed(f"{lost}; the engine does not say what became of its container: {exc}")
        if state.get("Running"):
            if lost.unresponsive:
                return SandboxBroken(f"{lost}; its container still runs: its own processes starved its command server")
            return SandboxCrashed(f"{lost}; its container still runs: the engine dropped the attach stream")
        detail = self._server.stderr().strip()[-1000:] if self._server is not None else ""
        status = int(state.get("ExitCode") or 0)
        return server_end(lost, status, oom_killed=bool(state.get("OOMKilled")), detail=detail)

    def _state(self) -> dict[str, Any]:
        """The container's state, from the engine, within `INSPECT_TIMEOUT_S` (the sandbox's own
        client waits as long as its wall clock).

        Raises: NotFound, DockerException, requests.RequestException, SandboxUnavailable."""
        client = self._connect(INSPECT_TIMEOUT_S)
        try:
            state: dict[str, Any] = client.api.inspect_container(self.container_id)["State"]
            return state
        finally:
            client.close()

    def _raise_if_gone(self, cmd: str | Sequence[str]) -> None:
        try:
            container = self._running()
            container.reload()
        except NotFound:
            raise self._failure(f"the container vanished under {describe(cmd)!r}") from None
        if container.status != "running":
            raise self._failure(f"the container stopped under {describe(cmd)!r} ({container.status})")

    def _failure(self, message: str) -> SandboxDeadlineExceeded | SandboxCrashed:
        if time.monotonic() >= self._deadline:
            return SandboxDeadlineExceeded(f"rollout {self.rollout_id} ran out of its wall clock")
        return SandboxCrashed(message)

    def read_file(self, path: str) -> bytes:
        if self._lost is not None:
            self._require_running()
        with self._archive(path) as archive:
            member = archive.next()
            if member is None or not member.isfile():
                raise SandboxPathError(f"{path} is not a regular file")
            extracted = archive.extractfile(member)
            if extracted is None:
                raise SandboxPathError(f"{path} could not be read")
            return extracted.read()

    def write_file(self, path: str, data: bytes | str) -> None:
        payload = data.encode() if isinstance(data, str) else data
        mount, relative = self._writable_mount(path)
        if relative == ".":
            raise SandboxPathError(f"{path} is a directory")
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as archive:
            uid = self._owner_uid(mount)
            _add_parents(archive, relative, uid)
            entry = tarfile.TarInfo(relative)
            entry.size, entry.mode, entry.uid, entry.gid, entry.mtime = len(payload), 0o644, uid, uid, time.time()
            archive.addfile(entry, io.BytesIO(payload))
        self._put(mount, buffer.getvalue())

    def copy_in(self, source: Path, destination: str) -> None:
        if not source.exists():
            raise SandboxPathError(f"{source} does not exist on the host")
        mount, relative = self._writable_mount(destination)
        if relative == "." and not source.is_dir():
            raise SandboxPathError(f"{destination} is a directory")
        uid = self._owner_uid(mount)

        def owned(entry: tarfile.TarInfo) -> tarfile.TarInfo:
            entry.uid = entry.gid = uid
            entry.uname = entry.gname = ""
            return entry

        with tempfile.TemporaryFile() as buffer:
            with tarfile.open(fileobj=buffer, mode="w") as archive:
                _add_parents(archive, relative, uid)
                archive.add(source, arcname=relative, filter=owned)
            buffer.seek(0)
            self._put(mount, buffer)

    def copy_out(self, source: str, destination: Path) -> None:
        self._require_running()
        with self._archive(source) as archive:
            _extract(archive, source, destination, CopyBudget.of_storage(self.limits.storage_mb))

    def copy_out_last(self, source: str, destination: Path) -> None:
        """`copy_out`, read straight from the volume's mount on this machine when `source` is a whole
        volume (the workspace) of an engine running here, once no process of the agent's runs any more
        (`_end_agent_processes`): nothing can change the tree or swap a link in under the walk. Links
        are copied as links, what every copy out leaves out (`copying`) is left out, and the modes are
        those of the tar path (`clear_mode_bits`); a file copy,
        without a tar written and read back (a third of the snapshot's time with 16 rollouts at once).
        Elsewhere (a remote engine, another path), `copy_out`."""
        mountpoint = self._local_mountpoint(source)
        if mountpoint is None or not self._end_agent_processes():  # not running (any more): `copy_out` says why
            return self.copy_out(source, destination)
        if not os.path.ismount(mountpoint):  # the volume ended with its container
            return self.copy_out(source, destination)
        destination.parent.mkdir(parents=True, exist_ok=True)
        budget = CopyBudget.of_storage(self.limits.storage_mb)
        shutil.copytree(mountpoint, destination, symlinks=True, dirs_exist_ok=True,
                        ignore=functools.partial(left_out_of_copy, mountpoint, budget=budget))  # fmt: skip
        clear_mode_bits(destination)

    def _end_agent_processes(self) -> bool:
        """Kill every process in the container but its command server (the namespace's init, which
        no signal from inside reaches), until none is left; pause the container where it has no
        server. Whether that worked."""
        if self._server is not None and self._lost is None:
            try:
                self._server.client.end_all(END_ALL_TIMEOUT_S)
                return True
            except (CommandServerLost, SandboxCrashed) as exc:
                logger.debug("ending rollout %s's processes failed: %s", self.rollout_id, exc)
        try:
            self.client.api.pause(self.container_id)
            return True
        except (APIError, requests.RequestException):
            return False

    def _local_mountpoint(self, source: str) -> str | None:
        """Where the volume mounted at `source` is mounted on this machine, when it is and readable here."""
        if self._absolute(source) not in (self.workspace, *HARBOR_DIRS_MB):
            return None
        mountpoint = self._mountpoints.get(self._absolute(source))
        if mountpoint is None or not os.path.ismount(mountpoint) or not os.access(mountpoint, os.R_OK | os.X_OK):
            return None
        return mountpoint

    def _require_running(self) -> None:
        """Raises: SandboxPathError: the container has ended, and its tmpfs volumes with it."""
        try:
            state = self._state()
        except NotFound:
            raise SandboxPathError("the container is gone, and its volumes' files with it") from None
        except (DockerException, requests.RequestException, SandboxUnavailable) as exc:
            raise SandboxCrashed(f"the engine does not say whether the container runs: {exc}") from exc
        if not state.get("Running"):
            raise SandboxPathError(
                f"the container has ended ({state.get('Status')}, exit code {state.get('ExitCode')}): "
                "its tmpfs volumes, the workspace among them, ended with it"
            )

    @contextmanager
    def _archive(self, path: str) -> Iterator[tarfile.TarFile]:
        """The tar stream of `path`, spooled to disk past a few MiB so large trees do not sit in memory."""
        try:
            chunks, stat = self.client.api.get_archive(self.container_id, self._absolute(path))
        except NotFound as exc:
            raise SandboxPathError(f"{path} does not exist in the sandbox") from exc
        except APIError as exc:
            raise SandboxPathError(f"{path} cannot be read: {exc.explanation}") from exc
        if stat.get("size", 0) > MAX_READ_BYTES:
            raise SandboxPathError(f"{path} is larger than {MAX_READ_BYTES >> 20} MiB")
        with tempfile.SpooledTemporaryFile(max_size=8 << 20) as spool:
            for chunk in chunks:
                spool.write(chunk)
            spool.seek(0)
            with tarfile.open(fileobj=spool, mode="r:") as archive:
                yield archive

    def _absolute(self, path: str) -> str:
        """A sandbox path, relative ones taken from the workspace."""
        return posixpath.normpath(posixpath.join(self.workspace, path))

    def _writable_mount(self, path: str) -> tuple[str, str]:
        normalized = self._absolute(path)
        for mount in (self.workspace, *HARBOR_DIRS_MB):
            if normalized == mount or normalized.startswith(mount.rstrip("/") + "/"):
                return mount, posixpath.relpath(normalized, mount)
        raise SandboxPathError(
            f"{path} is not under a writable volume ({self.workspace}, {', '.join(HARBOR_DIRS_MB)}); "
            "the root filesystem is read-only and /tmp is a tmpfs the engine cannot write into"
        )

    def _owner_uid(self, mount: str) -> int:
        return SANDBOX_UID if mount == self.workspace else 0

    def _put(self, mount: str, data: bytes | Any) -> None:
        try:
            self.client.api.put_archive(self.container_id, mount, data)
        except APIError as exc:
            raise SandboxPathError(f"writing under {mount} failed: {exc.explanation}") from exc

    def stop(self) -> None:
        server, self._server = self._server, None
        container, self._container = self._container, None
        try:
            self._remove(container)
        finally:
            if server is not None:
                server.stop()
        volumes, self._volumes = self._volumes, []
        for name in volumes:
            with contextlib.suppress(NotFound):
                self.client.volumes.get(name).remove(force=True)

    @staticmethod
    def _remove(container: Container | None) -> None:
        if container is not None:
            try:
                container.remove(force=True, v=True)
            except NotFound:
                pass
            except DockerException as exc:
                raise SandboxCrashed(f"removing container {container.id} failed: {exc}") from exc


def _drain(stream: Iterator[tuple[bytes | None, bytes | None]], limits: SandboxLimits) -> tuple[str, str, bool]:
    """Read both streams to the end, keeping at most the output limit of each."""
    kept: list[bytearray] = [bytearray(), bytearray()]
    truncated = False
    for pair in stream:
        for index, chunk in enumerate(pair):
            if not chunk:
                continue
            room = limits.output_limit_bytes - len(kept[index])
            truncated = truncated or len(chunk) > room
            if room > 0:
                kept[index] += chunk[:room]
    return kept[0].decode(errors="replace"), kept[1].decode(errors="replace"), truncated


class _CopyStopped(Exception):
    """The tar stream went on far past the copy's budget (`CopyBudget.spent`)."""


def _extract(archive: tarfile.TarFile, source: str, destination: Path, budget: CopyBudget) -> None:
    """`source`'s tar stream into `destination` (merged into it where it exists), owned by the caller;
    what the budget takes (`copying`), up to where the stream goes too far past it."""
    with tempfile.TemporaryDirectory() as scratch:
        try:
            # the filter refuses escapes
            archive.extractall(scratch, filter=functools.partial(_owned_by_caller, budget=budget))  # noqa: S202
        except _CopyStopped:
            logger.info("copying %s out of a sandbox stopped: its files add up to more than %d bytes",
                        source, STREAM_FACTOR * budget.limit_bytes)  # fmt: skip
        extracted = Path(scratch) / posixpath.basename(source.rstrip("/"))
        if not extracted.exists() and not extracted.is_symlink():
            raise SandboxPathError(f"{source} is larger than the sandbox's storage limit: nothing was copied")
        destination.parent.mkdir(parents=True, exist_ok=True)
        if destination.exists():
            _merge_into(extracted, destination)
        else:
            shutil.move(extracted, destination)


def _owned_by_caller(
    member: tarfile.TarInfo, destination: str, budget: CopyBudget | None = None
) -> tarfile.TarInfo | None:
    """Tar's safety filter (no absolute names, nothing written outside `destination`, no setuid bits),
    files owned by us. Links are extracted as links, wherever they point: what reads the tree later
    never follows one out of it (`iter_files`)."""
    if not tar_member_copied(member, budget):
        if budget is not None and budget.spent:
            raise _CopyStopped
        return None
    safe = tarfile.tar_filter(member, destination)
    return safe.replace(uid=os.getuid(), gid=os.getgid(), uname="", gname="", deep=False)


def _add_parents(archive: tarfile.TarFile, relative: str, uid: int) -> None:
    """Directory entries for `relative`'s parents, so writing a new file creates its folders."""
    parts = relative.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        entry = tarfile.TarInfo("/".join(parts[:depth]))
        entry.type, entry.mode, entry.uid, entry.gid, entry.mtime = tarfile.DIRTYPE, 0o755, uid, uid, time.time()
        archive.addfile(entry)


def _merge_into(extracted: Path, destination: Path) -> None:
    if extracted.is_dir() and destination.is_dir():
        for child in extracted.iterdir():
            target = destination / child.name
            if target.is_dir() and child.is_dir():
                _merge_into(child, target)
            else:
                shutil.move(child, target)
        return
    shutil.move(extracted, destination)
