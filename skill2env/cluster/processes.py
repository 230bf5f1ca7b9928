"""The local cluster's processes: is one still running, stop one, pick a free port."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
from pathlib import Path

from skill2env.cluster.errors import ClusterError

STOP_TIMEOUT_SECONDS = 30


class ProcessStopError(ClusterError):
    """A process outlived SIGKILL's grace."""


def running(pid: int) -> bool:
    """Whether `pid` runs (a zombie, reaped here when it is our child, does not)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    stat = Path(f"/proc/{pid}/stat")
    try:
        return ") Z " not in stat.read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False


def stop_process(pid: int, what: str, *, timeout: float = STOP_TIMEOUT_SECONDS) -> None:
    """SIGTERM, then SIGKILL after `timeout`; a process that leads its own group (a worker and the step
    processes it started, a daemon) is signalled as the group."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        try:
            if os.getpgid(pid) == pid:
                os.killpg(pid, sig)
            else:
                os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while running(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not running(pid):
            return
    raise ProcessStopError(f"{what} (pid {pid}) did not stop")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
