"""Scoring curation against hand labels (`skill2env.curation.accuracy`)."""

from __future__ import annotations

import json
from pathlib import Path

from skill2env.curation.accuracy import (
    KEEP,
    REJECT,
    UNDECIDED,
    confusion_lines,
    disagreements,
    prediction_of,
    read_labels,
    score,
)

HEADER = "skill_path\tlabel\tpractical\tcompatible\tfeasible\tsafe\tconfidence\treason\n"


def _labels(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "LABELS.tsv"
    path.write_text(HEADER + "".join(row + "\n" for row in rows), encoding="utf-8")
    return path


def _row(path: str, *, curated: bool, outcomes: tuple[str, str, str, str], parsed: bool = True) -> dict[str, object]:
    practical, compatible, feasible, safe = outcomes
    reasons = [
        f"{outcome}:{name}" for name, outcome in zip(("p", "c", "f", "s"), outcomes, strict=True) if outcome != "pass"
    ]
    evidence = {"practical": {"evidence": ["SKILL.md:3: run the thing"]}}
    return {
        "path": path,
        "curated": curated,
        "parsed": parsed,
        "practical": practical,
        "compatible": compatible,
        "feasible": feasible,
        "safe": safe,
        "reasons": reasons,
        "verdicts": json.dumps(evidence),
    }


def test_a_row_becomes_keep_reject_or_undecided() -> None:
    passing = ("pass", "pass", "pass", "pass")
    assert prediction_of(_row("a", curated=True, outcomes=passing)).verdict == KEEP
    assert prediction_of(_row("b", curated=False, outcomes=("pass", "fail", "undecided", "pass"))).verdict == REJECT
    assert prediction_of(_row("c", curated=False, outcomes=("undecided", "pass", "pass", "pass"))).verdict == UNDECIDED
    # a skill whose frontmatter did not parse is rejected whatever its criteria say
    assert prediction_of(_row("d", curated=False, outcomes=passing, parsed=False)).verdict == REJECT
    assert prediction_of(_row("a", curated=True, outcomes=passing)).evidence == (
        "practical: SKILL.md:3: run the thing",
    )


def test_a_recorded_verdict_is_read_as_written() -> None:
    undecided = ("undecided", "pass", "pass", "pass")
    # a duplicate's practical verdict reads undecided, but curation recorded the skill as rejected
    assert prediction_of({**_row("a", curated=False, outcomes=undecided), "verdict": "rejected"}).verdict == REJECT
    assert prediction_of({**_row("b", curated=False, outcomes=undecided), "verdict": "undecided"}).verdict == UNDECIDED
    assert prediction_of({**_row("c", curated=True, outcomes=("pass",) * 4), "verdict": "kept"}).verdict == KEEP


def test_scores_count_agreement_precision_and_confusion(tmp_path: Path) -> None:
    labels = read_labels(
        _labels(
            tmp_path,
            "s/keep-kept\tkeep\tpass\tpass\tpass\tpass\thigh\tgood workflow",
            "s/reject-kept\treject\tfail\tpass\tpass\tpass\tlow\tan essay",
            "s/reject-rejected\treject\tpass\tpass\tfail\tpass\thigh\tneeds an account",
            "s/keep-rejected\tkeep\tpass\tpass\tpass\tpass\thigh\tlocal files",
            "s/reject-undecided\treject\tfail\tpass\tpass\tpass\thigh\tadvice",
            "s/missing\treject\tfail\tpass\tpass\tpass\thigh\tnot curated",
        )
    )
    assert [label.confidence for label in labels] == ["high", "low", "high", "high", "high", "high"]
    passing = ("pass", "pass", "pass", "pass")
    rows = [
        _row("s/keep-kept", curated=True, outcomes=passing),
        _row("s/reject-kept", curated=True, outcomes=passing),
        _row("s/reject-rejected", curated=False, outcomes=("pass", "pass", "fail", "pass")),
        _row("s/keep-rejected", curated=False, outcomes=("pass", "pass", "fail", "pass")),
        _row("s/reject-undecided", curated=False, outcomes=("undecided", "pass", "pass", "pass")),
    ]
    predictions = {str(row["path"]): prediction_of(row) for row in rows}
    scores = score(labels, predictions)
    assert (scores.labels, scores.agreed, scores.missing, scores.undecided) == (6, 2, 1, 1)
    assert (scores.kept, scores.kept_right, scores.rejected, scores.rejected_right) == (2, 1, 2, 1)
    assert scores.keep_precision == 0.5 and scores.reject_precision == 0.5
    assert scores.agreement_undecided_rejected == 3 / 6
    assert scores.confusion["practical"] == {("pass", "pass"): 3, ("fail", "pass"): 1, ("fail", "undecided"): 1}
    assert scores.confusion["feasible"][("pass", "fail")] == 1
    assert "agreement 2/6 (33 %)" in scores.summary()
    assert any(
        line.startswith("practical   fail") and line.split()[-3:] == ["1", "0", "1"] for line in confusion_lines(scores)
    )
    wrong = [label.skill_path for label, _ in disagreements(labels, predictions)]
    assert wrong == ["s/reject-kept", "s/keep-rejected", "s/reject-undecided"]
