"""Catalog + curation throughput at the paper's scale (~47,000 skill folders).

    python benchmarks/catalog.py [--corpus DIR] [--target 47000] [--workers 0]
    python benchmarks/catalog.py --against CHECKOUT [--against-python PYTHON] [--rounds 3]

Replicates the development corpus into a temporary tree until it holds `--target` skill
folders (each replica's SKILL.md gets a unique line so content digests differ; other files
are hard links), then times, in this one run:

* the floor: walking the tree and reading + hashing every byte (what any catalog must do), once
  the copies are written back to disk, the best of two walks;
* the pipeline: `skill2env catalog`'s path (Dagster in-process: catalog → lake → curation
  of every domain partition → lake) into a fresh lake.

Prints skills/s, the pipeline/floor ratio, each step's time and the main process's peak RSS.

`--against CHECKOUT` compares instead: this tree's code and an older checkout's (its `skill2env`
package first on `PYTHONPATH`, run by `--against-python`: an interpreter with the libraries that
checkout was measured with, by default this one) each run the same path in a process of its own,
on the same replicated tree, taking turns for `--rounds` rounds (the first code alternates) so both
see the same machine state; each run gets a fresh lake. Prints each run's steps, then per code the
least and median catalog + curation (and + pattern selection), its ratio to the floor and its peak
RSS, and the ratio of this tree's times to the checkout's, round by round. Seconds move with the
machine's state from one run to the next; the ratio measured in the same round moves far less.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from skill2env.catalog.discover import discover_skills
from skill2env.home import Home

REPOSITORY = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPOSITORY.parent / "shared" / "corpus" / "skills-dev"
FLOOR_RUNS = 2
"""The floor is the best of this many walks: the smallest, so the strictest ratio."""


def replicate(corpus: Path, target: int, dest: Path) -> int:
    """Copy the corpus's skill folders into `dest` until it holds at least `target` of them."""
    originals = sorted({folder.relpath for folder in discover_skills(corpus) if folder.nested_in is None})
    replicas = -(-target // len(originals))
    for replica in range(replicas):
        for relpath in originals:
            _copy_skill(corpus / relpath, dest / f"r{replica:03d}" / relpath, replica)
    return sum(1 for _ in discover_skills(dest))


def _copy_skill(source: Path, target: Path, replica: int) -> None:
    for directory, _, files in os.walk(source):
        out_dir = target / Path(directory).relative_to(source)
        out_dir.mkdir(parents=True, exist_ok=True)
        for name in files:
            src, dst = Path(directory) / name, out_dir / name
            if src.is_symlink():
                continue
            if name.lower() in ("skill.md", "skills.md"):
                dst.write_bytes(src.read_bytes() + f"\n<!-- replica {replica} -->\n".encode())
            else:
                os.link(src, dst)


def read_floor(root: Path) -> float:
    """Seconds to walk `root` and read + sha256 every regular file."""
    started = time.perf_counter()
    for directory, _, files in os.walk(root):
        for name in files:
            path = Path(directory) / name
            if not path.is_symlink():
                hashlib.sha256(path.read_bytes()).hexdigest()
    return time.perf_counter() - started


def peak_rss_mib() -> float:
    """Peak RSS of this process (the one holding the frames and the lake connection).

    Workers are not counted here: on Linux a spawned child's `ru_maxrss` starts from its parent's
    size at fork time, so RUSAGE_CHILDREN reports the parent's peak, not the workers'.
    """
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


_RUN_IN_PROCESS = """
import json, resource, sys
from pathlib import Path
from skill2env.definitions import run_catalog
from skill2env.home import Home
outcome = run_catalog(Home(Path(sys.argv[1])), Path(sys.argv[2]), workers=int(sys.argv[3]))
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"skills": outcome.skills, "steps": outcome.step_seconds, "peak_rss_mib": peak}))
"""
"""One catalog run of the code first on `PYTHONPATH`; its last line is the figures as JSON. It uses
only what older versions of `run_catalog` have as well (`skills`, `step_seconds`)."""


@dataclass(frozen=True)
class CodeRun:
    steps: dict[str, float]
    peak_rss_mib: float

    @property
    def core(self) -> float:
        """Catalog + curation seconds."""
        return self.steps.get("skill_catalog", 0.0) + self.steps.get("curated_skills", 0.0)

    @property
    def with_selection(self) -> float:
        return self.core + self.steps.get("pattern_selections", 0.0)


def run_code(code: Path, python: str, tree: Path, home: Path, workers: int) -> CodeRun:
    """`run_catalog` of the `skill2env` package under `code`, run by `python` in a process of its own,
    into `home`."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    finished = subprocess.run(
        [python, "-c", _RUN_IN_PROCESS, str(home), str(tree), str(workers)],
        env=env, cwd=code, capture_output=True, text=True, check=False,
    )  # fmt: skip
    figures = next((line for line in reversed(finished.stdout.splitlines()) if line.startswith("{")), None)
    if finished.returncode != 0 or figures is None:
        raise SystemExit(f"the run of {code} failed (exit {finished.returncode}):\n{finished.stderr[-4000:]}")
    parsed = json.loads(figures)
    return CodeRun(parsed["steps"], parsed["peak_rss_mib"])


def compare(tree: Path, work: Path, floor: float, against: tuple[Path, str], rounds: int, workers: int) -> None:
    """This tree's code against `against` (a checkout and its interpreter), taking turns on the same
    tree, and the figures."""
    checkout, checkout_python = against
    codes = (REPOSITORY, checkout.resolve())
    pythons = {REPOSITORY: sys.executable, codes[1]: checkout_python}
    runs: dict[Path, list[CodeRun]] = {code: [] for code in codes}
    for round_number in range(rounds):
        for code in codes if round_number % 2 == 0 else codes[::-1]:
            home = work / f"home-{round_number}-{len(runs[code])}-{code.name}"
            run = run_code(code, pythons[code], tree, home, workers)
            shutil.rmtree(home, ignore_errors=True)
            runs[code].append(run)
            steps = ", ".join(f"{step} {seconds:.1f} s" for step, seconds in run.steps.items())
            print(f"round {round_number + 1}, {code}: catalog + curation {run.core:.1f} s "
                  f"({run.core / floor:.1f}x the floor); {steps}", flush=True)  # fmt: skip
    print()
    for code in codes:
        cores = [run.core for run in runs[code]]
        selections = [run.with_selection for run in runs[code]]
        print(f"{code}: catalog + curation least {min(cores):.1f} s ({min(cores) / floor:.1f}x the floor), "
              f"median {statistics.median(cores):.1f} s; + pattern selection least {min(selections):.1f} s "
              f"({min(selections) / floor:.1f}x), median {statistics.median(selections):.1f} s; "
              f"peak RSS {max(run.peak_rss_mib for run in runs[code]):,.0f} MiB")  # fmt: skip
    ratios = [now.core / before.core for now, before in zip(runs[codes[0]], runs[codes[1]], strict=True)]
    with_selection = [
        now.with_selection / before.with_selection for now, before in zip(runs[codes[0]], runs[codes[1]], strict=True)
    ]
    print("this tree / checkout, round by round: catalog + curation "
          + ", ".join(f"{ratio:.2f}" for ratio in ratios)
          + "; + pattern selection " + ", ".join(f"{ratio:.2f}" for ratio in with_selection))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--target", type=int, default=47_000)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--keep", action="store_true", help="keep the replicated tree and the lake")
    parser.add_argument("--against", type=Path, help="an older checkout to compare with, taking turns")
    parser.add_argument("--against-python", default=sys.executable, help="the interpreter that runs --against")
    parser.add_argument("--rounds", type=int, default=3, help="with --against: runs of each code")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        parser.error(f"corpus {args.corpus} not found")
    if args.against is not None and not (args.against / "skill2env" / "definitions.py").is_file():
        parser.error(f"{args.against} is not a checkout of this project (no skill2env/definitions.py)")

    from skill2env.definitions import run_catalog

    work = Path(tempfile.mkdtemp(prefix="skill2env-bench-"))
    try:
        started = time.perf_counter()
        folders = replicate(args.corpus, args.target, work / "skills")
        print(f"replicated {folders} skill folders in {time.perf_counter() - started:.1f} s under {work}")
        os.sync()  # the copies' write-back would otherwise slow down whichever measurement runs beside it
        floor = min(read_floor(work / "skills") for _ in range(FLOOR_RUNS))
        print(f"floor (walk + read + sha256 every file): {floor:.1f} s, {folders / floor:,.0f} skills/s")
        if args.against is not None:
            against = (args.against, args.against_python)
            compare(work / "skills", work, floor, against, args.rounds, args.workers)
            return
        started = time.perf_counter()
        outcome = run_catalog(Home(work / "home"), work / "skills", workers=args.workers)
        elapsed = time.perf_counter() - started
        own = peak_rss_mib()
        total = outcome.funnel.filter(outcome.funnel["domain"] == "*").row(0, named=True)
        steps = outcome.step_seconds
        core = steps.get("skill_catalog", 0.0) + steps.get("curated_skills", 0.0)
        print(f"catalog + curation (the steps skill_catalog + curated_skills): {core:.1f} s, "
              f"{outcome.skills / core:,.0f} skills/s, {core / floor:.1f}x the floor")  # fmt: skip
        selection = core + steps.get("pattern_selections", 0.0)
        print(f"catalog + curation + pattern selection: {selection:.1f} s, {selection / floor:.1f}x the floor")
        print(f"whole run (+ pattern pool, pattern selection, Dagster): {elapsed:.1f} s")
        print("  steps: " + ", ".join(f"{step} {seconds:.1f} s" for step, seconds in outcome.step_seconds.items()))
        print(f"skills cataloged: {outcome.skills}; curated: {total['curated']} ({total['curated_pct']} %)")
        print(f"peak RSS of the main process: {own:,.0f} MiB")
        print(f"lake size: {(work / 'home' / 'lake.duckdb').stat().st_size / 2**20:,.0f} MiB")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
