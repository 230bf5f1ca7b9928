"""A second Docker engine on this machine, on a loopback TCP socket: the local cluster's "remote"
sandbox host. Its own data and exec roots, and its own bridge: started with `--bridge none`, an engine
deletes the `docker0` interface the machine's engine networks its containers and builds through."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from skill2env.cluster.errors import ClusterError
from skill2env.cluster.processes import running, stop_process
from skill2env.sandbox.hosts import EngineHost

START_TIMEOUT_SECONDS = 60


class EngineStartError(ClusterError):
    """The engine could not be started (no dockerd, not root, or it never answered)."""


@dataclass(frozen=True)
class LocalEngine:
    root: Path
    port: int

    @property
    def url(self) -> str:
        return f"tcp://127.0.0.1:{self.port}"

    @property
    def pidfile(self) -> Path:
        return self.root / "dockerd.pid"

    @property
    def log_path(self) -> Path:
        return self.root / "dockerd.log"

    @property
    def bridge(self) -> str:
        return f"s2ebr{self.port}"  # at most 15 characters, as interface names are

    def host(self, slots: int) -> EngineHost:
        return EngineHost(self.url, slots)

    def start(self) -> int:
        """Start the engine and wait until it answers; returns its pid."""
        binary = shutil.which("dockerd")
        if binary is None:
            raise EngineStartError(
                "dockerd is not installed: apt-get install docker.io (scripts/setup-sandbox.sh), "
                "or go without a second engine (skill2env cluster up --no-remote-engine)"
            )
        if os.geteuid() != 0:
            raise EngineStartError("a second Docker engine needs root (or: skill2env cluster up --no-remote-engine)")
        self.root.mkdir(parents=True, exist_ok=True)
        self._clear_stale_pidfile()
        self._make_bridge()
        # A short exec root: containerd's socket path under it must fit in a unix socket name.
        exec_root = Path("/run") / f"skill2env-dockerd-{self.port}"
        command = [binary, "--host", self.url, "--data-root", str(self.root / "data"), "--exec-root",
                   str(exec_root), "--pidfile", str(self.pidfile), "--bridge", self.bridge, "--iptables=false",
                   "--ip6tables=false"]  # fmt: skip
        with self.log_path.open("ab") as log:
            process = subprocess.Popen(
                command, stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True
            )
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not self.answers():
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                tail = self.log_path.read_text(errors="replace")[-1500:]
                raise EngineStartError(f"dockerd on {self.url} did not come up:\n{tail}")
            time.sleep(0.3)
        return process.pid

    def _clear_stale_pidfile(self) -> None:
        """A killed engine leaves its pid file, and dockerd refuses to start while the pid in it exists,
        a zombie not yet reaped included: reap it where it is ours, and drop the file where nothing runs."""
        try:
            pid = int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return
        if not running(pid):  # reaps it when it is our zombie
            self.pidfile.unlink(missing_ok=True)

    def answers(self) -> bool:
        import docker
        from docker.errors import DockerException

        try:
            client = docker.DockerClient(base_url=self.url, timeout=5)
            try:
                return bool(client.ping())
            finally:
                client.close()
        except (DockerException, OSError):
            return False

    def stop(self, pid: int) -> None:
        """Remove every container it runs, then stop it (SIGTERM, then SIGKILL)."""
        if self.answers():
            import docker
            from docker.errors import NotFound

            client = docker.DockerClient(base_url=self.url, timeout=60)
            try:
                for container in client.containers.list(all=True, ignore_removed=True):
                    with contextlib.suppress(NotFound):  # one a stopping sandbox removed meanwhile
                        container.remove(force=True, v=True)
                client.volumes.prune()
            finally:
                client.close()
        stop_process(pid, f"dockerd on {self.url}")
        subprocess.run(["ip", "link", "delete", self.bridge], capture_output=True, check=False)

    def _make_bridge(self) -> None:
        """A bridge of its own on a /24 no engine uses by default (172.31.<port mod 250>.0)."""
        if subprocess.run(["ip", "link", "show", self.bridge], capture_output=True, check=False).returncode == 0:
            return
        address = f"172.31.{self.port % 250}.1/24"
        for command in (["ip", "link", "add", "name", self.bridge, "type", "bridge"],
                        ["ip", "addr", "add", address, "dev", self.bridge],
                        ["ip", "link", "set", self.bridge, "up"]):  # fmt: skip
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise EngineStartError(f"{' '.join(command)} failed: {done.stderr.strip()}")
