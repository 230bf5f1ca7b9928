"""shipping: quotes, labels, cancellation, and the simulated carrier tracking."""

from __future__ import annotations

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound, SimulatedToolUnavailable
from skill2env.compoworld.services.shipping import Shipping
from skill2env.compoworld.services.tests.support import fresh, raises

HOME = {"line1": "5 Oak Street", "city": "Austin", "postal_code": "78701", "country": "US"}
ABROAD = {"line1": "5 Rue Mercière", "city": "Lyon", "postal_code": "69002", "country": "FR"}


def test_quotes_are_cheapest_first_and_cost_more_abroad() -> None:
    shipping, _ = fresh(Shipping)
    home = shipping.call("quote_shipping", {"address": HOME, "weight_kg": "2"})
    assert [q["carrier"] for q in home] == ["UPS", "FedEx", "DHL"]
    assert home[0]["price"] == {"amount": "10.70", "currency": "USD"}
    abroad = shipping.call("quote_shipping", {"address": ABROAD, "weight_kg": "2"})
    assert {q["carrier"]: q["days"] for q in abroad}["UPS"] == 4
    with raises(InvalidArgument, "30 kg"):
        shipping.call("quote_shipping", {"address": HOME, "weight_kg": "31"})


def test_a_label_per_order_and_cancel_before_pickup() -> None:
    shipping, _ = fresh(Shipping)
    created = shipping.call(
        "create_shipment", {"order_id": "ORD-6001", "address": HOME, "carrier": "DHL", "weight_kg": 1}
    )
    assert created["status"] == "label_created" and created["tracking_number"].startswith("1ZDH")
    with raises(Conflict, "already ships"):
        shipping.call("create_shipment", {"order_id": "ORD-6001", "address": HOME, "carrier": "UPS", "weight_kg": 1})
    assert shipping.call("find_shipment_for_order", {"order_id": "ORD-6001"})["shipment_id"] == created["shipment_id"]
    assert shipping.call("cancel_shipment", {"shipment_id": created["shipment_id"]})["status"] == "cancelled"
    with raises(NotFound):
        shipping.call("find_shipment_for_order", {"order_id": "ORD-6001"})
    in_transit = next(s for s in shipping.state.shipments.values() if s.status == "in_transit")
    with raises(Conflict, "in_transit"):
        shipping.call("cancel_shipment", {"shipment_id": in_transit.shipment_id})


def test_tracking_is_simulated() -> None:
    shipping, _ = fresh(Shipping)
    spec = Shipping.tools["track_package"].spec
    assert spec.simulated and spec.writes == ["shipments"]
    with raises(SimulatedToolUnavailable):
        shipping.call("track_package", {"tracking_number": "1Z1234567890"})
    with raises(NotFound):
        shipping.call("get_shipment", {"shipment_id": "SHP-9999"})
