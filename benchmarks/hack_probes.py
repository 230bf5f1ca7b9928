"""The hack-probe gate's cost against the oracle gate's, per task, on world-kit tasks.

    python benchmarks/hack_probes.py [--backend bwrap] [--level 2] [--seeds 1] [--repeat 3] [--kits billing,incident]

For each kit task (every pattern at `--level`), times in this one run, `--repeat` times in turn: the
oracle gate (the reference solution in a sandbox, its workspace verified in a fresh one) and the
hack-probe gate (every strategy: the shared tamper run, the content batch and the tamper run's
verification in one fresh sandbox beside it, and whatever is verified again one by one). Prints each
task's median times and the ratio of their sums, the overall ratio (goal: at most 1.5), and the
machine's load average before and after (the figures only compare within one run).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from skill2env.agent import OraclePolicy
from skill2env.kits import KITS
from skill2env.sandbox import BackendName, Sandbox, SandboxLimits, TaskDir, make_sandbox
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.harbor import write_task_dir
from skill2env.validation.gates import run_policy
from skill2env.validation.hack_probes import STRATEGIES, ProbeStatus, probe_task

SKILL = SkillRef(skill_id="s-bench", name="bench", path="bench")
GOAL = 1.5


def _skill(root: Path) -> Path:
    skill = root / "skill"
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text("---\nname: bench\ndescription: benchmark skill\n---\n# bench\n")
    return skill


def bench(kit_name: str, level: int, seed: int, root: Path, backend: BackendName,
          repeat: int) -> tuple[list[float], list[float], int]:  # fmt: skip
    """(oracle gate seconds, hack-probe gate seconds) per repeat, and the strategies not passed."""
    kit = KITS[kit_name]
    draft = kit.build(seed, SKILL, "office-documents", dict.fromkeys(kit.patterns, level))
    task_dir = root / f"{kit_name}-{level}-{seed}"
    write_task_dir(draft, task_dir, skill_dir=_skill(root))
    task, rubric = TaskDir(task_dir), draft.blueprint.rubric

    def sandboxes() -> Sandbox:
        return make_sandbox(backend, SandboxLimits.for_task(task))

    oracle, probes, beaten = [], [], 0
    for _ in range(repeat):
        started = time.perf_counter()
        result, what, _ = run_policy(OraclePolicy(), task, rubric, sandboxes)
        oracle.append(time.perf_counter() - started)
        if result is None or result.status != "scored":
            raise RuntimeError(f"{kit_name}: the oracle run failed: {what}")
        started = time.perf_counter()
        outcomes = probe_task(task, rubric, sandboxes)
        probes.append(time.perf_counter() - started)
        beaten = sum(1 for o in outcomes if o.status != ProbeStatus.passed)
    return oracle, probes, beaten


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", default="bwrap", choices=["bwrap", "docker"])
    parser.add_argument("--level", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kits", default=",".join(sorted(KITS)))
    args = parser.parse_args()
    total_oracle = total_probes = 0.0
    print(f"{len(STRATEGIES)} strategies, backend {args.backend}, intensity {args.level}, {args.repeat} repeats, "
          f"{os.cpu_count()} CPUs, load average {_load()}")  # fmt: skip
    print(f"{'task':<24} {'oracle gate s':>13} {'hack probes s':>13} {'ratio':>6} {'beaten':>6}")
    with tempfile.TemporaryDirectory(prefix="skill2env-bench-probes-") as scratch:
        for kit_name in args.kits.split(","):
            for seed in range(args.seeds):
                oracle, probes, beaten = bench(kit_name, args.level, seed, Path(scratch), args.backend, args.repeat)
                total_oracle += sum(oracle)
                total_probes += sum(probes)
                name = f"{kit_name} L{args.level} s{seed}"
                print(f"{name:<24} {statistics.median(oracle):>13.2f} {statistics.median(probes):>13.2f} "
                      f"{sum(probes) / sum(oracle):>6.2f} {beaten:>6}")  # fmt: skip
    ratio = total_probes / total_oracle
    print(f"overall: hack probes / oracle gate = {ratio:.2f} (goal <= {GOAL}); load average {_load()}")


if __name__ == "__main__":
    main()
