"""The cluster profile end to end: `skill2env cluster up` with two celery workers and a second Docker
engine, the main job on the bundled skills with its steps on the workers, its tables in DuckLake on
Postgres and its docker rollouts on both engines, compared with an embedded run of the same job (in
bwrap); then `cluster down`, leaving no process, container or volume behind."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import docker
import polars as pl
import pytest

from skill2env.home import PROFILE_VARIABLE, Home
from skill2env.lake.home_lake import lake_of
from skill2env.sandbox.base_image import BASE_IMAGE
from skill2env.sandbox.images import TASK_IMAGE_REPOSITORY
from skill2env.sandbox.labels import SANDBOX_LABEL

pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.bwrap, pytest.mark.docker]

RUN = ["run", "--iterations", "1", "--attempts", "2", "--no-compoworld"]
"""The main job, one hardening round (the offline path is deterministic: both runs must agree, whichever
sandbox backend runs it)."""
PUBLIC_VIEWS = "SELECT view_name FROM duckdb_views() WHERE NOT internal AND database_name = current_database()"
ORDERED = {
    "tasks": "SELECT task_id, iteration, status, task_digest FROM tasks ORDER BY ALL",
    "gates": "SELECT task_id, gate, status, reward, accepted FROM validations ORDER BY ALL",
    # by task and attempt: rollout ids are random
    "rewards": "SELECT task_id, attempt, policy, reward, full_credit FROM rollout_rewards ORDER BY ALL",
    "curve": "SELECT * FROM hardening_curve ORDER BY ALL",
}


def skill2env(*args: str, home: Path, timeout: float = 1800, **env: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "skill2env.cli", *args, "--home", str(home)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False,
                          env={**os.environ, **env})  # fmt: skip
    assert done.returncode == 0, f"{args} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    return done


@pytest.fixture
def cluster_home() -> Iterator[Path]:
    # Outside pytest's 0700 tmp tree: as root, the cluster's Postgres runs as `postgres` and must reach it.
    root = Path(tempfile.mkdtemp(prefix="skill2env-cluster-test-"))
    root.chmod(0o755)
    home = root / "home"
    try:
        yield home
    finally:
        subprocess.run([sys.executable, "-m", "skill2env.cli", "cluster", "down", "--purge", "--home", str(home)],
                       capture_output=True, timeout=300, check=False)  # fmt: skip
        shutil.rmtree(root, ignore_errors=True)


def facts(home: Home) -> dict[str, pl.DataFrame]:
    lake = lake_of(home)
    views = sorted(lake.query(PUBLIC_VIEWS)["view_name"])
    counts = pl.DataFrame({"view": views, "rows": [lake.query(f'SELECT count(*) FROM "{v}"').item() for v in views]})
    return {"counts": counts} | {name: lake.query(sql) for name, sql in ORDERED.items()}


def test_the_main_job_on_two_workers_and_ducklake_matches_the_embedded_run(cluster_home: Path, tmp_path: Path) -> None:
    up = skill2env("cluster", "up", "--workers", "2", home=cluster_home)
    assert "worker2" in up.stderr
    state = json.loads((cluster_home / "cluster" / "state.json").read_text())
    pids = [w["pid"] for w in state["workers"]] + [state["redis_pid"]]

    skill2env(*RUN, "--backend", "docker", "--profile", "cluster", home=cluster_home)
    embedded_home = tmp_path / "embedded"
    skill2env(*RUN, "--backend", "bwrap", home=embedded_home, **{PROFILE_VARIABLE: "embedded"})

    cluster = Home(cluster_home)
    assert lake_of(cluster).ducklake is not None
    on_cluster, embedded = facts(cluster), facts(Home(embedded_home))
    for name, frame in embedded.items():
        only_cluster, only_embedded = (
            on_cluster[name].join(frame, on=frame.columns, how="anti", nulls_equal=True),
            frame.join(on_cluster[name], on=frame.columns, how="anti", nulls_equal=True),
        )
        assert on_cluster[name].equals(frame), (
            f"{name}: only on the cluster\n{only_cluster}\nonly embedded\n{only_embedded}"
        )
    assert embedded["tasks"].height > 0 and embedded["rewards"].height > 0
    # Every step ran on a worker, and both workers took steps.
    logs = [Path(w["log"]).read_text() for w in state["workers"]]
    assert all("succeeded" in log for log in logs)
    # The shared storage holds the task store and the exports; the CLI's home holds none of them.
    shared = cluster.data_root
    assert shared != cluster.root and (shared / "objects").is_dir() and (shared / "exports" / "sft").is_dir()
    assert not (cluster.root / "objects").exists()

    # Rollouts ran on the second engine too: it received the base image and built task images.
    second = docker.DockerClient(base_url=f"tcp://127.0.0.1:{state['engine_port']}", timeout=30)
    try:
        tags = {tag for image in second.images.list() for tag in image.tags}
        assert BASE_IMAGE in tags and any(tag.startswith(f"{TASK_IMAGE_REPOSITORY}:") for tag in tags)
    finally:
        second.close()

    skill2env("cluster", "down", home=cluster_home)
    assert not (cluster_home / "cluster.toml").exists()
    pids.append(state["engine_pid"])
    machine = docker.from_env()
    try:
        leftovers = machine.containers.list(all=True, filters={"label": SANDBOX_LABEL})
        leftovers += machine.volumes.list(filters={"label": SANDBOX_LABEL})
        assert leftovers == []
    finally:
        machine.close()
    assert [
        pid for pid in pids if Path(f"/proc/{pid}").exists() and ") Z " not in Path(f"/proc/{pid}/stat").read_text()
    ] == []
