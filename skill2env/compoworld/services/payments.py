"""Payments: card charges against orders — authorize, capture, void, refund — and currency conversion."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from skill2env.compoworld.errors import Conflict, InvalidArgument, LimitExceeded, NotFound
from skill2env.compoworld.service import Service, ServiceState, tool
from skill2env.compoworld.types import Currency, CustomerId, Money, OrderId, PaymentId, Timestamp, zero

PaymentStatus = Literal["authorized", "captured", "voided", "refunded", "partially_refunded"]
Method = Literal["card", "bank_transfer", "wallet"]


class Payment(BaseModel):
    payment_id: PaymentId
    order_id: OrderId
    customer_id: CustomerId
    amount: Money
    refunded: Money
    status: PaymentStatus
    method: Method
    created_at: Timestamp


class PaymentsState(ServiceState):
    payments: dict[str, Payment] = Field(default_factory=dict)


class Payments(Service):
    name = "payments"
    domain = "commerce"
    description = "The payment processor: charges per order, capture, void, refunds to the original method."
    State = PaymentsState
    state: PaymentsState

    @classmethod
    def fixture(cls, universe: Any) -> PaymentsState:
        state = PaymentsState(clock=universe.now)
        for placed in universe.orders:
            if placed.payment_id is None:
                continue
            state.payments[placed.payment_id] = Payment(
                payment_id=placed.payment_id,
                order_id=placed.id,
                customer_id=placed.customer_id,
                amount=Money.of(placed.total),
                refunded=zero(),
                status="captured",
                method="card",
                created_at=placed.placed_at,
            )
            state.counters["PAY"] = max(state.counters.get("PAY", 1000), int(placed.payment_id.split("-")[1]))
        return state

    def _payment(self, payment_id: str) -> Payment:
        if payment_id not in self.state.payments:
            raise NotFound(f"no payment {payment_id}")
        return self.state.payments[payment_id]

    @tool(reads=("payments",), intent="check {payment_id}", reports=("status", "amount"))
    def get_payment(self, payment_id: PaymentId) -> Payment:
        """Get a payment: amount, how much was refunded, status.

        Args:
            payment_id: The payment.

        Raises:
            NotFound: No such payment.
        """
        return self._payment(payment_id)

    @tool(reads=("payments",), intent="find the payments made for {order_id}")
    def find_payments_for_order(self, order_id: OrderId) -> list[Payment]:
        """List the payments made against an order, oldest first.

        Args:
            order_id: The order.
        """
        found = [p for p in self.state.payments.values() if p.order_id == order_id]
        return sorted(found, key=lambda p: (p.created_at, p.payment_id))

    @tool(reads=("payments",), writes=("payments",), intent="charge {customer_id} {amount} for {order_id}")
    def charge(
        self, customer_id: CustomerId, order_id: OrderId, amount: Money, method: Method = "card", capture: bool = True
    ) -> Payment:
        """Charge a customer for an order; captured at once unless `capture` is false (then only authorized).

        Args:
            customer_id: Who pays.
            order_id: The order paid for.
            amount: How much; positive.
            method: How they pay.
            capture: Capture now (true) or only authorize (false).

        Raises:
            InvalidArgument: The amount is not positive.
            Conflict: The order already has a live (authorized or captured) payment.
        """
        if not amount.positive:
            raise InvalidArgument("the amount must be positive")
        live = [
            p for p in self.state.payments.values() if p.order_id == order_id and p.status in ("authorized", "captured")
        ]
        if live:
            raise Conflict(f"{order_id} already has payment {live[0].payment_id} ({live[0].status})")
        payment = Payment(
            payment_id=self.state.next_id("PAY"),
            order_id=order_id,
            customer_id=customer_id,
            amount=amount,
            refunded=zero(amount.currency),
            status="captured" if capture else "authorized",
            method=method,
            created_at=self.now,
        )
        self.state.payments[payment.payment_id] = payment
        return payment

    @tool(reads=("payments",), writes=("payments",), intent="capture {payment_id}, which is only authorized")
    def capture_payment(self, payment_id: PaymentId) -> Payment:
        """Capture an authorized payment (the money moves).

        Args:
            payment_id: The payment.

        Raises:
            NotFound: No such payment.
            Conflict: It is not authorized (captured, voided or refunded already).
        """
        payment = self._payment(payment_id)
        if payment.status != "authorized":
            raise Conflict(f"{payment_id} is {payment.status}, not authorized")
        updated = payment.model_copy(update={"status": "captured"})
        self.state.payments[payment_id] = updated
        return updated

    @tool(reads=("payments",), writes=("payments",), intent="void {payment_id}, which is only authorized")
    def void_payment(self, payment_id: PaymentId) -> Payment:
        """Void an authorized payment before capture (nothing is charged).

        Args:
            payment_id: The payment.

        Raises:
            NotFound: No such payment.
            Conflict: It was captured already (refund it instead) or is not live.
        """
        payment = self._payment(payment_id)
        if payment.status != "authorized":
            raise Conflict(f"{payment_id} is {payment.status}; only authorized payments can be voided")
        updated = payment.model_copy(update={"status": "voided"})
        self.state.payments[payment_id] = updated
        return updated

    @tool(reads=("payments",), writes=("payments",), intent="refund {amount} of {payment_id}")
    def refund_payment(self, payment_id: PaymentId, amount: Money) -> Payment:
        """Send money of a captured payment back to the customer's original method.

        Args:
            payment_id: The payment.
            amount: How much; positive, in the payment's currency, at most what is left unrefunded.

        Raises:
            NotFound: No such payment.
            Conflict: The payment is not captured (or fully refunded already).
            InvalidArgument: The amount is not positive or in another currency.
            LimitExceeded: The amount is more than what is left to refund.
        """
        payment = self._payment(payment_id)
        if payment.status not in ("captured", "partially_refunded"):
            raise Conflict(f"{payment_id} is {payment.status}; only captured payments can be refunded")
        if not amount.positive:
            raise InvalidArgument("the amount must be positive")
        left = payment.amount - payment.refunded
        if amount.exceeds(left):
            raise LimitExceeded(f"only {left} of {payment_id} is left to refund, {amount} asked")
        refunded = payment.refunded + amount
        status = "refunded" if refunded == payment.amount else "partially_refunded"
        updated = payment.model_copy(update={"refunded": refunded, "status": status})
        self.state.payments[payment_id] = updated
        return updated

    @tool(
        intent="tell me what {amount} is in {currency} at today's rate", reports=("amount", "currency"), simulated=True
    )
    def convert_currency(self, amount: Money, currency: Currency) -> Money:
        """Convert an amount to another currency at the live exchange rate (a third-party rates API).

        Args:
            amount: What to convert.
            currency: The currency to convert to.

        Raises:
            InvalidArgument: The currency is not supported.
        """
        raise NotImplementedError("simulated: answered by the world model")
