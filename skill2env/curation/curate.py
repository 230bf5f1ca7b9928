"""Compose the four criteria into one curation decision per skill.

A skill is curated when it passes all four criteria: practical value, runtime compatibility,
deployment feasibility and the security screen. Verdicts the rules leave undecided go to a
`Curator` (by default none: they stay undecided, which means not curated).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from skill2env.catalog.models import SkillRecord
from skill2env.curation.compatibility import judge_compatible, runtime_evidence
from skill2env.curation.curator import Curator
from skill2env.curation.domains import OTHER, classify_domain
from skill2env.curation.feasibility import judge_feasible, offline_evidence
from skill2env.curation.models import Criterion, CurationRecord, Outcome, Verdict, skill_verdict
from skill2env.curation.practical import judge_practical, procedure_evidence
from skill2env.curation.security import clean_evidence, judge_safe

logger = logging.getLogger(__name__)

JUDGES: tuple[tuple[Criterion, Callable[[SkillRecord], Verdict]], ...] = (
    (Criterion.practical, judge_practical),
    (Criterion.compatible, judge_compatible),
    (Criterion.feasible, judge_feasible),
    (Criterion.safe, judge_safe),
)
"""The criteria in their reporting order, each with its rule."""
PASS_EVIDENCE: dict[Criterion, Callable[[SkillRecord], list[str]]] = {
    Criterion.practical: procedure_evidence,
    Criterion.compatible: runtime_evidence,
    Criterion.feasible: offline_evidence,
    Criterion.safe: clean_evidence,
}
"""Why a criterion passed (`file:line: excerpt` lines): the workflow steps and their local inputs, the
programs and where the base image has them, the absence of required accounts, what the security screen
found harmless."""


def curate_skill(record: SkillRecord, curator: Curator | None = None, domain: str | None = None) -> CurationRecord:
    """Judge one skill on every criterion and decide whether it is curated.

    `domain` defaults to `classify_domain(record)`. Reasons are the failing and undecided reason
    codes in criterion order; when nothing failed, each passing criterion gets its evidence
    (`PASS_EVIDENCE`). Never raises: a rule that breaks on an odd record yields an
    undecided verdict with reason `error:<criterion>`, and a failing curator is ignored.
    """
    verdicts = {criterion: _judge(criterion, judge, record) for criterion, judge in JUDGES}
    if curator is not None:
        verdicts.update(_settle(curator, record, verdicts))
    if all(verdict.outcome != Outcome.fail for verdict in verdicts.values()):
        _add_pass_evidence(record, verdicts)
    reasons = [
        reason
        for criterion, _ in JUDGES
        if verdicts[criterion].outcome != Outcome.pass_
        for reason in verdicts[criterion].reasons or [f"{verdicts[criterion].outcome.value}:{criterion.value}"]
    ]
    return CurationRecord(
        skill_id=record.skill_id,
        path=record.path,
        domain=domain or _domain(record),
        practical=verdicts[Criterion.practical],
        compatible=verdicts[Criterion.compatible],
        feasible=verdicts[Criterion.feasible],
        safe=verdicts[Criterion.safe],
        curated=all(verdict.outcome == Outcome.pass_ for verdict in verdicts.values()),
        verdict=skill_verdict([verdict.outcome for verdict in verdicts.values()]),
        reasons=list(dict.fromkeys(reasons)),
    )


def curate_skills(records: Iterable[SkillRecord], curator: Curator | None = None) -> list[CurationRecord]:
    """`curate_skill` for each record, in order."""
    return [curate_skill(record, curator) for record in records]


def _judge(criterion: Criterion, judge: Callable[[SkillRecord], Verdict], record: SkillRecord) -> Verdict:
    try:
        return judge(record)
    except Exception:  # a rule bug must not stop a 47k-skill run; the skill stays undecided
        logger.exception("rule %s failed on %s", criterion.value, record.path)
        return Verdict(criterion=criterion, outcome=Outcome.undecided, reasons=[f"error:{criterion.value}"])


def _add_pass_evidence(record: SkillRecord, verdicts: dict[Criterion, Verdict]) -> None:
    """Evidence for each rule-passed criterion of a skill nothing failed (kept, or undecided and left to
    review): a rejected skill is explained by its failures, and skipping it keeps curation fast."""
    for criterion, explain in PASS_EVIDENCE.items():
        verdict = verdicts[criterion]
        if verdict.outcome == Outcome.pass_ and not verdict.evidence:
            try:
                verdict.evidence = explain(record)
            except Exception:  # evidence is best effort; the verdict stands
                logger.exception("evidence for %s failed on %s", criterion.value, record.path)


def _settle(curator: Curator, record: SkillRecord, verdicts: dict[Criterion, Verdict]) -> dict[Criterion, Verdict]:
    undecided = [verdict for verdict in verdicts.values() if verdict.outcome == Outcome.undecided]
    if not undecided:
        return {}
    try:
        settled = curator.settle(record, undecided)
    except Exception:  # a curator (model, network) failure leaves the rules' verdicts in place
        logger.exception("curator %s failed on %s", getattr(curator, "name", "?"), record.path)
        return {}
    asked = {verdict.criterion for verdict in undecided}
    return {verdict.criterion: verdict for verdict in settled if verdict.criterion in asked}


def _domain(record: SkillRecord) -> str:
    try:
        return classify_domain(record)
    except Exception:  # classification is best effort; "other" is always a valid partition
        logger.exception("domain classification failed on %s", record.path)
        return OTHER
