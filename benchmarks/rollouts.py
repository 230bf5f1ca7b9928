"""Rollout throughput: concurrent solver rollouts of a scripted 10-step policy, per sandbox backend.

    python benchmarks/rollouts.py [--rollouts 16] [--steps 10] [--latency 0.2] [--backends docker,bwrap]
                                  [--repeats 1]

Starts the test suite's scripted OpenAI-compatible server (`tests/llm_server.py`) in its own
process, scripted as a policy: each answer comes after `--latency` seconds and is one `bash`
call (`echo step N >> progress.log`), the `--steps`-th a `finish`. Then, per backend, runs
`--rollouts` attempts of the solver on the csv-aggregation fixture task all at once (one
`RolloutRunner`, concurrency = `--rollouts`) through the whole machinery: started / finished
markers in a lake, the sandbox, the agent loop, partial and ATIF trajectory files, the final
workspace's snapshot in the store.

First, as the baseline measured in the same run, the same group with a null sandbox (commands
answered at once, nothing isolated: the loop, the model server, markers and files only).

Prints per backend: the group's wall time, rollouts and agent steps per second, statuses,
where each rollout's time went — waiting for the model, tool calls, the sandbox (start not
hidden behind the first model call, snapshot, stop) — the CPU this process and its children
used, and three overheads:

* against the ideal: the share of a rollout's wall time beyond `--steps` × `--latency` (what
  waiting for the model alone would take) — the strictest figure: it also counts model calls
  that take longer than `--latency` because the 2 cores are busy;
* outside model calls: the share of a rollout's wall time spent in tools, the sandbox and the
  loop (the issue's "sandbox + loop overhead");
* against the null sandbox: the share of a rollout's wall time the sandbox adds to the baseline.

Goals: every rollout completes with 16 at once on 2 cores, and sandbox + loop overhead ≤ 10 %
of wall time at 200 ms per model answer (judged on the share outside model calls; the other two
are printed beside it).

The share moves with the machine's state from one run to the next by more than most changes move
it: `--repeats N` runs every backend's group N times, alternating backends (each repeat with its own
baseline), and ends with each backend's spread, median and how often the goal was met.

bwrap keeps each rollout's directories under `$SKILL2ENV_BWRAP_DIR` (default: the temporary
directory); `--bwrap-dir /dev/shm/skill2env-bwrap` puts them on a tmpfs.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill2env.agent import AttemptLog, RolloutRunner, SolverPolicy, TaskRef, Trajectory, attempt_specs
from skill2env.home import Home
from skill2env.lake.lake import Lake
from skill2env.llm import CacheMode, ModelClient, ResponseCache, RoleConfig
from skill2env.sandbox import BACKEND_NAMES, BackendName, ExecResult, Sandbox, SandboxLimits, TaskDir

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "harbor" / "csv-aggregation"
OVERHEAD_GOAL = 0.10
NULL = "null"
"""The baseline: a sandbox that runs nothing."""
SANDBOX_LIMITS = {"storage_mb": 64, "tmp_mb": 64}


def serve(steps: int, latency: float) -> None:
    """The scripted policy's model: answer `n` (counted from the conversation) is bash until the last."""
    sys.path.insert(0, str(ROOT / "tests"))
    from llm_server import Scripted, ScriptedServer, slow, tool_calls

    def respond(request: dict[str, Any]) -> Scripted:
        turn = sum(1 for message in request["messages"] if message["role"] == "assistant")
        if turn + 1 >= steps:
            return slow(latency, tool_calls(("finish", {"message": f"done after {steps} steps"})))
        return slow(latency, tool_calls(("bash", {"command": f"echo step {turn} >> progress.log"})))

    with ScriptedServer(respond) as server:
        print(server.base_url, flush=True)
        while True:
            time.sleep(3600)


def start_server(steps: int, latency: float) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, __file__, "--serve", "--steps", str(steps), "--latency", str(latency)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


class NullSandbox(Sandbox):
    """Isolates nothing and costs nothing: every command succeeds at once without running; the
    workspace is a host copy of the task's (the baseline of what the loop costs without a sandbox)."""

    backend = "null"

    def __init__(self, limits: SandboxLimits | None = None, *, rollout_id: str | None = None) -> None:
        super().__init__(limits, rollout_id=rollout_id)
        self.root = Path(tempfile.mkdtemp(prefix="skill2env-null-sandbox-"))

    @property
    def workspace(self) -> str:
        return str(self.root / "workspace")

    def start(self, task: TaskDir) -> None:
        self._task = task
        shutil.copytree(task.workspace_dir, self.workspace, dirs_exist_ok=True)

    def exec(self, cmd: str | Sequence[str], *, timeout: float = 0.0, cwd: str | None = None,
             env: Mapping[str, str] | None = None, user: str = "agent") -> ExecResult:  # fmt: skip
        return ExecResult(exit_code=0, duration_s=0.0)

    def read_file(self, path: str) -> bytes:
        return Path(path).read_bytes()

    def write_file(self, path: str, data: bytes | str) -> None:
        Path(path).write_bytes(data.encode() if isinstance(data, str) else data)

    def copy_in(self, source: Path, destination: str) -> None:
        shutil.copytree(source, destination, dirs_exist_ok=True) if source.is_dir() else shutil.copy(
            source, destination
        )

    def copy_out(self, source: str, destination: Path) -> None:
        shutil.copytree(source, destination, dirs_exist_ok=True)

    def stop(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def run_group(backend: str, base_url: str, rollouts: int, waves: int, scratch: Path, bwrap_dir: str) -> Group:
    home = Home(scratch / backend)
    lake = Lake(home.lake_path, lock_timeout=120)
    lake.ensure_schema()
    config = RoleConfig(base_url=base_url, model="scripted-model", max_concurrency=max(8, rollouts))
    client = ModelClient("solver", config, cache=ResponseCache(home.root / "cache", CacheMode.off))
    task = TaskRef(TaskDir(FIXTURE), "csv-aggregation-i0", "bench")

    engine: BackendName = "docker" if backend == "docker" else "bwrap"  # the null sandbox names no engine

    def runner(concurrency: int) -> RolloutRunner:
        return RolloutRunner(
            SolverPolicy(client), backend=engine, run_id=f"bench-{backend}",
            home=home, attempts=AttemptLog(lake), concurrency=concurrency, sandbox_limits=SANDBOX_LIMITS,
            sandbox_options={"root": Path(bwrap_dir)} if backend == "bwrap" and bwrap_dir else None,
            sandbox_factory=(lambda limits, rollout_id: NullSandbox(limits, rollout_id=rollout_id))
            if backend == NULL else None,
        )  # fmt: skip

    runner(1).run_all(attempt_specs([task], 1))  # builds the task image and warms every path once
    group, specs = runner(rollouts), attempt_specs([task], rollouts * waves)
    warming = time.perf_counter()
    group.prepare(specs, wait_s=600)  # docker: the first wave's containers, started before it asks
    warming = time.perf_counter() - warming
    before, started = _cpu(), time.perf_counter()
    done = group.run_all(specs)
    wall, after = time.perf_counter() - started, _cpu()
    return Group(backend, wall, done, after[0] - before[0], after[1] - before[1], os.getloadavg()[0], warming)


@dataclass(frozen=True)
class Group:
    backend: str
    wall: float
    done: list[Trajectory]
    cpu_self: float
    """CPU seconds of this process (every thread) during the group."""
    cpu_children: float
    """CPU seconds of the processes it started and waited for (bwrap's; docker's run in the engine)."""
    load: float
    warming: float
    """Seconds spent starting the first wave's sandboxes ahead, before the group (docker)."""


def report(group: Group, steps: int, latency: float, concurrency: int, baseline: Group | None) -> tuple[bool, float]:
    done, wall = group.done, group.wall
    turns = sum(t.turns for t in done)
    mean = {field: statistics.mean(float(getattr(t, field) or 0.0) for t in done)
            for field in ("wall_s", "model_s", "tool_s", "sandbox_s")}  # fmt: skip
    other = mean["wall_s"] - mean["model_s"] - mean["tool_s"] - mean["sandbox_s"]
    overhead = 1 - steps * latency / mean["wall_s"]
    waiting = 1 - mean["model_s"] / mean["wall_s"]
    statuses = ", ".join(f"{s}: {sum(t.status == s for t in done)}" for s in sorted({t.status for t in done}))
    waves = -(-len(done) // concurrency)
    ideal = waves * steps * latency
    print(f"\n{group.backend}: {len(done)} rollouts, {concurrency} at once, × {steps} steps,"
          f" {latency * 1000:.0f} ms per model answer")  # fmt: skip
    if group.backend == "docker":
        print(f"  started ahead       {group.warming:7.2f} s: the first {concurrency} containers, before the group")
    print(f"  group wall          {wall:7.2f} s (ideal {ideal:.2f} s: nothing but waiting for the model)")
    print(f"  throughput          {len(done) / wall:7.2f} rollouts/s, {turns / wall:.1f} agent steps/s")
    print(f"  statuses            {statuses}")
    print(
        f"  one rollout (mean)  {mean['wall_s']:.3f} s = model {mean['model_s']:.3f} + tools {mean['tool_s']:.3f}"
        f" + sandbox {mean['sandbox_s']:.3f} + markers, files, loop {other:.3f}"
    )
    print(f"  one tool call       {mean['tool_s'] / max(1, steps - 1) * 1000:7.1f} ms (mean)")
    print(f"  overhead            {overhead:7.1%} of a rollout's wall time beyond {steps} × {latency * 1000:.0f} ms"
          " (against the ideal)")  # fmt: skip
    print(f"                      {waiting:7.1%} outside model calls: tools, sandbox, loop (the goal's measure)")
    if baseline is not None:
        added = 1 - statistics.mean(float(t.wall_s or 0.0) for t in baseline.done) / mean["wall_s"]
        print(f"                      {added:7.1%} added by the sandbox to the null-sandbox baseline of this run")
    print(
        f"  CPU                 this process {group.cpu_self:.2f} s, its child processes {group.cpu_children:.2f} s;"
        f" load average {group.load:.1f} on {os.cpu_count()} cores"
    )
    met = all(t.status == "completed" and t.turns == steps for t in done) and waiting <= OVERHEAD_GOAL
    if group.backend != NULL:
        print(f"  goal (all complete, outside model calls ≤ {OVERHEAD_GOAL:.0%}): {'met' if met else 'MISSED'}")
    return met, waiting


def summarize(backend: str, outcomes: list[tuple[bool, float]]) -> None:
    """One line for a backend's repeats: the goal's share, its spread and median, and how often it was met."""
    shares = sorted(share for _, share in outcomes)
    met = sum(ok for ok, _ in outcomes)
    goal = "" if backend == NULL else f"; goal met in {met} of {len(outcomes)}"
    print(f"{backend}: outside model calls over {len(outcomes)} repeats {shares[0]:.1%}–{shares[-1]:.1%}"
          f" (median {statistics.median(shares):.1%}){goal}")  # fmt: skip


def _cpu() -> tuple[float, float]:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rollouts", type=int, default=16)
    parser.add_argument("--waves", type=int, default=1,
                        help="run --rollouts × this many attempts, --rollouts at once (later waves take"
                        " containers started during the earlier ones)")  # fmt: skip
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per model answer")
    parser.add_argument("--backends", default="docker,bwrap")
    parser.add_argument(
        "--bwrap-dir",
        default="",
        help="where bwrap rollouts keep their directories (default: $SKILL2ENV_BWRAP_DIR or <tmp>); "
        "a tmpfs such as /dev/shm/skill2env-bwrap avoids disk metadata costs",
    )
    parser.add_argument("--repeats", type=int, default=1,
                        help="run each backend's group this many times, alternating backends, and sum up"
                        " the spread (the share moves with the machine's state from run to run)")  # fmt: skip
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.steps, args.latency)
        return
    server, base_url = start_server(args.steps, args.latency)
    try:
        with tempfile.TemporaryDirectory(prefix="skill2env-bench-rollouts-") as scratch:
            backends: list[str] = [b for b in BACKEND_NAMES if b in args.backends.split(",")]
            outcomes: dict[str, list[tuple[bool, float]]] = {backend: [] for backend in [NULL, *backends]}
            for repeat in range(args.repeats):
                home = Path(scratch) / str(repeat)
                baseline = run_group(NULL, base_url, args.rollouts, args.waves, home, args.bwrap_dir)
                outcomes[NULL].append(report(baseline, args.steps, args.latency, args.rollouts, None))
                for backend in backends:
                    group = run_group(backend, base_url, args.rollouts, args.waves, home, args.bwrap_dir)
                    outcomes[backend].append(report(group, args.steps, args.latency, args.rollouts, baseline))
            if args.repeats > 1:
                print()
                for backend, measured in outcomes.items():
                    summarize(backend, measured)
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
