"""The Docker engine: connect to it, start `dockerd` where it is installed but not running."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import docker
from docker.errors import DockerException

from skill2env.sandbox.errors import SandboxUnavailable

DEFAULT_CLIENT_TIMEOUT_S = 120.0
DOCKERD_LOG = Path("/var/log/skill2env-dockerd.log")
START_HINT = "run `make sandbox` (scripts/setup-sandbox.sh) or `skill2env sandbox doctor` for what is missing"


def docker_client(*, timeout: float = DEFAULT_CLIENT_TIMEOUT_S) -> docker.DockerClient:
    """A client for the engine `$DOCKER_HOST` (default: the local socket) names, API version negotiated.

    Raises:
        SandboxUnavailable: no engine answers.
    """
    try:
        client = docker.from_env(timeout=int(timeout))
        client.ping()
    except DockerException as exc:
        raise SandboxUnavailable(f"the Docker engine is not reachable ({exc}); {START_HINT}") from exc
    return client


def engine_reachable() -> bool:
    try:
        docker_client(timeout=5).close()
    except SandboxUnavailable:
        return False
    return True


def start_dockerd(*, log_path: Path = DOCKERD_LOG, wait_s: float = 60.0) -> None:
    """Start `dockerd` in the background (detached from this process) and wait until it answers.

    Raises:
        SandboxUnavailable: `dockerd` is not installed, this process is not root, or it never answered.
    """
    if engine_reachable():
        return
    binary = shutil.which("dockerd")
    if binary is None:
        raise SandboxUnavailable("dockerd is not installed; `apt-get install docker.io` (scripts/setup-sandbox.sh)")
    if os.geteuid() != 0:
        raise SandboxUnavailable("starting dockerd needs root; run scripts/setup-sandbox.sh as root")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        subprocess.Popen([binary], stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if engine_reachable():
            return
        time.sleep(0.5)
    raise SandboxUnavailable(f"dockerd did not answer within {wait_s:.0f} s; see {log_path}")
