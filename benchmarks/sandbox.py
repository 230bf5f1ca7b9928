"""Sandbox overheads: container / namespace start and per-command cost, against a plain subprocess.

    python benchmarks/sandbox.py [--execs 200] [--starts 10] [--backends docker,bwrap]

Times, in this one run and on the csv-aggregation fixture task:

* start: `start()` (image cached) + `stop()` of a sandbox, `--starts` times;
* exec: `exec("true")` in a started sandbox, `--execs` times (after a few warm-ups);
* the baseline: `subprocess.run(["bash", "-c", "true"])` from this process, as often.

Prints median and p95 per backend, and the overhead over the baseline. The goals: docker exec
≤ 60 ms median, bwrap exec ≤ 15 ms median.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from skill2env.sandbox import BACKEND_NAMES, BackendName, SandboxLimits, TaskDir, make_sandbox

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "harbor" / "csv-aggregation"
GOALS_MS = {"docker": 60.0, "bwrap": 15.0}
WARMUP = 5
LIMITS = SandboxLimits(storage_mb=64, tmp_mb=64, wall_clock_s=3600)


def timings(action: Callable[[], object], repeat: int) -> list[float]:
    """Milliseconds of each of `repeat` calls."""
    measured = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        measured.append((time.perf_counter() - started) * 1000)
    return measured


def summary(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def start_and_stop(backend: BackendName, task: TaskDir) -> None:
    sandbox = make_sandbox(backend, LIMITS, reap=False)
    sandbox.start(task)
    sandbox.stop()


def bench_backend(backend: BackendName, task: TaskDir, starts: int, execs: int) -> dict[str, list[float]]:
    start_and_stop(backend, task)  # builds the task image once, outside the measurement
    measured = {"start+stop": timings(lambda: start_and_stop(backend, task), starts)}
    sandbox = make_sandbox(backend, LIMITS)
    sandbox.start(task)
    try:
        timings(lambda: sandbox.exec("true"), WARMUP)
        measured["exec true"] = timings(lambda: sandbox.exec("true"), execs)
    finally:
        sandbox.stop()
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--execs", type=int, default=200)
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--backends", default="docker,bwrap")
    args = parser.parse_args()
    task = TaskDir(FIXTURE)

    timings(lambda: subprocess.run(["bash", "-c", "true"], check=True), WARMUP)
    baseline = summary(timings(lambda: subprocess.run(["bash", "-c", "true"], check=True), args.execs))
    print(f"{'what':<28}{'median ms':>11}{'p95 ms':>10}{'over baseline':>15}")
    print(f"{'subprocess bash -c true':<28}{baseline[0]:>11.1f}{baseline[1]:>10.1f}{'':>15}")
    verdicts = []
    backends: list[BackendName] = [b for b in BACKEND_NAMES if b in args.backends.split(",")]
    for backend in backends:
        measured = bench_backend(backend, task, args.starts, args.execs)
        for what, values in measured.items():
            median, p95 = summary(values)
            over = f"+{median - baseline[0]:.1f}" if what == "exec true" else ""
            print(f"{backend + ' ' + what:<28}{median:>11.1f}{p95:>10.1f}{over:>15}")
            if what == "exec true":
                goal = GOALS_MS[backend]
                verdict = "met" if median <= goal else "MISSED"
                verdicts.append(f"{backend} exec median {median:.1f} ms (goal ≤ {goal:.0f}): {verdict}")
    print("\n".join(verdicts))


if __name__ == "__main__":
    main()
