"""How far curation agrees with hand labels: agreement, keep / reject precision, per-criterion confusion.

Labels come as a TSV with a header: `skill_path`, `label` (keep | reject), one column per
criterion (pass | fail), `confidence` (high | low) and a one-line `reason`. Predictions are
`curated_skills` rows (or anything with the same columns): their `verdict` (kept | rejected |
undecided), or, for rows without one, `keep` when curated, `undecided` when nothing failed but a
criterion stayed undecided, `reject` otherwise. An undecided verdict never
agrees with a label; it is counted on its own.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

CRITERIA = ("practical", "compatible", "feasible", "safe")
KEEP, REJECT, UNDECIDED = "keep", "reject", "undecided"
_VERDICTS = {"kept": KEEP, "rejected": REJECT, "undecided": UNDECIDED}
"""`curated_skills.verdict` → prediction (rows without the column are read from the criteria)."""


@dataclass(frozen=True)
class Label:
    skill_path: str
    verdict: str
    """keep | reject"""
    criteria: Mapping[str, str]
    """criterion → pass | fail"""
    confidence: str
    reason: str


@dataclass(frozen=True)
class Prediction:
    skill_path: str
    verdict: str
    """keep | reject | undecided"""
    criteria: Mapping[str, str]
    """criterion → pass | fail | undecided"""
    reasons: Sequence[str]
    evidence: Sequence[str] = ()


@dataclass
class Scores:
    """Agreement figures over one set of labels."""

    labels: int = 0
    agreed: int = 0
    kept: int = 0
    kept_right: int = 0
    rejected: int = 0
    rejected_right: int = 0
    undecided: int = 0
    undecided_right: int = 0
    """Undecided skills labelled reject: agreements if undecided were taken for a reject."""
    missing: int = 0
    """Labelled skills curation has no row for (counted as disagreements)."""
    confusion: dict[str, dict[tuple[str, str], int]] = field(default_factory=dict)
    """criterion → (label, prediction) → skills."""

    @property
    def agreement(self) -> float:
        return self.agreed / self.labels if self.labels else 0.0

    @property
    def agreement_undecided_rejected(self) -> float:
        return (self.agreed + self.undecided_right) / self.labels if self.labels else 0.0

    @property
    def keep_precision(self) -> float:
        return self.kept_right / self.kept if self.kept else 0.0

    @property
    def reject_precision(self) -> float:
        return self.rejected_right / self.rejected if self.rejected else 0.0

    def summary(self) -> str:
        return (
            f"agreement {self.agreed}/{self.labels} ({_pct(self.agreement)}), "
            f"keep precision {self.kept_right}/{self.kept} ({_pct(self.keep_precision)}), "
            f"reject precision {self.rejected_right}/{self.rejected} ({_pct(self.reject_precision)}), "
            f"undecided {self.undecided} (agreement {_pct(self.agreement_undecided_rejected)} "
            "if undecided meant reject)" + (f", missing {self.missing}" if self.missing else "")
        )


def read_labels(path: Path) -> list[Label]:
    """The labels of a LABELS.tsv, in file order."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [
        Label(
            skill_path=row["skill_path"],
            verdict=row["label"].strip().lower(),
            criteria={criterion: row[criterion].strip().lower() for criterion in CRITERIA},
            confidence=row.get("confidence", "").strip().lower(),
            reason=row.get("reason", "").strip(),
        )
        for row in rows
    ]


def prediction_of(row: Mapping[str, object]) -> Prediction:
    """A `curated_skills` row as a prediction."""
    criteria = {criterion: str(row[criterion]) for criterion in CRITERIA}
    recorded = row.get("verdict")
    if recorded in _VERDICTS:
        verdict = _VERDICTS[str(recorded)]
    elif row["curated"]:
        verdict = KEEP
    elif row.get("parsed", True) and "fail" not in criteria.values() and not _reasons(row, "reasons", "duplicate:"):
        verdict = UNDECIDED
    else:
        verdict = REJECT
    reasons = [str(reason) for reason in row.get("reasons") or []]  # type: ignore[attr-defined]
    return Prediction(str(row["path"]), verdict, criteria, reasons, _evidence(row))


def score(labels: Iterable[Label], predictions: Mapping[str, Prediction]) -> Scores:
    """Agreement of `predictions` (by skill path) with `labels`."""
    scores = Scores(confusion={criterion: {} for criterion in CRITERIA})
    for label in labels:
        scores.labels += 1
        prediction = predictions.get(label.skill_path)
        if prediction is None:
            scores.missing += 1
            continue
        scores.agreed += prediction.verdict == label.verdict
        if prediction.verdict == KEEP:
            scores.kept += 1
            scores.kept_right += label.verdict == KEEP
        elif prediction.verdict == REJECT:
            scores.rejected += 1
            scores.rejected_right += label.verdict == REJECT
        else:
            scores.undecided += 1
            scores.undecided_right += label.verdict == REJECT
        for criterion in CRITERIA:
            cell = (label.criteria[criterion], prediction.criteria[criterion])
            table = scores.confusion[criterion]
            table[cell] = table.get(cell, 0) + 1
    return scores


def disagreements(labels: Iterable[Label], predictions: Mapping[str, Prediction]) -> list[tuple[Label, Prediction]]:
    """Every labelled skill whose predicted verdict differs from its label (missing ones left out)."""
    return [
        (label, predictions[label.skill_path])
        for label in labels
        if label.skill_path in predictions and predictions[label.skill_path].verdict != label.verdict
    ]


def confusion_lines(scores: Scores) -> list[str]:
    """The per-criterion confusion as text: rows are labels, columns predictions."""
    lines = [f"{'criterion':<11} {'label':<5}  {'pass':>5} {'fail':>5} {'undec':>5}"]
    for criterion in CRITERIA:
        table = scores.confusion.get(criterion, {})
        for label in ("pass", "fail"):
            cells = " ".join(f"{table.get((label, predicted), 0):>5}" for predicted in ("pass", "fail", "undecided"))
            lines.append(f"{criterion:<11} {label:<5}  {cells}")
    return lines


def _reasons(row: Mapping[str, object], column: str, prefix: str) -> bool:
    return any(str(reason).startswith(prefix) for reason in row.get(column) or [])  # type: ignore[attr-defined]


def _evidence(row: Mapping[str, object]) -> tuple[str, ...]:
    verdicts = row.get("verdicts")
    if not isinstance(verdicts, str):
        return ()
    data = json.loads(verdicts)
    return tuple(
        f"{criterion}: {line}" for criterion in CRITERIA for line in (data.get(criterion) or {}).get("evidence", [])[:3]
    )


def _pct(value: float) -> str:
    return f"{100 * value:.0f} %"
