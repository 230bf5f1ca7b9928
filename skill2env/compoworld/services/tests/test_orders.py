"""orders: pricing from the catalog, the status machine, and refusals that leave the state alone."""

from __future__ import annotations

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound
from skill2env.compoworld.services.orders import Orders
from skill2env.compoworld.services.tests.support import fresh, raises


def _first(orders: Orders, status: str) -> str:
    return next(o.order_id for o in orders.state.orders.values() if o.status == status)


def test_create_order_prices_lines_from_the_catalog() -> None:
    orders, universe = fresh(Orders)
    mug, kettle = universe.products[0], universe.products[1]
    created = orders.call(
        "create_order",
        {"customer_id": "CUS-1001", "items": [{"sku": mug.sku, "quantity": 2}, {"sku": kettle.sku, "quantity": 1}]},
    )
    assert created["status"] == "pending"
    assert created["total"] == {"amount": str(mug.price * 2 + kettle.price), "currency": "USD"}
    assert created["order_id"] == f"ORD-{orders.state.counters['ORD']}"


def test_create_order_refuses_unknown_products_repeats_and_empty_orders() -> None:
    orders, _ = fresh(Orders)
    before = orders.state.model_copy(deep=True)
    with raises(NotFound, "SKU-NOPE1"):
        orders.call("create_order", {"customer_id": "CUS-1001", "items": [{"sku": "SKU-NOPE1", "quantity": 1}]})
    with raises(InvalidArgument, "once"):
        orders.call(
            "create_order",
            {
                "customer_id": "CUS-1001",
                "items": [{"sku": "SKU-MUG01", "quantity": 1}, {"sku": "SKU-MUG01", "quantity": 1}],
            },
        )
    with raises(InvalidArgument):
        orders.call("create_order", {"customer_id": "CUS-1001", "items": []})
    with raises(InvalidArgument, "quantity"):
        orders.call("create_order", {"customer_id": "CUS-1001", "items": [{"sku": "SKU-MUG01", "quantity": 99}]})
    assert orders.state == before


def test_pending_to_paid_to_shipped_and_history() -> None:
    orders, _ = fresh(Orders)
    created = orders.call("create_order", {"customer_id": "CUS-1002", "items": [{"sku": "SKU-TEA03", "quantity": 1}]})
    order_id = created["order_id"]
    with raises(Conflict, "only paid"):
        orders.call(
            "mark_order_shipped", {"order_id": order_id, "shipment_id": "SHP-2001", "tracking_number": "1ZAB12345678"}
        )
    orders.call("mark_order_paid", {"order_id": order_id, "payment_id": "PAY-2001"})
    shipped = orders.call(
        "mark_order_shipped", {"order_id": order_id, "shipment_id": "SHP-2001", "tracking_number": "1ZAB12345678"}
    )
    assert shipped["status"] == "shipped" and shipped["payment_id"] == "PAY-2001"
    assert [h["status"] for h in shipped["history"]] == ["pending", "paid", "shipped"]
    with raises(Conflict):
        orders.call("mark_order_paid", {"order_id": order_id, "payment_id": "PAY-2002"})


def test_cancel_only_before_shipping_and_address_changes_likewise() -> None:
    orders, _ = fresh(Orders)
    pending = _first(orders, "pending")
    address = {"line1": "1 Office Park", "city": "Austin", "postal_code": "78702", "country": "US"}
    assert (
        orders.call("update_shipping_address", {"order_id": pending, "address": address})["shipping_address"] == address
    )
    assert orders.call("cancel_order", {"order_id": pending, "reason": "ordered by mistake"})["status"] == "cancelled"
    with raises(Conflict, "cancelled"):
        orders.call("cancel_order", {"order_id": pending, "reason": "again"})
    with raises(Conflict):
        orders.call("update_shipping_address", {"order_id": pending, "address": address})
    shipped = _first(orders, "shipped")
    with raises(Conflict, "shipped"):
        orders.call("cancel_order", {"order_id": shipped, "reason": "late"})


def test_lookups() -> None:
    orders, universe = fresh(Orders)
    placed = universe.orders[0]
    assert orders.call("get_order", {"order_id": placed.id})["customer_id"] == placed.customer_id
    listed = orders.call("list_customer_orders", {"customer_id": placed.customer_id})
    assert placed.id in [o["order_id"] for o in listed]
    assert [o["placed_at"] for o in listed] == sorted((o["placed_at"] for o in listed), reverse=True)
    assert orders.call("get_price", {"sku": "SKU-KTL02"})["name"] == "Electric kettle"
    with raises(NotFound):
        orders.call("get_order", {"order_id": "ORD-9999"})
