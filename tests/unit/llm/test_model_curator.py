"""The model curator against the scripted server: settles undecided criteria, falls back honestly."""

from __future__ import annotations

import json

from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, json_answer, refusal, status, text

from skill2env.catalog.models import SkillRecord, SkillStatus
from skill2env.curation.curate import curate_skill
from skill2env.curation.model_curator import BREAKER_AFTER, ModelCurator
from skill2env.curation.models import Criterion, Outcome, Verdict
from skill2env.llm.cache import CacheMode
from skill2env.llm.ledger import Ledger

ESSAY = "# Patterns\n\n" + "Service boundaries follow business capabilities, and each service owns its data. " * 20


def record(path: str = "team/patterns") -> SkillRecord:
    return SkillRecord(skill_id=f"id-{path}", source="team", path=path, skill_md_file="SKILL.md",
                       status=SkillStatus.ok, name=path.split("/")[-1], description="Microservice patterns",
                       skill_md_text=f"---\nname: patterns\ndescription: Microservice patterns\n---\n{ESSAY}",
                       domain="software-engineering")  # fmt: skip


def undecided() -> list[Verdict]:
    return [
        Verdict(criterion=Criterion.practical, outcome=Outcome.undecided, reasons=["workflow:unclear"],
                evidence=["SKILL.md: no steps"]),
        Verdict(criterion=Criterion.feasible, outcome=Outcome.undecided, reasons=["review:external-api:x.io"]),
    ]  # fmt: skip


DECISIONS = {
    "practical": {"outcome": "fail", "reason": "workflow:essay", "explanation": "An essay on patterns, no steps."},
    "feasible": {"outcome": "pass", "reason": "external-api:none-needed", "explanation": "Mentions x.io only."},
}


def test_the_model_settles_exactly_the_undecided_criteria(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(json_answer(DECISIONS))
    curator = ModelCurator(make_client(role="curator"))

    practical, feasible = curator.settle(record(), undecided())

    assert (practical.outcome, practical.reasons) == (Outcome.fail, ["workflow:essay"])
    assert practical.decided_by == "curator:scripted-model"
    assert practical.evidence == [
        "SKILL.md: no steps",
        "curator scripted-model: workflow:essay: An essay on patterns, no steps.",
    ]
    assert (feasible.outcome, feasible.reasons) == (Outcome.pass_, [])
    schema = server.requests[0]["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["practical", "feasible"]
    assert "Service boundaries" in server.requests[0]["messages"][1]["content"]
    (row,) = ledger.rows()
    assert (row["role"], row["template_id"], row["partition_key"]) == (
        "curator",
        "curator_settle",
        "software-engineering",
    )
    assert curator.outcomes == {"settled": 1}


def test_a_bad_reason_code_is_repaired(server: ScriptedServer, make_client: ClientFactory) -> None:
    bad = {**DECISIONS, "practical": {**DECISIONS["practical"], "reason": "It is an essay"}}
    server.script(json_answer(bad), json_answer(DECISIONS))

    practical, _ = ModelCurator(make_client(role="curator")).settle(record(), undecided())

    assert practical.reasons == ["workflow:essay"]
    assert "practical.reason: String should match pattern" in server.requests[1]["messages"][-1]["content"]


def test_unavailable_falls_back_to_the_rules_verdict_and_says_so(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(*[status(503, "overloaded")] * 2)
    curator = ModelCurator(make_client(role="curator", max_attempts=2))

    practical, feasible = curator.settle(record(), undecided())

    assert practical.outcome == feasible.outcome == Outcome.undecided
    assert practical.reasons == ["workflow:unclear", "curator:unavailable"]
    assert practical.decided_by == "rules"
    assert "ModelUnavailable" in practical.evidence[-1]
    assert ledger.rows()[0]["error_kind"] == "infrastructure"
    assert curator.outcomes == {"curator:unavailable": 1}


def test_output_failures_fall_back_with_their_own_reason(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(refusal("no"), text("x"), text("y"), text("z"))
    curator = ModelCurator(make_client(role="curator", max_repairs=2))

    refused = curator.settle(record("a/one"), undecided())
    invalid = curator.settle(record("a/two"), undecided())

    assert refused[0].reasons[-1] == "curator:refused"
    assert invalid[0].reasons[-1] == "curator:invalid-answer"


def test_after_repeated_unavailability_the_curator_stops_asking(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    server.respond = lambda request: status(503)
    curator = ModelCurator(make_client(role="curator", max_attempts=1, cache=CacheMode.off))

    for index in range(BREAKER_AFTER + 3):
        verdicts = curator.settle(record(f"a/{index}"), undecided())
        assert verdicts[0].reasons[-1] == "curator:unavailable"

    assert len(server.requests) == BREAKER_AFTER


def test_in_curate_skill_the_model_decides_an_undecided_skill(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    def respond(request: dict[str, object]) -> object:
        asked = request["response_format"]["json_schema"]["schema"]["required"]  # type: ignore[index]
        return json_answer({c: {"outcome": "pass", "reason": "ok:fine", "explanation": "fine"} for c in asked})

    server.respond = respond  # type: ignore[assignment]
    result = curate_skill(record(), ModelCurator(make_client(role="curator")))

    assert result.practical.outcome == Outcome.pass_
    assert result.practical.decided_by == "curator:scripted-model"
    assert json.loads(json.dumps(result.model_dump(mode="json")))["practical"]["decided_by"].startswith("curator:")
