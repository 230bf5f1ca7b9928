"""inventory: availability, reservations, adjustments and purchase orders."""

from __future__ import annotations

from skill2env.compoworld.errors import Conflict, InvalidArgument, LimitExceeded, NotFound
from skill2env.compoworld.services.inventory import Inventory
from skill2env.compoworld.services.tests.support import fresh, raises


def _stocked(inventory: Inventory, at_least: int) -> str:
    return next(s.sku for s in inventory.state.stock.values() if s.available >= at_least)


def test_reserving_lowers_availability_and_releasing_restores_it() -> None:
    inventory, _ = fresh(Inventory)
    sku = _stocked(inventory, 3)
    before = inventory.call("get_stock", {"sku": sku})
    reservation = inventory.call("reserve_stock", {"sku": sku, "quantity": 2, "order_id": "ORD-3001"})
    assert reservation["status"] == "held"
    assert inventory.call("get_stock", {"sku": sku})["available"] == before["available"] - 2
    released = inventory.call("release_order_reservations", {"order_id": "ORD-3001"})
    assert [r["status"] for r in released] == ["released"]
    assert inventory.call("get_stock", {"sku": sku})["available"] == before["available"]
    with raises(NotFound):
        inventory.call("release_order_reservations", {"order_id": "ORD-3001"})


def test_cannot_reserve_more_than_available() -> None:
    inventory, _ = fresh(Inventory)
    sku = _stocked(inventory, 0)
    available = inventory.call("get_stock", {"sku": sku})["available"]
    with raises(LimitExceeded, "available"):
        inventory.call("reserve_stock", {"sku": sku, "quantity": available + 1, "order_id": "ORD-3002"})
    with raises(InvalidArgument):
        inventory.call("reserve_stock", {"sku": sku, "quantity": 0, "order_id": "ORD-3002"})
    with raises(NotFound):
        inventory.call("get_stock", {"sku": "SKU-NOPE1"})


def test_adjustments_are_logged_and_cannot_undercut_reservations() -> None:
    inventory, _ = fresh(Inventory)
    sku = _stocked(inventory, 2)
    level = inventory.call("adjust_stock", {"sku": sku, "delta": -1, "reason": "broken in the warehouse"})
    assert inventory.state.adjustments[-1].delta == -1 and level["sku"] == sku
    inventory.call("reserve_stock", {"sku": sku, "quantity": level["available"], "order_id": "ORD-3003"})
    with raises(LimitExceeded, "reserved"):
        inventory.call("adjust_stock", {"sku": sku, "delta": -1, "reason": "count"})
    with raises(InvalidArgument):
        inventory.call("adjust_stock", {"sku": sku, "delta": 0, "reason": "count"})


def test_purchase_orders_are_received_once_into_stock() -> None:
    inventory, _ = fresh(Inventory)
    sku = "SKU-BNS09"
    before = inventory.call("get_stock", {"sku": sku})["on_hand"]
    order = inventory.call("create_purchase_order", {"sku": sku, "quantity": 24})
    assert order["supplier"] == "Roastery Norte" and order["expected_on"] == "2025-03-10"
    with raises(Conflict, "open purchase order"):
        inventory.call("create_purchase_order", {"sku": sku, "quantity": 5})
    level = inventory.call("receive_purchase_order", {"purchase_order_id": order["purchase_order_id"]})
    assert level["on_hand"] == before + 24
    with raises(Conflict, "received"):
        inventory.call("receive_purchase_order", {"purchase_order_id": order["purchase_order_id"]})


def test_low_stock_lists_items_at_or_below_their_reorder_point() -> None:
    inventory, _ = fresh(Inventory)
    low = inventory.call("list_low_stock", {})
    assert all(item["available"] <= item["reorder_point"] for item in low)
    expected = {s.sku for s in inventory.state.stock.values() if s.available <= s.reorder_point}
    assert {item["sku"] for item in low} == expected
