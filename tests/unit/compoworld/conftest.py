"""Shared pieces of the CompoWorld tests: the shipped graph and a deterministic stand-in world model."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import pytest

from skill2env.compoworld.graph import ToolGraph, build_graph
from skill2env.compoworld.services import SERVICES

RATES = {
    "USD": Decimal("1"),
    "EUR": Decimal("0.92"),
    "GBP": Decimal("0.79"),
    "CAD": Decimal("1.36"),
    "JPY": Decimal("150"),
}


class RuleWorldModel:
    """Answers the shipped simulated tools by fixed rules (a carrier that always says "out for
    delivery", fixed exchange rates), so tests with simulated tools are deterministic."""

    def __init__(self) -> None:
        self.calls = 0

    def simulate(
        self, tool_spec: Mapping[str, Any], state_json: Mapping[str, Any], arguments: Mapping[str, Any]
    ) -> tuple[Any, dict[str, Any]]:
        self.calls += 1
        if tool_spec["name"] == "convert_currency":
            amount = arguments["amount"]
            usd = Decimal(str(amount["amount"])) / RATES[amount["currency"]]
            converted = (usd * RATES[arguments["currency"]]).quantize(Decimal("0.01"))
            return {"amount": str(converted), "currency": arguments["currency"]}, {}
        if tool_spec["name"] == "track_package":
            number = arguments["tracking_number"]
            for shipment_id, shipment in state_json["shipments"].items():
                if shipment["tracking_number"] == number:
                    eta = (date(2025, 3, 3) + timedelta(days=1)).isoformat()
                    result = {
                        "tracking_number": number,
                        "carrier": shipment["carrier"],
                        "status": "out_for_delivery",
                        "location": shipment["address"]["city"],
                        "estimated_delivery": eta,
                    }
                    delta = {
                        "shipments": {shipment_id: {"status": "out_for_delivery", "last_event": "out for delivery"}}
                    }
                    return result, delta
            return {"$error": {"type": "not_found", "message": f"the carrier does not know {number}"}}, {}
        raise LookupError(f"no rule for {tool_spec['name']}")


@pytest.fixture(scope="session")
def graph() -> ToolGraph:
    return build_graph(spec for cls in SERVICES.values() for spec in cls.specs())


@pytest.fixture
def rule_model() -> RuleWorldModel:
    return RuleWorldModel()
