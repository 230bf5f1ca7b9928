"""refunds: automatic approval under the limit, approvers above it, payout."""

from __future__ import annotations

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound, PermissionDenied
from skill2env.compoworld.services.refunds import Refunds
from skill2env.compoworld.services.tests.support import fresh, raises


def test_small_refunds_are_approved_at_once_large_ones_wait() -> None:
    refunds, _ = fresh(Refunds)
    small = refunds.call("request_refund", {"order_id": "ORD-5001", "amount": {"amount": "50.00"}, "reason": "damaged"})
    assert small["status"] == "approved"
    large = refunds.call("request_refund", {"order_id": "ORD-5002", "amount": {"amount": "50.01"}, "reason": "other"})
    assert large["status"] == "requested"
    with raises(Conflict, "open refund"):
        refunds.call("request_refund", {"order_id": "ORD-5002", "amount": {"amount": "5"}, "reason": "other"})
    with raises(InvalidArgument):
        refunds.call("request_refund", {"order_id": "ORD-5003", "amount": {"amount": "-5"}, "reason": "other"})
    with raises(InvalidArgument, "reason"):
        refunds.call("request_refund", {"order_id": "ORD-5003", "amount": {"amount": "5"}, "reason": "bored"})


def test_only_finance_approves_and_only_requested_refunds() -> None:
    refunds, universe = fresh(Refunds)
    approver = universe.staff_in("finance")[0].email
    outsider = universe.staff_in("support")[0].email
    refund = refunds.call(
        "request_refund", {"order_id": "ORD-5004", "amount": {"amount": "120"}, "reason": "wrong_item"}
    )
    with raises(PermissionDenied, "may not approve"):
        refunds.call("approve_refund", {"refund_id": refund["refund_id"], "approver": outsider})
    approved = refunds.call("approve_refund", {"refund_id": refund["refund_id"], "approver": approver})
    assert approved["status"] == "approved" and approved["decided_by"] == approver
    with raises(Conflict):
        refunds.call("approve_refund", {"refund_id": refund["refund_id"], "approver": approver})
    with raises(Conflict):
        refunds.call("reject_refund", {"refund_id": refund["refund_id"], "note": "too late"})


def test_reject_needs_a_reason_and_pay_needs_approval() -> None:
    refunds, _ = fresh(Refunds)
    refund = refunds.call(
        "request_refund", {"order_id": "ORD-5005", "amount": {"amount": "80"}, "reason": "changed_mind"}
    )
    with raises(Conflict, "only approved"):
        refunds.call("mark_refund_paid", {"refund_id": refund["refund_id"], "payment_id": "PAY-5005"})
    with raises(InvalidArgument):
        refunds.call("reject_refund", {"refund_id": refund["refund_id"], "note": " "})
    assert (
        refunds.call("reject_refund", {"refund_id": refund["refund_id"], "note": "outside 30 days"})["status"]
        == "rejected"
    )
    small = refunds.call(
        "request_refund", {"order_id": "ORD-5006", "amount": {"amount": "12"}, "reason": "late_delivery"}
    )
    paid = refunds.call("mark_refund_paid", {"refund_id": small["refund_id"], "payment_id": "PAY-5006"})
    assert paid["status"] == "paid" and paid["payment_id"] == "PAY-5006"


def test_lookups() -> None:
    refunds, _ = fresh(Refunds)
    refund = refunds.call("request_refund", {"order_id": "ORD-5007", "amount": {"amount": "9"}, "reason": "damaged"})
    assert refunds.call("get_refund", {"refund_id": refund["refund_id"]}) == refund
    assert [r["refund_id"] for r in refunds.call("list_refunds_for_order", {"order_id": "ORD-5007"})] == [
        refund["refund_id"]
    ]
    with raises(NotFound):
        refunds.call("get_refund", {"refund_id": "RFD-9999"})
