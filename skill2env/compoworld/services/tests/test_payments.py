"""payments: charges, capture/void, refunds against what is left, and the simulated rates API."""

from __future__ import annotations

from skill2env.compoworld.errors import Conflict, InvalidArgument, LimitExceeded, NotFound, SimulatedToolUnavailable
from skill2env.compoworld.services.payments import Payments
from skill2env.compoworld.services.tests.support import fresh, raises


def test_charge_captures_and_blocks_a_second_live_payment() -> None:
    payments, _ = fresh(Payments)
    charged = payments.call(
        "charge", {"customer_id": "CUS-1001", "order_id": "ORD-4001", "amount": {"amount": "42.5", "currency": "USD"}}
    )
    assert charged["status"] == "captured" and charged["amount"] == {"amount": "42.50", "currency": "USD"}
    with raises(Conflict, "already has payment"):
        payments.call("charge", {"customer_id": "CUS-1001", "order_id": "ORD-4001", "amount": {"amount": "1"}})
    with raises(InvalidArgument, "positive"):
        payments.call("charge", {"customer_id": "CUS-1001", "order_id": "ORD-4002", "amount": {"amount": "0"}})
    with raises(InvalidArgument, "currency"):
        payments.call(
            "charge", {"customer_id": "CUS-1001", "order_id": "ORD-4002", "amount": {"amount": "5", "currency": "XYZ"}}
        )


def test_authorize_then_capture_or_void() -> None:
    payments, _ = fresh(Payments)
    first = payments.call(
        "charge", {"customer_id": "CUS-1002", "order_id": "ORD-4003", "amount": {"amount": "10"}, "capture": False}
    )
    assert first["status"] == "authorized"
    assert payments.call("capture_payment", {"payment_id": first["payment_id"]})["status"] == "captured"
    with raises(Conflict, "not authorized"):
        payments.call("capture_payment", {"payment_id": first["payment_id"]})
    with raises(Conflict):
        payments.call("void_payment", {"payment_id": first["payment_id"]})
    second = payments.call(
        "charge", {"customer_id": "CUS-1002", "order_id": "ORD-4004", "amount": {"amount": "10"}, "capture": False}
    )
    assert payments.call("void_payment", {"payment_id": second["payment_id"]})["status"] == "voided"


def test_refunds_are_capped_by_what_is_left() -> None:
    payments, _ = fresh(Payments)
    payment = next(iter(payments.state.payments.values()))
    half = payment.amount.amount / 2
    partial = payments.call("refund_payment", {"payment_id": payment.payment_id, "amount": {"amount": str(half)}})
    assert partial["status"] == "partially_refunded"
    with raises(LimitExceeded, "left to refund"):
        payments.call(
            "refund_payment", {"payment_id": payment.payment_id, "amount": {"amount": str(payment.amount.amount)}}
        )
    rest = payment.amount.amount - payments.state.payments[payment.payment_id].refunded.amount
    done = payments.call("refund_payment", {"payment_id": payment.payment_id, "amount": {"amount": str(rest)}})
    assert done["status"] == "refunded" and done["refunded"] == done["amount"]
    with raises(Conflict):
        payments.call("refund_payment", {"payment_id": payment.payment_id, "amount": {"amount": "1"}})


def test_lookups_and_unknown_payment() -> None:
    payments, universe = fresh(Payments)
    placed = next(o for o in universe.orders if o.payment_id)
    assert [p["payment_id"] for p in payments.call("find_payments_for_order", {"order_id": placed.id})] == [
        placed.payment_id
    ]
    assert payments.call("get_payment", {"payment_id": placed.payment_id})["order_id"] == placed.id
    with raises(NotFound):
        payments.call("get_payment", {"payment_id": "PAY-9999"})


def test_currency_conversion_is_simulated() -> None:
    payments, _ = fresh(Payments)
    assert Payments.tools["convert_currency"].spec.simulated
    with raises(SimulatedToolUnavailable, "world model"):
        payments.call("convert_currency", {"amount": {"amount": "10"}, "currency": "EUR"})
