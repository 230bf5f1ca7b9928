"""Catalog + curation throughput at the paper's scale (~47,000 skill folders).

    python benchmarks/catalog.py [--corpus DIR] [--target 47000] [--workers 0]

Replicates the development corpus into a temporary tree until it holds `--target` skill
folders (each replica's SKILL.md gets a unique line so content digests differ; other files
are hard links), then times, in this one run:

* the floor: walking the tree and reading + hashing every byte (what any catalog must do), once
  the copies are written back to disk, the best of two walks;
* the pipeline: `skill2env catalog`'s path (Dagster in-process: catalog → lake → curation
  of every domain partition → lake) into a fresh lake.

Prints skills/s, the pipeline/floor ratio, each step's time and the main process's peak RSS.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

from skill2env.catalog.discover import discover_skills
from skill2env.home import Home

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "skills-dev"
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--target", type=int, default=47_000)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--keep", action="store_true", help="keep the replicated tree and the lake")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        parser.error(f"corpus {args.corpus} not found")

    from skill2env.definitions import run_catalog

    work = Path(tempfile.mkdtemp(prefix="skill2env-bench-"))
    try:
        started = time.perf_counter()
        folders = replicate(args.corpus, args.target, work / "skills")
        print(f"replicated {folders} skill folders in {time.perf_counter() - started:.1f} s under {work}")
        os.sync()  # the copies' write-back would otherwise slow down whichever measurement runs beside it
        floor = min(read_floor(work / "skills") for _ in range(FLOOR_RUNS))
        print(f"floor (walk + read + sha256 every file): {floor:.1f} s, {folders / floor:,.0f} skills/s")
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
