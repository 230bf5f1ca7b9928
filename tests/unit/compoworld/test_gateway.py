"""The gateway: four meta-tools, JSON envelopes, typed errors the agent can read, a transcript."""

from __future__ import annotations

import json

from skill2env.compoworld.gateway import META_TOOLS, Gateway, meta_tool_specs
from skill2env.compoworld.world import World


def _gateway() -> Gateway:
    return Gateway(World.build(["crm", "orders", "shipping"], seed=0))


def test_discovery_lists_services_tools_and_describes_one() -> None:
    gateway = _gateway()
    services = gateway.list_services()
    assert services["ok"] and [s["name"] for s in services["result"]] == ["crm", "orders", "shipping"]
    tools = gateway.list_tools("shipping")["result"]
    assert {"name": "track_package", "description": tools[-1]["description"], "simulated": True} in tools
    described = gateway.describe_tool("orders", "cancel_order")["result"]
    assert described["parameters"]["required"] == ["order_id", "reason"]
    assert {e["type"] for e in described["errors"]} == {"not_found", "conflict"}
    assert described["effects"] == {"reads": ["orders"], "writes": ["orders"]}
    assert "intent" not in described


def test_call_tool_runs_the_tool_and_changes_the_world() -> None:
    gateway = _gateway()
    pending = next(
        o for o in gateway.world.service("orders").state_json()["orders"].values() if o["status"] == "pending"
    )
    answer = gateway.call_tool("orders", "cancel_order", {"order_id": pending["order_id"], "reason": "mistake"})
    assert answer == {"ok": True, "result": answer["result"]} and answer["result"]["status"] == "cancelled"
    assert gateway.world.states()["orders"]["orders"][pending["order_id"]]["status"] == "cancelled"


def test_errors_are_typed_envelopes_and_leave_the_state_alone() -> None:
    gateway = _gateway()
    before = gateway.world.states()
    cases = {
        ("orders", "get_order", json.dumps({"order_id": "ORD-9999"})): "not_found",
        ("orders", "get_order", json.dumps({"order_id": "nine"})): "invalid_argument",
        ("orders", "get_order", json.dumps({})): "invalid_argument",
        ("nowhere", "x", "{}"): "unknown_service",
        ("orders", "fly", "{}"): "unknown_tool",
        ("shipping", "track_package", json.dumps({"tracking_number": "1Z1234567890"})): "simulated_tool_unavailable",
    }
    for (service, tool, arguments), kind in cases.items():
        envelope = gateway.dispatch("call_tool", {"service": service, "tool": tool, "arguments": json.loads(arguments)})
        assert envelope["ok"] is False and envelope["error"]["type"] == kind, (service, tool, envelope)
        assert envelope["error"]["message"]
    assert gateway.world.states() == before


def test_dispatch_takes_model_style_json_and_refuses_bad_meta_calls() -> None:
    gateway = _gateway()
    text = gateway.dispatch_json("list_tools", '{"service": "crm"}')
    assert json.loads(text)["ok"] is True
    assert gateway.dispatch("list_tools", "{not json")["error"]["type"] == "invalid_argument"
    assert gateway.dispatch("list_tools", {"service": "crm", "extra": 1})["error"]["type"] == "invalid_argument"
    assert gateway.dispatch("call_everything", {})["error"]["type"] == "unknown_tool"
    assert [c.meta_tool for c in gateway.calls] == ["list_tools", "list_tools", "list_tools", "call_everything"]
    assert [c.ok for c in gateway.calls] == [True, False, False, False]


def test_meta_tool_specs_are_chat_tools() -> None:
    specs = meta_tool_specs()
    assert (
        [s["function"]["name"] for s in specs]
        == list(META_TOOLS)
        == [
            "list_services",
            "list_tools",
            "describe_tool",
            "call_tool",
        ]
    )
    call = specs[3]["function"]["parameters"]
    assert call["required"] == ["service", "tool"] and call["properties"]["arguments"]["type"] == "object"
