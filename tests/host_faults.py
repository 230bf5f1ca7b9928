"""Faults from outside a sandbox, as an operator or a host-side reaper would cause them."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from skill2env.sandbox.base import Sandbox
from skill2env.sandbox.bwrap_backend import BwrapSandbox
from skill2env.sandbox.docker_backend import DockerSandbox
from skill2env.sandbox.engine import docker_client

OOM_THE_SERVER = (
    'until [ "$(cat /proc/$$/oom_score_adj)" = 1000 ]; do sleep 0.05; done; '
    "echo 0 > /proc/$$/oom_score_adj; head -c 250M /dev/zero > /tmp/fill; sleep 5"
)
"""An agent's command that makes the OOM killer take the server: once the server has raised the command's OOM
score (just after its exec; lowered before that, the raise would undo it), it gives the score up and fills its
memory-backed /tmp. The server is then the largest process left."""


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
