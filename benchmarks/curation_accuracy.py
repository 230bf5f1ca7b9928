"""Curation against hand labels: agreement, keep / reject precision, per-criterion confusion.

    python benchmarks/curation_accuracy.py [--corpus DIR ...] [--labels LABELS.tsv] [--quiet]
    python benchmarks/curation_accuracy.py --speed 40 [--against CHECKOUT ...] [--corpus DIR ...]

Catalogs each corpus (default: `skills-dev` and `skills-dev-full`, the same skills with their
scripts), curates it with the static rules exactly as the pipeline does (catalog rows → domain
partitions → `curated_skills` rows), and compares the verdicts with the corpus's `LABELS.tsv`.
Prints, per corpus, the figures on all labels and on the high-confidence ones, the confusion of
each criterion (label pass / fail against rule pass / fail / undecided), and every disagreement
with the label's reason and the rules' reasons (`--quiet` leaves the list out).

`--speed N` times instead: one process per code tree (this one, and each `--against` checkout of
another commit, imported from there) catalogs each corpus and curates it (rows in, `curated_skills`
rows out); the processes then take turns, N rounds, each curating the corpus once a round and
cataloging it every fourth round. Taking turns puts every tree under the same load of the machine.
Prints the CPU time of one curation pass (least and median) and of the catalog (least), and catalog +
ten passes from the least times.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

from skill2env.catalog.catalog import catalog_skills
from skill2env.curation.accuracy import (
    Label,
    Prediction,
    confusion_lines,
    disagreements,
    prediction_of,
    read_labels,
    score,
)
from skill2env.curation.curator import Curator
from skill2env.curation.model_curator import ROLE as CURATOR_ROLE
from skill2env.curation.model_curator import ModelCurator
from skill2env.curation.partition import curate_partition
from skill2env.llm import CacheMode, ModelClient, ResponseCache, RoleConfig

SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpus"
DEFAULT_CORPORA = (SHARED / "skills-dev", SHARED / "skills-dev-full")


def predictions(corpus: Path, workers: int, curator: Curator | None = None) -> dict[str, Prediction]:
    """The verdict on every skill of `corpus`, by skill path: the rules', and `curator`'s on what they
    left undecided."""
    skills = catalog_skills(corpus, workers=workers).skills
    found: dict[str, Prediction] = {}
    for (domain,), frame in skills.group_by("domain", maintain_order=True):
        for row in curate_partition(frame, str(domain), curator).iter_rows(named=True):
            found[row["path"]] = prediction_of(row)
    return found


def endpoint_curator(base_url: str, model: str) -> ModelCurator:
    """A model curator on an OpenAI-compatible endpoint (no response cache: every answer is the model's)."""
    config = RoleConfig(base_url=base_url, model=model)
    return ModelCurator(ModelClient(CURATOR_ROLE, config, cache=ResponseCache(Path(os.devnull), CacheMode.off)))


def speed_worker(corpus: Path) -> None:
    """Catalog and curate `corpus` once, then on each input line time a curation pass (`cur`) or a
    catalog (`cat`) and print its CPU seconds."""
    skills = catalog_skills(corpus, workers=1).skills
    partitions = [(str(domain), frame) for (domain,), frame in skills.group_by("domain", maintain_order=True)]
    for domain, frame in partitions:
        curate_partition(frame, domain)
    print(skills.height, flush=True)
    for line in sys.stdin:
        started = time.process_time()
        if line.startswith("cat"):
            catalog_skills(corpus, workers=1)
        else:
            for domain, frame in partitions:
                curate_partition(frame, domain)
        print(time.process_time() - started, flush=True)


def speed(corpus: Path, rounds: int, trees: list[Path]) -> list[str]:
    """Curation and catalog CPU times of each code tree (`None`: this one) on `corpus`, taking turns."""
    workers: dict[str, subprocess.Popen[str]] = {}
    for tree in [None, *trees]:
        env = {**os.environ, "PYTHONPATH": str(tree)} if tree else None
        command = [sys.executable, __file__, "--speed-worker", "--corpus", str(corpus)]
        workers[str(tree or "this tree")] = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
    sizes = {name: int(_answer(worker)) for name, worker in workers.items()}
    times: dict[str, dict[str, list[float]]] = {name: {"cur": [], "cat": []} for name in workers}
    for turn in range(rounds):
        order = list(workers) if turn % 2 == 0 else list(reversed(workers))
        for kind in ("cur", "cat") if turn % 4 == 0 else ("cur",):
            for name in order:
                print(kind, file=workers[name].stdin, flush=True)
                times[name][kind].append(float(_answer(workers[name])))
    lines = []
    for name, worker in workers.items():
        worker.communicate()
        passes, catalogs = times[name]["cur"], times[name]["cat"]
        lines.append(
            f"{corpus.name} ({sizes[name]} skills), {name}: curation pass {min(passes):.3f} s "
            f"(median {statistics.median(passes):.3f} s), catalog {min(catalogs):.3f} s, "
            f"catalog + {10 * sizes[name]:,} curations {min(catalogs) + 10 * min(passes):.2f} s (CPU, {rounds} rounds)"
        )
    return lines


def _answer(worker: subprocess.Popen[str]) -> str:
    assert worker.stdout is not None
    line = worker.stdout.readline()
    if not line:
        raise RuntimeError(f"speed worker exited with {worker.wait()}")
    return line


def report(name: str, labels: list[Label], found: dict[str, Prediction], *, quiet: bool) -> None:
    high = [label for label in labels if label.confidence == "high"]
    every = score(labels, found)
    print(f"== {name}")
    print(f"all labels ({len(labels)}):  {every.summary()}")
    print(f"high confidence ({len(high)}): {score(high, found).summary()}")
    print("\n".join(confusion_lines(every)))
    if quiet:
        return
    for label, prediction in disagreements(labels, found):
        print(f"\n{label.skill_path}: label {label.verdict} ({label.confidence}), rules {prediction.verdict}")
        print(f"    label: {label.reason}")
        print(f"    rules: {', '.join(prediction.reasons) or '(no reasons)'}")
        for line in prediction.evidence[:4]:
            print(f"        {line[:160]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, action="append", help="a labelled corpus (repeatable)")
    parser.add_argument("--labels", type=Path, help="labels TSV (default: LABELS.tsv in each corpus)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--quiet", action="store_true", help="figures only, no list of disagreements")
    parser.add_argument("--speed", type=int, metavar="N", help="time catalog and curation instead (N rounds)")
    parser.add_argument("--against", type=Path, action="append", default=[], help="another checkout to time")
    parser.add_argument(
        "--curator-url",
        help="an OpenAI-compatible endpoint whose model settles what the rules leave undecided (default: rules only)",
    )
    parser.add_argument("--curator-model", default="curator", help="the model name to ask at --curator-url")
    parser.add_argument("--speed-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    pl.Config.set_tbl_rows(50)
    if args.speed_worker:
        speed_worker(args.corpus[0])
        return
    if args.speed:
        for corpus in args.corpus or DEFAULT_CORPORA:
            print("\n".join(speed(corpus, args.speed, args.against)))
        return
    for corpus in args.corpus or DEFAULT_CORPORA:
        labels_path = args.labels or corpus / "LABELS.tsv"
        if not labels_path.is_file():
            print(f"== {corpus.name}: no labels at {labels_path}, skipped")
            continue
        curator = endpoint_curator(args.curator_url, args.curator_model) if args.curator_url else None
        found = predictions(corpus, args.workers, curator)
        report(corpus.name, read_labels(labels_path), found, quiet=args.quiet)
        if curator is not None:
            print(f"curator {curator.name}: {dict(curator.outcomes)}")
        print()


if __name__ == "__main__":
    main()
