"""Faults from outside a sandbox, as an operator or a host-side reaper would cause them."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from skill2env.sandbox.base import Sandbox
from skill2env.sandbox.bwrap_backend import BwrapSandbox
from skill2env.sandbox.docker_backend import DockerSandbox
from skill2env.sandbox.engine import docker_client


def kill_server_from_the_host(sandbox: Sandbox) -> None:
    """SIGKILL the sandbox's command server from the host (bwrap: the server itself, pid 1 inside, not
    bwrap; docker: the container)."""
    if isinstance(sandbox, BwrapSandbox):
        server = sandbox._server
        assert server is not None
        bwrap = server.process.pid
        children = Path(f"/proc/{bwrap}/task/{bwrap}/children").read_text().split()
        os.kill(int(children[0]), signal.SIGKILL)
        return
    assert isinstance(sandbox, DockerSandbox)
    client = docker_client()
    try:
        client.api.kill(sandbox.container_id)
    finally:
        client.close()
