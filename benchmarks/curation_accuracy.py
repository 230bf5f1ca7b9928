"""Curation against hand labels: agreement, keep / reject precision, per-criterion confusion.

    python benchmarks/curation_accuracy.py [--corpus DIR ...] [--labels LABELS.tsv] [--quiet]

Catalogs each corpus (default: `skills-dev` and `skills-dev-full`, the same skills with their
scripts), curates it with the static rules exactly as the pipeline does (catalog rows → domain
partitions → `curated_skills` rows), and compares the verdicts with the corpus's `LABELS.tsv`.
Prints, per corpus, the figures on all labels and on the high-confidence ones, the confusion of
each criterion (label pass / fail against rule pass / fail / undecided), and every disagreement
with the label's reason and the rules' reasons (`--quiet` leaves the list out).
"""

from __future__ import annotations

import argparse
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
from skill2env.curation.partition import curate_partition

SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpus"
DEFAULT_CORPORA = (SHARED / "skills-dev", SHARED / "skills-dev-full")


def predictions(corpus: Path, workers: int) -> dict[str, Prediction]:
    """The rules' verdict on every skill of `corpus`, by skill path."""
    skills = catalog_skills(corpus, workers=workers).skills
    found: dict[str, Prediction] = {}
    for (domain,), frame in skills.group_by("domain", maintain_order=True):
        for row in curate_partition(frame, str(domain)).iter_rows(named=True):
            found[row["path"]] = prediction_of(row)
    return found


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
    args = parser.parse_args()
    pl.Config.set_tbl_rows(50)
    for corpus in args.corpus or DEFAULT_CORPORA:
        labels_path = args.labels or corpus / "LABELS.tsv"
        if not labels_path.is_file():
            print(f"== {corpus.name}: no labels at {labels_path}, skipped")
            continue
        report(corpus.name, read_labels(labels_path), predictions(corpus, args.workers), quiet=args.quiet)
        print()


if __name__ == "__main__":
    main()
