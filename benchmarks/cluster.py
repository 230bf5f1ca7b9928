"""The cluster profile against the embedded one, measured in one run, then the paper's scale estimated.

    python benchmarks/cluster.py [--backend bwrap] [--rows 20000] [--writers 4] [--catalog 4700] [--skip-pipeline]

1. Lake writes: rows/s of `curated_skills` partitions written through `Lake.write`, embedded (one
   DuckDB file, its file lock) against DuckLake (catalog in a private Postgres, data in a directory),
   by one writer and by `--writers` processes at once.
2. The pipeline (`skill2env run` on the bundled skills, one hardening round, two attempts): embedded,
   then on a local cluster (`skill2env cluster up`) with 1 and with 2 celery workers; with
   `--backend docker` the cluster's rollouts go to a pool of 1, then 2 Docker engines. Wall time and
   each stage's step time.
3. Catalog + curation per skill on `--catalog` replicated development skills (embedded).
4. The estimate: wall time and machines for the paper's scale (47K skills cataloged, ~3K tasks,
   validated with the hack-probe gate, 4 attempts each, 3 iterations) for 1, 8 and 64 workers, from the
   per-unit costs measured above. Its model is printed with it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from skill2env.cluster.postgres import LocalPostgres
from skill2env.cluster.processes import free_port
from skill2env.curation.tables import CURATED_SKILLS_SCHEMA
from skill2env.home import PROFILE_VARIABLE, Home
from skill2env.lake.ducklake import DuckLakeCatalog
from skill2env.lake.home_lake import lake_of
from skill2env.lake.lake import Lake, TableWrite

PARTITIONS = 8
RUN = ["run", "--iterations", "1", "--attempts", "2", "--no-compoworld"]
PAPER = {"skills": 47_000, "tasks": 3_000, "attempts": 4, "iterations": 3, "domains": 25}
WORKER_COUNTS = (1, 8, 64)
STAGE_STEP = re.compile(r"^iteration_\d+_+(?P<stage>\w+)$")
"""`iteration_0__validations`, `iteration_0_rollouts` (the multi-asset step), …: summed over iterations."""
STAGES = (
    "skill_catalog",
    "curated_skills",
    "pattern_selections",
    "task_authoring",
    "validations",
    "rollouts",
    "failure_classifications",
    "hardening",
    "sft_trajectories",
    "rl_environments",
)
"""The steps that materialize a stage (asset checks run as steps of their own and are left out)."""


# -- 1. lake writes ----------------------------------------------------------------------------------------


def curated_rows(rows: int, domain: str) -> pl.DataFrame:
    """`rows` synthetic curated skills of `domain`, every column of the table filled."""
    columns: dict[str, object] = {}
    for name, dtype in CURATED_SKILLS_SCHEMA.items():
        if name in ("skill_id", "path"):
            columns[name] = [f"{domain}/{name}-{i}" for i in range(rows)]
        elif dtype == pl.Boolean:
            columns[name] = [True] * rows
        elif dtype == pl.Int64:
            columns[name] = [1] * rows
        elif isinstance(dtype, pl.List):
            columns[name] = [["reason:example"]] * rows
        else:
            columns[name] = [{"domain": domain, "verdicts": "{}", "verdict": "kept"}.get(name, "pass")] * rows
    return pl.DataFrame(columns, schema=CURATED_SKILLS_SCHEMA)


def _write_partitions(lake: Lake, writer: int, partitions: int, rows: int, times: Any) -> None:
    frames = [curated_rows(rows, f"w{writer}-d{p}") for p in range(partitions)]  # made before the clock starts
    started = time.time()
    for p, frame in enumerate(frames):
        lake.write([TableWrite("curated_skills", frame, f"w{writer}-d{p}")], run_id="bench", code_version="bench")
    times.put((started, time.time()))


def write_rate(make: Callable[[], Lake], writers: int, rows: int) -> float:
    """Rows/s of `writers` processes each writing PARTITIONS // writers partitions (PARTITIONS in all),
    from the first write's start to the last one's end (process start-up not counted)."""
    make().ensure_schema()
    per_writer = PARTITIONS // writers
    context = multiprocessing.get_context("spawn")
    times = context.Queue()
    processes = [context.Process(target=_write_partitions, args=(make(), w, per_writer, rows, times))
                 for w in range(writers)]  # fmt: skip
    for process in processes:
        process.start()
    spans = [times.get(timeout=1800) for _ in processes]
    for process in processes:
        process.join()
        if process.exitcode != 0:
            raise RuntimeError(f"a writer exited {process.exitcode}")
    return writers * per_writer * rows / (max(end for _, end in spans) - min(start for start, _ in spans))


def lake_writes(work: Path, rows: int, writers: int) -> pl.DataFrame:
    postgres = LocalPostgres(work / "postgres", free_port())
    postgres.start()
    try:
        results = []
        for kind in ("embedded", "ducklake"):
            for count in (1, writers):
                name = f"{kind}-{count}"
                if kind == "ducklake":
                    postgres.create_database(name.replace("-", "_"))
                    catalog = DuckLakeCatalog(postgres.dsn(name.replace("-", "_")), str(work / name) + "/")
                    make = _lake_maker(work / f"{name}.duckdb", catalog)
                else:
                    make = _lake_maker(work / f"{name}.duckdb", None)
                rate = write_rate(make, count, rows)
                results.append({"lake": kind, "writers": count, "rows_per_s": round(rate)})
                print(f"  {kind:8} {count} writer(s): {rate:,.0f} rows/s", flush=True)
        return pl.DataFrame(results)
    finally:
        postgres.stop()


def _lake_maker(path: Path, catalog: DuckLakeCatalog | None) -> Callable[[], Lake]:
    def make() -> Lake:
        return Lake(path, lock_timeout=600, ducklake=catalog)

    return make


# -- 2. the pipeline ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PipelineRun:
    setup: str
    seconds: float
    stages: dict[str, float]
    tasks: int
    validations: int
    rollouts: int


def skill2env(*args: str, home: Path, **env: str) -> None:
    command = [sys.executable, "-m", "skill2env.cli", *args, "--home", str(home)]
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **env}, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{args} exited {done.returncode}:\n{done.stderr[-3000:]}")


def pipeline(setup: str, home: Path, backend: str, **env: str) -> PipelineRun:
    started = time.perf_counter()
    skill2env(*RUN, "--backend", backend, home=home, **env)
    seconds = time.perf_counter() - started
    lake = lake_of(Home(home))
    stages: dict[str, float] = {}
    for step, duration in _step_times(Home(home)).items():
        match = STAGE_STEP.match(step)
        key = match["stage"] if match else step
        stages[key] = stages.get(key, 0.0) + duration
    counts = lake.query(
        "SELECT (SELECT count(*) FROM tasks WHERE status = 'built') AS tasks, "
        "(SELECT count(*) FROM validations) AS validations, (SELECT count(*) FROM rollouts) AS rollouts"
    ).row(0, named=True)
    print(f"  {setup}: {seconds:.0f} s", flush=True)
    return PipelineRun(setup, seconds, stages, counts["tasks"], counts["validations"], counts["rollouts"])


def runs_table(runs: list[PipelineRun]) -> pl.DataFrame:
    """One row per stage (and the whole run), one column of seconds per setup."""
    rows: list[dict[str, object]] = [{"stage": "whole run"} | {r.setup: round(r.seconds, 1) for r in runs}]
    rows += [{"stage": stage} | {r.setup: round(r.stages.get(stage, 0.0), 1) for r in runs} for stage in STAGES]
    return pl.DataFrame(rows)


def _step_times(home: Home) -> dict[str, float]:
    """Every step's duration in the home's Dagster instance (all runs)."""
    import dagster as dg

    from skill2env.cluster.profile import dagster_instance_yaml
    from skill2env.home import activate_home

    activate_home(home, dagster_instance_yaml(home))
    durations: dict[str, float] = {}
    with dg.DagsterInstance.get() as instance:
        for record in instance.get_run_records():
            for stats in instance.get_run_step_stats(record.dagster_run.run_id):
                if stats.start_time is not None and stats.end_time is not None:
                    durations[stats.step_key] = durations.get(stats.step_key, 0.0) + stats.end_time - stats.start_time
    return durations


def pipelines(work: Path, backend: str) -> list[PipelineRun]:
    runs = [pipeline("embedded", work / "embedded", backend, **{PROFILE_VARIABLE: "embedded"})]
    for workers in (1, 2):
        home = work / f"cluster-{workers}"
        home.mkdir(parents=True)
        home.chmod(0o755)
        engines = ["--remote-engine"] if backend == "docker" and workers == 2 else ["--no-remote-engine"]
        skill2env("cluster", "up", "--workers", str(workers), *engines, home=home)
        try:
            label = f"cluster, {workers} worker(s)" + (
                f", {2 if workers == 2 else 1} engine(s)" if backend == "docker" else ""
            )
            runs.append(pipeline(label, home, backend, **{PROFILE_VARIABLE: "cluster"}))
        finally:
            skill2env("cluster", "down", "--purge", home=home)
    return runs


# -- 3. catalog per skill ----------------------------------------------------------------------------------


def catalog_per_skill(work: Path, target: int) -> float:
    from catalog import DEFAULT_CORPUS, replicate

    from skill2env.definitions import run_catalog

    skills = replicate(DEFAULT_CORPUS, target, work / "skills")
    outcome = run_catalog(Home(work / "catalog-home"), work / "skills")
    seconds = outcome.step_seconds.get("skill_catalog", 0.0) + outcome.step_seconds.get("curated_skills", 0.0)
    print(f"  catalog + curation: {skills} skills in {seconds:.1f} s", flush=True)
    return seconds / skills


# -- 4. the estimate ---------------------------------------------------------------------------------------


def estimate(per_skill: float, embedded: PipelineRun, *, turns: int, answer_s: float, sandboxes: int) -> pl.DataFrame:
    """Hours of each stage at the paper's scale on W workers (one worker = one machine like this one),
    from this machine's costs per unit on the offline path: catalog + curation per skill (one step:
    its chunks use one machine's cores), authoring, validation (every gate, the hack-probe runs
    included), classification and hardening per task, the sandbox and loop work of a rollout. Those
    stages run per domain partition, at most 25 at once (`domains`); validations spread over every
    worker's sandboxes. Rollouts with a model are bound by its answers, not by this machine: each
    takes `turns` answers of `answer_s` seconds, `sandboxes` at once per worker (an assumption, printed
    with the table; the offline policy's rollouts take no model time)."""
    tasks, per_task = max(embedded.tasks, 1), embedded.stages
    rollouts = PAPER["tasks"] * PAPER["attempts"] * PAPER["iterations"]
    per_rollout = per_task.get("rollouts", 0.0) / max(embedded.rollouts, 1)
    work = {  # stage → (machine-seconds, how many units run at once per worker count)
        "catalog + curation": (per_skill * PAPER["skills"], lambda w: 1),
        "authoring": (per_task.get("task_authoring", 0.0) / tasks * PAPER["tasks"], lambda w: min(w, PAPER["domains"])),
        "validation (every gate)": (
            per_task.get("validations", 0.0) / tasks * PAPER["tasks"] * PAPER["iterations"], lambda w: w
        ),
        "rollouts: sandbox + loop": (per_rollout * rollouts, lambda w: w),
        f"rollouts: model ({turns} x {answer_s:g} s, {sandboxes}/worker)": (
            rollouts * turns * answer_s / sandboxes, lambda w: w
        ),
        "classification + hardening": (
            (per_task.get("failure_classifications", 0.0) + per_task.get("hardening", 0.0))
            / tasks * PAPER["tasks"] * PAPER["iterations"],
            lambda w: min(w, PAPER["domains"]),
        ),
    }  # fmt: skip
    rows = []
    for stage, (seconds, parallel) in work.items():
        row: dict[str, object] = {"stage": stage, "machine_hours": round(seconds / 3600, 2)}
        row |= {f"wall_h_{w}w": round(seconds / parallel(w) / 3600, 2) for w in WORKER_COUNTS}
        rows.append(row)
    table = pl.DataFrame(rows)
    total = {"stage": "total", "machine_hours": round(float(table["machine_hours"].sum()), 2)}
    total |= {f"wall_h_{w}w": round(float(table[f"wall_h_{w}w"].sum()), 2) for w in WORKER_COUNTS}
    return pl.concat([table, pl.DataFrame([total])])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=["bwrap", "docker"], default="bwrap")
    parser.add_argument("--rows", type=int, default=20_000, help="rows per partition written (8 partitions)")
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--catalog", type=int, default=4_700, help="skills replicated for the per-skill cost")
    parser.add_argument("--skip-pipeline", action="store_true")
    parser.add_argument("--turns", type=int, default=20, help="model answers per rollout, for the estimate")
    parser.add_argument("--answer-seconds", type=float, default=2.0, help="seconds per model answer, for the estimate")
    parser.add_argument("--sandboxes", type=int, default=16, help="rollouts at once per worker, for the estimate")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    pl.Config.set_tbl_rows(50)
    pl.Config.set_tbl_cols(20)
    pl.Config.set_fmt_str_lengths(60)
    pl.Config.set_tbl_width_chars(160)
    work = Path(tempfile.mkdtemp(prefix="skill2env-bench-cluster-"))
    work.chmod(0o755)  # as root, the private Postgres runs as `postgres` and must reach its directory
    try:
        print(f"1. lake writes: {PARTITIONS} partitions x {args.rows:,} rows", flush=True)
        writes = lake_writes(work / "lake", args.rows, args.writers)
        print(writes)
        if args.skip_pipeline:
            return
        print(f"2. the pipeline on the bundled skills ({' '.join(RUN[1:])}, --backend {args.backend})", flush=True)
        runs = pipelines(work / "pipeline", args.backend)
        embedded = runs[0]
        print(runs_table(runs))
        print(f"  every setup: {embedded.tasks} tasks built, {embedded.validations} validation rows, "
              f"{embedded.rollouts} rollouts")  # fmt: skip
        print(f"3. catalog + curation per skill ({args.catalog:,} replicated skills, embedded)", flush=True)
        per_skill = catalog_per_skill(work / "catalog", args.catalog)
        print("4. estimate for the paper's scale: " + ", ".join(f"{k} {v:,}" for k, v in PAPER.items()))
        print(estimate.__doc__)
        print(estimate(per_skill, embedded, turns=args.turns, answer_s=args.answer_seconds, sandboxes=args.sandboxes))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
