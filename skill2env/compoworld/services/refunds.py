"""Refunds: refund requests on orders, the approval policy, and their payout."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, Field

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound, PermissionDenied
from skill2env.compoworld.service import Service, ServiceState, tool
from skill2env.compoworld.types import EmailAddress, Money, OrderId, PaymentId, RefundId, Timestamp

RefundStatus = Literal["requested", "approved", "rejected", "paid"]
Reason = Literal["damaged", "not_received", "wrong_item", "changed_mind", "late_delivery", "other"]
AUTO_APPROVE_LIMIT = Money(amount=Decimal("50.00"), currency="USD")


class Refund(BaseModel):
    refund_id: RefundId
    order_id: OrderId
    amount: Money
    reason: Reason
    status: RefundStatus
    requested_at: Timestamp
    decided_by: EmailAddress | None = None
    decision_note: str = ""
    payment_id: PaymentId | None = None


class RefundsState(ServiceState):
    refunds: dict[str, Refund] = Field(default_factory=dict)
    approvers: list[EmailAddress] = Field(default_factory=list)
    """Who may approve refunds above the automatic limit."""


class Refunds(Service):
    name = "refunds"
    domain = "commerce"
    description = (
        "Refund requests on orders: requests up to 50.00 USD are approved automatically, larger ones need "
        "an approver from finance; approved refunds are marked paid once the payment is refunded."
    )
    State = RefundsState
    state: RefundsState

    @classmethod
    def fixture(cls, universe: Any) -> RefundsState:
        state = RefundsState(clock=universe.now, approvers=[s.email for s in universe.staff_in("finance")])
        delivered = [o for o in universe.orders if o.status == "delivered"]
        for placed, status in zip(delivered[:2], ("requested", "paid"), strict=False):
            refund_id = state.next_id("RFD")
            amount = Money.of(placed.lines[0].unit_price)
            state.refunds[refund_id] = Refund(
                refund_id=refund_id,
                order_id=placed.id,
                amount=amount,
                reason="damaged",
                status=status,
                requested_at=placed.placed_at,
                payment_id=placed.payment_id if status == "paid" else None,
            )
        return state

    def _refund(self, refund_id: str) -> Refund:
        if refund_id not in self.state.refunds:
            raise NotFound(f"no refund {refund_id}")
        return self.state.refunds[refund_id]

    @tool(reads=("refunds",), writes=("refunds",), intent="open a refund of {amount} on {order_id} (reason: {reason})")
    def request_refund(self, order_id: OrderId, amount: Money, reason: Reason, note: str = "") -> Refund:
        """Open a refund request; at most 50.00 USD is approved at once, more waits for an approver.

        Args:
            order_id: The order refunded.
            amount: How much; positive.
            reason: Why the customer is refunded.
            note: Free text for the approver.

        Raises:
            InvalidArgument: The amount is not positive.
            Conflict: The order has an open (requested or approved) refund already.
        """
        if not amount.positive:
            raise InvalidArgument("the amount must be positive")
        open_ = [
            r for r in self.state.refunds.values() if r.order_id == order_id and r.status in ("requested", "approved")
        ]
        if open_:
            raise Conflict(f"{order_id} has an open refund already: {open_[0].refund_id} ({open_[0].status})")
        automatic = amount.currency == AUTO_APPROVE_LIMIT.currency and not amount.exceeds(AUTO_APPROVE_LIMIT)
        refund = Refund(
            refund_id=self.state.next_id("RFD"),
            order_id=order_id,
            amount=amount,
            reason=reason,
            status="approved" if automatic else "requested",
            requested_at=self.now,
            decision_note="approved automatically (within the limit)" if automatic else note,
        )
        self.state.refunds[refund.refund_id] = refund
        return refund

    @tool(reads=("refunds", "approvers"), writes=("refunds",), intent="approve {refund_id} as {approver}")
    def approve_refund(self, refund_id: RefundId, approver: EmailAddress) -> Refund:
        """Approve a requested refund.

        Args:
            refund_id: The refund.
            approver: Who approves; must be one of the finance approvers.

        Raises:
            NotFound: No such refund.
            PermissionDenied: The approver may not approve refunds.
            Conflict: The refund is not waiting for a decision.
        """
        refund = self._refund(refund_id)
        if approver not in self.state.approvers:
            raise PermissionDenied(f"{approver} may not approve refunds; approvers: {', '.join(self.state.approvers)}")
        if refund.status != "requested":
            raise Conflict(f"{refund_id} is {refund.status}, not waiting for a decision")
        updated = refund.model_copy(update={"status": "approved", "decided_by": approver})
        self.state.refunds[refund_id] = updated
        return updated

    @tool(reads=("refunds",), writes=("refunds",), intent="reject {refund_id} because {note}")
    def reject_refund(self, refund_id: RefundId, note: str) -> Refund:
        """Reject a requested refund, saying why.

        Args:
            refund_id: The refund.
            note: Why it is rejected (the customer will be told).

        Raises:
            NotFound: No such refund.
            InvalidArgument: The note is empty.
            Conflict: The refund is not waiting for a decision.
        """
        refund = self._refund(refund_id)
        if not note.strip():
            raise InvalidArgument("say why the refund is rejected")
        if refund.status != "requested":
            raise Conflict(f"{refund_id} is {refund.status}, not waiting for a decision")
        updated = refund.model_copy(update={"status": "rejected", "decision_note": note.strip()})
        self.state.refunds[refund_id] = updated
        return updated

    @tool(reads=("refunds",), intent="check {refund_id}", reports=("status", "amount"))
    def get_refund(self, refund_id: RefundId) -> Refund:
        """Get a refund and where it stands.

        Args:
            refund_id: The refund.

        Raises:
            NotFound: No such refund.
        """
        return self._refund(refund_id)

    @tool(reads=("refunds",), intent="list the refunds on {order_id}")
    def list_refunds_for_order(self, order_id: OrderId) -> list[Refund]:
        """List every refund on an order, oldest first.

        Args:
            order_id: The order.
        """
        return sorted((r for r in self.state.refunds.values() if r.order_id == order_id), key=lambda r: r.refund_id)

    @tool(reads=("refunds",), writes=("refunds",), intent="mark {refund_id} as paid out by {payment_id}")
    def mark_refund_paid(self, refund_id: RefundId, payment_id: PaymentId) -> Refund:
        """Record that an approved refund was paid back through a payment.

        Args:
            refund_id: The refund.
            payment_id: The payment the money went back through.

        Raises:
            NotFound: No such refund.
            Conflict: The refund is not approved.
        """
        refund = self._refund(refund_id)
        if refund.status != "approved":
            raise Conflict(f"{refund_id} is {refund.status}; only approved refunds are paid")
        updated = refund.model_copy(update={"status": "paid", "payment_id": payment_id})
        self.state.refunds[refund_id] = updated
        return updated
