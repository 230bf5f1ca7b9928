"""Orders: what customers bought, at which price, and where each order stands."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound
from skill2env.compoworld.service import Service, ServiceState, tool
from skill2env.compoworld.types import (
    Address,
    CustomerId,
    Money,
    OrderId,
    PaymentId,
    ShipmentId,
    Sku,
    Timestamp,
    TrackingNumber,
    zero,
)

OrderStatus = Literal["pending", "paid", "shipped", "delivered", "cancelled"]
MAX_QUANTITY = 20


class CatalogEntry(BaseModel):
    sku: Sku
    name: str
    price: Money


class OrderItem(BaseModel):
    sku: Sku
    quantity: int = Field(ge=1, le=MAX_QUANTITY)


class LineItem(BaseModel):
    sku: Sku
    name: str
    quantity: int = Field(ge=1)
    unit_price: Money


class HistoryEntry(BaseModel):
    at: Timestamp
    status: OrderStatus
    note: str = ""


class Order(BaseModel):
    order_id: OrderId
    customer_id: CustomerId
    items: list[LineItem]
    total: Money
    status: OrderStatus
    placed_at: Timestamp
    shipping_address: Address | None = None
    payment_id: PaymentId | None = None
    shipment_id: ShipmentId | None = None
    tracking_number: TrackingNumber | None = None
    history: list[HistoryEntry] = Field(default_factory=list)


class OrderSummary(BaseModel):
    order_id: OrderId
    status: OrderStatus
    total: Money
    placed_at: Timestamp


class OrdersState(ServiceState):
    catalog: dict[str, CatalogEntry] = Field(default_factory=dict)
    orders: dict[str, Order] = Field(default_factory=dict)


class Orders(Service):
    name = "orders"
    domain = "commerce"
    description = "Customer orders: line items priced from the catalog, totals, payment and shipping status."
    State = OrdersState
    state: OrdersState

    @classmethod
    def fixture(cls, universe: Any) -> OrdersState:
        state = OrdersState(clock=universe.now)
        for product in universe.products:
            state.catalog[product.sku] = CatalogEntry(sku=product.sku, name=product.name, price=Money.of(product.price))
        for placed in universe.orders:
            items = [
                LineItem(
                    sku=line.sku,
                    name=state.catalog[line.sku].name,
                    quantity=line.quantity,
                    unit_price=Money.of(line.unit_price),
                )
                for line in placed.lines
            ]
            state.orders[placed.id] = Order(
                order_id=placed.id,
                customer_id=placed.customer_id,
                items=items,
                total=Money.of(placed.total),
                status=placed.status,
                placed_at=placed.placed_at,
                shipping_address=universe.customer(placed.customer_id).address,
                payment_id=placed.payment_id,
                shipment_id=placed.shipment_id,
                tracking_number=placed.tracking_number,
                history=[HistoryEntry(at=placed.placed_at, status=placed.status)],
            )
            state.counters["ORD"] = int(placed.id.split("-")[1])
        return state

    def _order(self, order_id: str) -> Order:
        if order_id not in self.state.orders:
            raise NotFound(f"no order {order_id}")
        return self.state.orders[order_id]

    def _move(self, order: Order, status: OrderStatus, note: str = "", **changes: Any) -> Order:
        history = [*order.history, HistoryEntry(at=self.now, status=status, note=note)]
        updated = order.model_copy(update={"status": status, "history": history, **changes})
        self.state.orders[order.order_id] = updated
        return updated

    @tool(reads=("orders",), intent="check {order_id}", reports=("status", "total"))
    def get_order(self, order_id: OrderId) -> Order:
        """Get an order with its items, total, status and history.

        Args:
            order_id: The order.

        Raises:
            NotFound: No such order.
        """
        return self._order(order_id)

    @tool(reads=("orders",), intent="list the orders of {customer_id}")
    def list_customer_orders(self, customer_id: CustomerId, status: OrderStatus | None = None) -> list[OrderSummary]:
        """List a customer's orders, newest first, optionally only those in one status.

        Args:
            customer_id: The customer.
            status: Only orders in this status.
        """
        orders = [o for o in self.state.orders.values() if o.customer_id == customer_id and status in (None, o.status)]
        orders.sort(key=lambda o: o.placed_at, reverse=True)
        return [
            OrderSummary(order_id=o.order_id, status=o.status, total=o.total, placed_at=o.placed_at) for o in orders
        ]

    @tool(reads=("catalog",), intent="tell me the catalog price of {sku}", reports=("price",))
    def get_price(self, sku: Sku) -> CatalogEntry:
        """Get a product's name and current catalog price.

        Args:
            sku: The product.

        Raises:
            NotFound: The product is not in the catalog.
        """
        if sku not in self.state.catalog:
            raise NotFound(f"{sku} is not in the catalog")
        return self.state.catalog[sku]

    @tool(reads=("catalog", "orders"), writes=("orders",), intent="place an order for {customer_id}: {items}")
    def create_order(
        self, customer_id: CustomerId, items: list[OrderItem], shipping_address: Address | None = None
    ) -> Order:
        """Place a pending order priced from the catalog.

        Args:
            customer_id: Who orders.
            items: Products and quantities (1 to 20 each); a product may appear once.
            shipping_address: Where to ship it.

        Raises:
            InvalidArgument: No items, or a product listed twice.
            NotFound: A product is not in the catalog.
        """
        if not items:
            raise InvalidArgument("an order needs at least one item")
        skus = [item.sku for item in items]
        if len(set(skus)) != len(skus):
            raise InvalidArgument("each product may appear once; raise its quantity instead")
        lines = []
        total = zero()
        for item in items:
            entry = self.state.catalog.get(item.sku)
            if entry is None:
                raise NotFound(f"{item.sku} is not in the catalog")
            lines.append(LineItem(sku=item.sku, name=entry.name, quantity=item.quantity, unit_price=entry.price))
            total = total + entry.price.times(item.quantity)
        order = Order(
            order_id=self.state.next_id("ORD"),
            customer_id=customer_id,
            items=lines,
            total=total,
            status="pending",
            placed_at=self.now,
            shipping_address=shipping_address,
            history=[HistoryEntry(at=self.now, status="pending", note="placed")],
        )
        self.state.orders[order.order_id] = order
        return order

    @tool(reads=("orders",), writes=("orders",), intent="cancel {order_id} (reason: {reason})")
    def cancel_order(self, order_id: OrderId, reason: str) -> Order:
        """Cancel an order that has not shipped.

        Args:
            order_id: The order.
            reason: Why, kept in the order's history.

        Raises:
            NotFound: No such order.
            Conflict: The order has shipped, was delivered or is already cancelled.
        """
        order = self._order(order_id)
        if order.status not in ("pending", "paid"):
            raise Conflict(f"{order_id} is {order.status}; only pending or paid orders can be cancelled")
        return self._move(order, "cancelled", reason)

    @tool(reads=("orders",), writes=("orders",), intent="record {payment_id} against {order_id}")
    def mark_order_paid(self, order_id: OrderId, payment_id: PaymentId) -> Order:
        """Record that a pending order was paid.

        Args:
            order_id: The order.
            payment_id: The payment that settled it.

        Raises:
            NotFound: No such order.
            Conflict: The order is not pending.
        """
        order = self._order(order_id)
        if order.status != "pending":
            raise Conflict(f"{order_id} is {order.status}, not pending")
        return self._move(order, "paid", f"payment {payment_id}", payment_id=payment_id)

    @tool(
        reads=("orders",),
        writes=("orders",),
        intent="mark {order_id} as shipped with {shipment_id} under {tracking_number}",
    )
    def mark_order_shipped(self, order_id: OrderId, shipment_id: ShipmentId, tracking_number: TrackingNumber) -> Order:
        """Record that a paid order left the warehouse.

        Args:
            order_id: The order.
            shipment_id: The shipment carrying it.
            tracking_number: The carrier's tracking number.

        Raises:
            NotFound: No such order.
            Conflict: The order is not paid (unpaid orders do not ship; shipped ones already left).
        """
        order = self._order(order_id)
        if order.status != "paid":
            raise Conflict(f"{order_id} is {order.status}; only paid orders ship")
        return self._move(
            order, "shipped", f"shipment {shipment_id}", shipment_id=shipment_id, tracking_number=tracking_number
        )

    @tool(reads=("orders",), writes=("orders",), intent="ship {order_id} to {address} instead")
    def update_shipping_address(self, order_id: OrderId, address: Address) -> Order:
        """Change where an order that has not shipped goes.

        Args:
            order_id: The order.
            address: The new shipping address.

        Raises:
            NotFound: No such order.
            Conflict: The order has shipped, was delivered or was cancelled.
        """
        order = self._order(order_id)
        if order.status not in ("pending", "paid"):
            raise Conflict(f"{order_id} is {order.status}; its address can no longer change")
        updated = order.model_copy(update={"shipping_address": address})
        self.state.orders[order_id] = updated
        return updated
