"""Curation with a curator model settling what the rules leave undecided, measured against the hand
labels of the development corpus: the model curator is a real `ModelCurator` on a real HTTP endpoint,
whose scripted model answers each criterion it is asked about as the skill's hand label has it. That
is the best a model can add to the rules, so the figure checks that every undecided case reaches the
model and that its decisions are applied — not any model's judgement."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from llm_server import Scripted, ScriptedServer, json_answer

from skill2env.catalog.catalog import catalog_skills
from skill2env.curation.accuracy import UNDECIDED, Label, prediction_of, read_labels, score
from skill2env.curation.model_curator import ROLE, ModelCurator
from skill2env.curation.partition import curate_partition
from skill2env.llm import CacheMode, ModelClient, ResponseCache, RoleConfig

pytestmark = pytest.mark.integration


class LabelledModel:
    """Answers a `curator_settle` request from the hand label of the skill whose SKILL.md it quotes."""

    def __init__(self, labels: list[Label], skill_texts: dict[str, str]) -> None:
        self.by_text = [
            (skill_texts[label.skill_path][:400], label) for label in labels if label.skill_path in skill_texts
        ]
        self.asked: list[str] = []

    def __call__(self, request: dict[str, Any]) -> Scripted:
        asked = request["response_format"]["json_schema"]["schema"]["required"]
        prompt = "\n".join(str(message.get("content") or "") for message in request["messages"])
        label = next((label for text, label in self.by_text if text and text in prompt), None)
        self.asked.append(label.skill_path if label else "?")
        decisions = {}
        for criterion in asked:
            outcome = label.criteria[criterion] if label else "pass"
            code = "label:" + re.sub(r"[^a-z0-9]+", "-", (label.reason if label else "unlabelled").lower())[:40].strip(
                "-"
            )
            decisions[criterion] = {"outcome": outcome, "reason": code or "label:none", "explanation": "as labelled"}
        return json_answer(decisions)


@pytest.fixture
def skills(corpus: Path) -> Any:
    return catalog_skills(corpus, workers=1).skills


def _verdicts(skills: Any, curator: ModelCurator | None) -> dict[str, Any]:
    found = {}
    for (domain,), frame in skills.group_by("domain", maintain_order=True):
        for row in curate_partition(frame, str(domain), curator).iter_rows(named=True):
            found[row["path"]] = prediction_of(row)
    return found


@pytest.fixture
def model(corpus: Path, skills: Any) -> Iterator[tuple[LabelledModel, ScriptedServer]]:
    texts = {
        row["path"]: row["skill_md_text"] or "" for row in skills.select("path", "skill_md_text").iter_rows(named=True)
    }
    answering = LabelledModel(read_labels(corpus / "LABELS.tsv"), texts)
    with ScriptedServer(respond=answering) as server:
        yield answering, server


def test_a_curator_model_deciding_the_undecided_brings_agreement_to_95_percent(
    corpus: Path, skills: Any, model: tuple[LabelledModel, ScriptedServer]
) -> None:
    answering, server = model
    labels = read_labels(corpus / "LABELS.tsv")
    confident = [label for label in labels if label.confidence == "high"]
    rules = _verdicts(skills, None)
    undecided = sorted(path for path, p in rules.items() if p.verdict == UNDECIDED)
    client = ModelClient(ROLE, RoleConfig(base_url=server.base_url, model="labelled"),
                         cache=ResponseCache(Path("/nonexistent"), CacheMode.off))  # fmt: skip
    curator = ModelCurator(client)

    settled = _verdicts(skills, curator)

    unsettled = sorted(path for path, p in rules.items() if UNDECIDED in p.criteria.values())
    assert set(undecided) <= set(unsettled)
    # every skill with an undecided criterion, and only those, reached the model, once
    assert len(answering.asked) == len(unsettled) and set(answering.asked) - {"?"} <= set(unsettled)
    assert curator.outcomes == {"settled": len(unsettled)}
    assert not any(UNDECIDED in p.criteria.values() or p.verdict == UNDECIDED for p in settled.values())
    assert all(settled[path].verdict == rules[path].verdict for path in rules if path not in unsettled)
    assert score(confident, settled).agreement >= 0.95
    assert score(labels, settled).agreement > score(labels, rules).agreement
