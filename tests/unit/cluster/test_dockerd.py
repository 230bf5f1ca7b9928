"""The second engine's pid file after a kill: dockerd refuses to start while the pid in it exists."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from skill2env.cluster.dockerd import LocalEngine


def test_a_killed_engine_s_pid_file_is_cleared_and_its_zombie_reaped(tmp_path: Path) -> None:
    engine = LocalEngine(tmp_path, 2375)
    ended = subprocess.Popen(["true"])
    while Path(f"/proc/{ended.pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z":
        time.sleep(0.01)  # a zombie until reaped: dockerd would count it as running
    engine.pidfile.write_text(f"{ended.pid}\n")

    engine._clear_stale_pidfile()

    assert not engine.pidfile.exists()
    assert not Path(f"/proc/{ended.pid}").exists()
    ended.returncode = 0  # reaped above


def test_the_pid_file_of_an_engine_that_runs_is_kept(tmp_path: Path) -> None:
    engine = LocalEngine(tmp_path, 2375)
    with subprocess.Popen(["sleep", "30"]) as running:
        engine.pidfile.write_text(f"{running.pid}\n")
        try:
            engine._clear_stale_pidfile()
            assert engine.pidfile.exists()
        finally:
            running.kill()
