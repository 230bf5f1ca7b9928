"""The author role's model choosing patterns, against the scripted server: pool ids only, fallback on failure."""

from __future__ import annotations

from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, json_answer, status

from skill2env.llm.cache import CacheMode
from skill2env.patterns.model_chooser import ModelPatternChooser
from skill2env.patterns.pool import seed_pool
from skill2env.patterns.selection import SelectionPolicy, SelectionStatus, select_patterns

from .test_selection import DOCUMENT_SKILL


def _candidate_ids(n: int) -> list[str]:
    return [c.pattern_id for c in select_patterns(DOCUMENT_SKILL, seed_pool(), SelectionPolicy(max_patterns=n)).choices]


def _picks(ids: list[str]) -> dict:
    return {"picks": [{"pattern_id": i, "rationale": f"{i} shows up in the invoice reconciliation goal"} for i in ids]}


def test_the_model_picks_pool_ids_and_its_rationale_is_kept(server: ScriptedServer, make_client: ClientFactory) -> None:
    ids = _candidate_ids(5)[1:4]
    server.script(json_answer(_picks(ids)))
    selection = ModelPatternChooser(make_client(cache=CacheMode.off)).select(DOCUMENT_SKILL, seed_pool(),
                                                                             SelectionPolicy())  # fmt: skip
    assert selection.chooser == "model:scripted-model"
    assert [c.pattern_id for c in selection.choices] == ids
    assert selection.choices[0].rationale.endswith("invoice reconciliation goal")
    prompt = server.requests[0]["messages"][1]["content"]
    listed = [line.split(" — ")[0][2:] for line in prompt.splitlines() if line.startswith("- ") and " — " in line]
    assert "pdf-extract" in prompt and set(ids) <= set(listed) and len(listed) == len(set(listed)) >= 5


def test_an_invented_id_is_sent_back_and_repaired(server: ScriptedServer, make_client: ClientFactory) -> None:
    ids = _candidate_ids(3)
    server.script(json_answer(_picks([*ids[:2], "made_up_pattern"])), json_answer(_picks(ids)))
    selection = ModelPatternChooser(make_client(cache=CacheMode.off)).select(DOCUMENT_SKILL, seed_pool(),
                                                                             SelectionPolicy())  # fmt: skip
    assert [c.pattern_id for c in selection.choices] == ids
    repair = server.requests[1]["messages"][-1]["content"]
    assert "made_up_pattern" in repair


def test_a_model_that_keeps_inventing_leaves_the_rules_in_charge(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    server.script(*[json_answer(_picks(["made_up_pattern", "another", "third"]))] * 6)
    rules = select_patterns(DOCUMENT_SKILL, seed_pool(), SelectionPolicy())
    selection = ModelPatternChooser(make_client(cache=CacheMode.off)).select(DOCUMENT_SKILL, seed_pool(),
                                                                             SelectionPolicy())  # fmt: skip
    assert selection.choices == rules.choices and selection.chooser == "rules"
    assert selection.status == SelectionStatus.selected
    assert any("rule-based choice kept" in note for note in selection.notes)


def test_an_unavailable_endpoint_falls_back_to_the_rules(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(*[status(503)] * 10)
    selection = ModelPatternChooser(make_client(cache=CacheMode.off, max_attempts=2)).select(
        DOCUMENT_SKILL, seed_pool(), SelectionPolicy()
    )
    assert selection.chooser == "rules" and "ModelUnavailable" in selection.notes[0]


def test_the_answer_schema_allows_only_the_candidates_and_the_policy_s_bounds(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    ids = _candidate_ids(4)
    server.script(json_answer(_picks(ids[:3])))
    policy = SelectionPolicy(min_patterns=2, max_patterns=4)
    ModelPatternChooser(make_client(cache=CacheMode.off)).select(DOCUMENT_SKILL, seed_pool(), policy)

    schema = server.requests[0]["response_format"]["json_schema"]["schema"]
    picks = schema["properties"]["picks"]
    assert (picks["minItems"], picks["maxItems"]) == (2, 4)
    pick = schema["$defs"][picks["items"]["$ref"].rsplit("/", 1)[-1]]
    allowed = pick["properties"]["pattern_id"]["enum"]
    assert set(ids) <= set(allowed) and "made_up_pattern" not in allowed and len(allowed) == len(set(allowed))
