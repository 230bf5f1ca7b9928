"""The world model: deltas validated against the state schema, rejections retried, every attempt logged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest
from llm_server import ScriptedServer, json_answer, text

from skill2env.compoworld.errors import InvalidArgument, NotFound, SimulatedToolUnavailable, SimulationFailed
from skill2env.compoworld.services.payments import Payments
from skill2env.compoworld.services.shipping import Shipping
from skill2env.compoworld.universe import generate_universe
from skill2env.compoworld.world import World
from skill2env.compoworld.world_model import (
    RecordedWorldModel,
    ScriptedWorldModel,
    SimulationRecord,
    Simulator,
    WorldModel,
    merge_patch,
)
from skill2env.compoworld.world_model_llm import LlmWorldModel
from skill2env.llm.cache import CacheMode, ResponseCache
from skill2env.llm.client import ModelClient
from skill2env.llm.config import RoleConfig

from .conftest import RuleWorldModel


def _shipping() -> tuple[Shipping, str, str]:
    service = Shipping(Shipping.fixture(generate_universe(0)))
    shipment = next(s for s in service.state.shipments.values() if s.status == "in_transit")
    return service, shipment.shipment_id, shipment.tracking_number


def _result(number: str) -> dict[str, Any]:
    return {"tracking_number": number, "carrier": "UPS", "status": "delivered", "location": "Austin"}


def test_a_valid_answer_is_applied_and_logged() -> None:
    service, shipment_id, number = _shipping()
    model = ScriptedWorldModel([(_result(number), {"shipments": {shipment_id: {"status": "delivered"}}})])
    simulator = Simulator(model)
    result = simulator.run(service, "track_package", {"tracking_number": number})
    assert result["status"] == "delivered" and result["estimated_delivery"] is None
    assert service.state.shipments[shipment_id].status == "delivered"
    (record,) = simulator.log
    assert (record.service, record.tool, record.attempt, record.accepted) == ("shipping", "track_package", 1, True)
    request = model.requests[0][0]
    assert request["name"] == "track_package" and "properties" in request["state_schema"]
    assert request["rejections"] == []


def test_invalid_deltas_are_rejected_and_retried_with_the_reason() -> None:
    service, shipment_id, number = _shipping()
    model = ScriptedWorldModel(
        [
            (_result(number), {"shipments": {shipment_id: {"status": "teleported"}}}),
            (_result(number), {"counters": {"SHP": 1}}),
            (_result(number), {"shipments": {shipment_id: {"status": "delivered"}}}),
        ]
    )
    simulator = Simulator(model, max_attempts=3)
    simulator.run(service, "track_package", {"tracking_number": number})
    assert [r.accepted for r in simulator.log] == [False, False, True]
    assert "state schema" in (simulator.log[0].error or "") and "may only change" in (simulator.log[1].error or "")
    assert len(model.requests[2][0]["rejections"]) == 2
    assert service.state.shipments[shipment_id].status == "delivered"


def test_after_the_last_rejection_the_call_fails_and_the_state_is_unchanged() -> None:
    service, _, number = _shipping()
    before = service.state.model_copy(deep=True)
    model = ScriptedWorldModel(
        [({"status": "??"}, {}), RuntimeError("endpoint down"), cast(Any, ("not an object", []))]
    )
    simulator = Simulator(model, max_attempts=3)
    with pytest.raises(SimulationFailed, match="3 attempts"):
        simulator.run(service, "track_package", {"tracking_number": number})
    assert service.state == before
    assert [r.accepted for r in simulator.log] == [False, False, False]
    assert "result schema" in (simulator.log[0].error or "")
    assert "endpoint down" in (simulator.log[1].error or "")
    assert len({r.call_id for r in simulator.log}) == 1


def test_a_read_only_simulated_tool_may_not_change_state() -> None:
    payments = Payments(Payments.fixture(generate_universe(0)))
    model = ScriptedWorldModel(
        [({"amount": "9.20", "currency": "EUR"}, {"payments": {}}), ({"amount": "9.20", "currency": "EUR"}, {})]
    )
    simulator = Simulator(model)
    result = simulator.run(payments, "convert_currency", {"amount": {"amount": "10"}, "currency": "EUR"})
    assert result == {"amount": "9.20", "currency": "EUR"}
    assert "nothing" in (simulator.log[0].error or "")


def test_declared_errors_pass_through_and_bad_arguments_never_reach_the_model() -> None:
    service, _, _ = _shipping()
    model = ScriptedWorldModel([({"$error": {"type": "not_found", "message": "unknown parcel"}}, {})])
    simulator = Simulator(model)
    with pytest.raises(NotFound, match="unknown parcel"):
        simulator.run(service, "track_package", {"tracking_number": "1Z0000000000"})
    with pytest.raises(InvalidArgument):
        simulator.run(service, "track_package", {"tracking_number": "lower case"})
    assert len(model.requests) == 1 and simulator.log[0].accepted


def test_offline_a_simulated_tool_fails_clearly_and_is_logged() -> None:
    world = World.build(["shipping"], seed=0)
    _, _, number = _shipping()
    with pytest.raises(SimulatedToolUnavailable, match="no world model is configured"):
        world.call("shipping", "track_package", {"tracking_number": number})
    (record,) = world.simulator.log
    assert not record.accepted and (record.error or "").startswith("unavailable")


def test_recorded_answers_replay_and_others_fall_back(rule_model: RuleWorldModel) -> None:
    _, shipment_id, number = _shipping()
    record = SimulationRecord(
        call_id="c1",
        called_at="2025-03-03T09:00:00Z",
        service="shipping",
        tool="track_package",
        arguments={"tracking_number": number},
        attempt=1,
        accepted=True,
        result=_result(number),
        state_delta={"shipments": {shipment_id: {"status": "delivered"}}},
    )
    replayed: WorldModel = RecordedWorldModel([record], fallback=rule_model)
    world = World.build(["shipping", "payments"], seed=0, world_model=replayed)
    assert world.call("shipping", "track_package", {"tracking_number": number})["status"] == "delivered"
    assert rule_model.calls == 0
    converted = world.call("payments", "convert_currency", {"amount": {"amount": "100"}, "currency": "EUR"})
    assert converted == {"amount": "92.00", "currency": "EUR"} and rule_model.calls == 1


def test_merge_patch_follows_rfc_7386() -> None:
    assert merge_patch({"a": 1, "b": {"c": 2, "d": 3}}, {"b": {"c": None, "e": 4}, "f": [1]}) == {
        "a": 1,
        "b": {"d": 3, "e": 4},
        "f": [1],
    }


def test_the_llm_world_model_answers_through_structured_output(tmp_path: Path) -> None:
    service, shipment_id, number = _shipping()
    with ScriptedServer() as server:
        server.script(
            text("not json at all"),
            json_answer({"result_json": json.dumps({"tracking_number": number}), "state_delta_json": "{}"}),
            json_answer(
                {
                    "result_json": json.dumps(_result(number)),
                    "state_delta_json": json.dumps({"shipments": {shipment_id: {"status": "delivered"}}}),
                }
            ),
        )
        config = RoleConfig(
            base_url=server.base_url,
            model="scripted-model",
            backoff_seconds=0.001,
            backoff_max_seconds=0.01,
            timeout_seconds=5.0,
        )
        client = ModelClient("author", config, cache=ResponseCache(tmp_path / "cache", CacheMode.off))
        simulator = Simulator(LlmWorldModel(client))
        result = simulator.run(service, "track_package", {"tracking_number": number})
        client.close()
    assert result["status"] == "delivered"
    assert service.state.shipments[shipment_id].status == "delivered"
    assert [r.accepted for r in simulator.log] == [False, True]
    assert simulator.log[-1].model == "llm:scripted-model"
    last_prompt = server.requests[-1]["messages"][-1]["content"]
    assert "were rejected" in last_prompt and "result schema" in last_prompt
