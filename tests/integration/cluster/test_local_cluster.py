"""The cluster profile end to end: `skill2env cluster up` with two celery workers and a second Docker
engine, the main job on the bundled skills with its steps on the workers, its tables in DuckLake on
Postgres and its docker rollouts on both engines, compared with an embedded run of the same job (in
bwrap); then `cluster down`, leaving no process, container or volume behind."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import docker
import polars as pl
import psycopg2
import pytest

from skill2env.cluster.profile import cluster_settings
from skill2env.definitions import POOL_SLOTS, build_definitions
from skill2env.home import PROFILE_VARIABLE, Home
from skill2env.lake.home_lake import lake_of
from skill2env.sandbox.base_image import BASE_IMAGE
from skill2env.sandbox.images import TASK_IMAGE_REPOSITORY
from skill2env.sandbox.labels import SANDBOX_LABEL

# Two runs of the main job (cluster, embedded), each up to `skill2env`'s own limit.
pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.bwrap, pytest.mark.docker,
              pytest.mark.alone, pytest.mark.timeout(3600)]  # fmt: skip

RUN = ["run", "--iterations", "1", "--attempts", "2", "--no-compoworld"]
"""The main job, one hardening round (the offline path is deterministic: both runs must agree, whichever
sandbox backend runs it)."""
WARM_LINE = re.compile(r"warm sandboxes: (\d+) started ahead, (\d+) taken by attempts")
PUBLIC_VIEWS = "SELECT view_name FROM duckdb_views() WHERE NOT internal AND database_name = current_database()"
ORDERED = {
    "tasks": "SELECT task_id, iteration, status, task_digest FROM tasks ORDER BY ALL",
    "gates": "SELECT task_id, gate, status, reward, accepted FROM validations ORDER BY ALL",
    # by task and attempt: rollout ids are random
    "rewards": "SELECT task_id, attempt, policy, reward, full_credit FROM rollout_rewards ORDER BY ALL",
    "curve": "SELECT * FROM hardening_curve ORDER BY ALL",
}

WHY_NOT = (
    "SELECT stage, iteration, status, reason, items, example, example_reason FROM stage_failures",
    "SELECT task_id, attempt, backend, status, error FROM rollouts WHERE status <> 'completed' ORDER BY ALL",
    "SELECT task_id, gate, status, evidence FROM validations WHERE status NOT IN ('passed', 'skipped') ORDER BY ALL",
)


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


def differences(on_cluster: dict[str, pl.DataFrame], embedded: dict[str, pl.DataFrame]) -> list[str]:
    """Each fact the two runs disagree on, as the rows only one side has (short enough for a CI log's tail)."""
    found = []
    for name, frame in embedded.items():
        if on_cluster[name].equals(frame):
            continue
        only_cluster = on_cluster[name].join(frame, on=frame.columns, how="anti", nulls_equal=True)
        only_embedded = frame.join(on_cluster[name], on=frame.columns, how="anti", nulls_equal=True)
        with pl.Config(tbl_rows=40, fmt_str_lengths=60, tbl_width_chars=160):
            found.append(f"{name} ({on_cluster[name].height} rows on the cluster, {frame.height} embedded): only on "
                         f"the cluster\n{only_cluster}\nonly embedded\n{only_embedded}")  # fmt: skip
    return found


def why_not(home: Home) -> str:
    """What the cluster's lake says did not succeed: its stage failures, and attempts or gates that did not
    pass."""
    lake = lake_of(home)
    with pl.Config(tbl_rows=40, fmt_str_lengths=200, tbl_width_chars=240):
        return "\n".join(str(lake.query(sql)) for sql in WHY_NOT)


def keep_for_inspection(home: Home, folder: Path) -> None:
    """The cluster lake's public views as Parquet files (the lanes keep a failed test's temporary folder;
    the cluster's own lake goes with the teardown)."""
    folder.mkdir(parents=True)
    lake = lake_of(home)
    for view in lake.query(PUBLIC_VIEWS)["view_name"]:
        lake.query(f'SELECT * FROM "{view}"').write_parquet(folder / f"{view}.parquet")


@dataclass(frozen=True)
class StepSpan:
    run_id: str
    step: str
    start: float
    end: float


def step_spans(home: Home) -> list[StepSpan]:
    """Every step that started and ended on the cluster's Dagster instance, from its event log in Postgres
    (the workers write the start and end events where the step runs)."""
    settings = cluster_settings(home)
    assert settings is not None and settings.dagster_postgres_url
    query = """
        SELECT run_id, step_key, min(timestamp) FILTER (WHERE dagster_event_type = 'STEP_START'),
               max(timestamp) FILTER (WHERE dagster_event_type IN ('STEP_SUCCESS', 'STEP_FAILURE'))
        FROM event_logs WHERE step_key IS NOT NULL GROUP BY run_id, step_key"""
    with psycopg2.connect(settings.dagster_postgres_url) as connection, connection.cursor() as cursor:
        cursor.execute(query)
        rows = cursor.fetchall()
    return [StepSpan(run, step, start.timestamp(), end.timestamp()) for run, step, start, end in rows if start and end]


def most_at_once(spans: list[StepSpan]) -> int:
    edges = sorted([(span.start, 1) for span in spans] + [(span.end, -1) for span in spans])
    running = most = 0
    for _, change in edges:  # an end sorts before a start at the same instant
        running += change
        most = max(most, running)
    return most


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
    differing = differences(on_cluster, embedded)
    if differing:  # pytest.fail: the message alone, ending with the likeliest cause (a CI log shows its tail)
        keep_for_inspection(cluster, tmp_path / "cluster-lake")
        kept = f"the cluster's lake is kept in {tmp_path / 'cluster-lake'}; it says"
        pytest.fail("\n".join(["the cluster run and the embedded run differ:", *differing, kept, why_not(cluster)]))
    assert embedded["tasks"].height > 0 and embedded["rewards"].height > 0
    # Every step ran on a worker, and both workers took steps.
    logs = [Path(w["log"]).read_text() for w in state["workers"]]
    assert all("succeeded" in log for log in logs)
    # The rollouts took containers started ahead on the engines (warm sandboxes on a pool of engines).
    warm = [(int(started), int(taken)) for log in logs for started, taken in WARM_LINE.findall(log)]
    assert warm and sum(taken for _, taken in warm) > 0, warm
    # The pools hold across the workers: no more steps of a pool ran at once than its slots (set on the shared
    # instance). The export run's two steps, both in `lake` (1 slot), were ready together, with two workers idle.
    pools = {asset.op.name: asset.op.pool for asset in build_definitions(home=str(cluster_home), iterations=1).assets}
    spans = step_spans(cluster)
    exports = [span for span in spans if span.step in ("sft_trajectories", "rl_environments")]
    assert len(exports) == 2 and exports[0].run_id == exports[1].run_id
    for pool, (variable, default) in POOL_SLOTS.items():
        in_pool = [span for span in spans if pools.get(span.step) == pool]
        assert in_pool and most_at_once(in_pool) <= int(os.environ.get(variable, default) if variable else default)
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
