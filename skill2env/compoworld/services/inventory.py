"""Inventory: stock on hand per product, reservations for orders, and purchase orders to suppliers."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

from skill2env.compoworld.errors import Conflict, InvalidArgument, LimitExceeded, NotFound
from skill2env.compoworld.service import Service, ServiceState, tool
from skill2env.compoworld.types import Day, OrderId, PurchaseOrderId, ReservationId, Sku, Timestamp

SUPPLIERS = {"SKU-BNS09": "Roastery Norte", "SKU-TEA03": "Leaf & Co"}
DEFAULT_SUPPLIER = "Kitchen Wholesale Ltd"
LEAD_TIME_DAYS = 7


class StockItem(BaseModel):
    sku: Sku
    name: str
    on_hand: int = Field(ge=0)
    reserved: int = Field(ge=0)
    reorder_point: int = Field(ge=0)

    @property
    def available(self) -> int:
        return self.on_hand - self.reserved


class StockLevel(BaseModel):
    sku: Sku
    name: str
    on_hand: int
    reserved: int
    available: int
    reorder_point: int
    below_reorder_point: bool


class Reservation(BaseModel):
    reservation_id: ReservationId
    sku: Sku
    quantity: int
    order_id: OrderId
    status: Literal["held", "released"]
    created_at: Timestamp


class PurchaseOrder(BaseModel):
    purchase_order_id: PurchaseOrderId
    sku: Sku
    quantity: int
    supplier: str
    status: Literal["open", "received"]
    expected_on: Day


class Adjustment(BaseModel):
    at: Timestamp
    sku: Sku
    delta: int
    reason: str


class InventoryState(ServiceState):
    stock: dict[str, StockItem] = Field(default_factory=dict)
    reservations: dict[str, Reservation] = Field(default_factory=dict)
    purchase_orders: dict[str, PurchaseOrder] = Field(default_factory=dict)
    adjustments: list[Adjustment] = Field(default_factory=list)


def _level(item: StockItem) -> StockLevel:
    return StockLevel(
        sku=item.sku,
        name=item.name,
        on_hand=item.on_hand,
        reserved=item.reserved,
        available=item.available,
        reorder_point=item.reorder_point,
        below_reorder_point=item.available <= item.reorder_point,
    )


class Inventory(Service):
    name = "inventory"
    domain = "commerce"
    description = "Warehouse stock per product: on hand, reserved for orders, reorder points, purchase orders."
    State = InventoryState
    state: InventoryState

    @classmethod
    def fixture(cls, universe: Any) -> InventoryState:
        state = InventoryState(clock=universe.now)
        for product in universe.products:
            state.stock[product.sku] = StockItem(
                sku=product.sku,
                name=product.name,
                on_hand=product.on_hand,
                reserved=0,
                reorder_point=product.reorder_point,
            )
        for placed in universe.orders:
            if placed.status not in ("pending", "paid"):
                continue
            for line in placed.lines:
                item = state.stock[line.sku]
                if item.available < line.quantity:
                    continue
                state.stock[line.sku] = item.model_copy(update={"reserved": item.reserved + line.quantity})
                reservation_id = state.next_id("RSV")
                state.reservations[reservation_id] = Reservation(
                    reservation_id=reservation_id,
                    sku=line.sku,
                    quantity=line.quantity,
                    order_id=placed.id,
                    status="held",
                    created_at=placed.placed_at,
                )
        return state

    def _item(self, sku: str) -> StockItem:
        if sku not in self.state.stock:
            raise NotFound(f"{sku} is not stocked")
        return self.state.stock[sku]

    @tool(reads=("stock",), intent="check how many of {sku} we have available", reports=("available",))
    def get_stock(self, sku: Sku) -> StockLevel:
        """Get a product's stock: on hand, reserved, available and whether it is at its reorder point.

        Args:
            sku: The product.

        Raises:
            NotFound: The product is not stocked.
        """
        return _level(self._item(sku))

    @tool(reads=("stock",), intent="list the products that are running low", reports=("sku",))
    def list_low_stock(self) -> list[StockLevel]:
        """List products whose available stock is at or below their reorder point, scarcest first."""
        low = [_level(i) for i in self.state.stock.values() if i.available <= i.reorder_point]
        return sorted(low, key=lambda level: (level.available, level.sku))

    @tool(
        reads=("stock", "reservations"),
        writes=("stock", "reservations"),
        intent="hold {quantity} of {sku} for {order_id}",
    )
    def reserve_stock(self, sku: Sku, quantity: int, order_id: OrderId) -> Reservation:
        """Reserve available units of a product for an order.

        Args:
            sku: The product.
            quantity: Units to hold (at least 1).
            order_id: The order they are for.

        Raises:
            NotFound: The product is not stocked.
            InvalidArgument: The quantity is not positive.
            LimitExceeded: Fewer units are available.
        """
        item = self._item(sku)
        if quantity < 1:
            raise InvalidArgument("the quantity must be at least 1")
        if item.available < quantity:
            raise LimitExceeded(f"only {item.available} of {sku} available, {quantity} asked")
        self.state.stock[sku] = item.model_copy(update={"reserved": item.reserved + quantity})
        reservation = Reservation(
            reservation_id=self.state.next_id("RSV"),
            sku=sku,
            quantity=quantity,
            order_id=order_id,
            status="held",
            created_at=self.now,
        )
        self.state.reservations[reservation.reservation_id] = reservation
        return reservation

    @tool(
        reads=("stock", "reservations"),
        writes=("stock", "reservations"),
        intent="release the stock held for {order_id}",
    )
    def release_order_reservations(self, order_id: OrderId) -> list[Reservation]:
        """Release every unit held for an order (e.g. when it is cancelled).

        Args:
            order_id: The order.

        Raises:
            NotFound: Nothing is held for the order.
        """
        held = [r for r in self.state.reservations.values() if r.order_id == order_id and r.status == "held"]
        if not held:
            raise NotFound(f"no stock is held for {order_id}")
        released = []
        for reservation in held:
            item = self.state.stock[reservation.sku]
            self.state.stock[reservation.sku] = item.model_copy(
                update={"reserved": item.reserved - reservation.quantity}
            )
            done = reservation.model_copy(update={"status": "released"})
            self.state.reservations[reservation.reservation_id] = done
            released.append(done)
        return released

    @tool(
        reads=("stock",),
        writes=("stock", "adjustments"),
        intent="correct the stock of {sku} by {delta} units ({reason})",
    )
    def adjust_stock(self, sku: Sku, delta: int, reason: str) -> StockLevel:
        """Correct the units on hand after a count, damage or loss.

        Args:
            sku: The product.
            delta: Units to add (positive) or remove (negative); not zero.
            reason: Why, for the adjustment log.

        Raises:
            NotFound: The product is not stocked.
            InvalidArgument: The delta is zero or the reason is empty.
            LimitExceeded: On hand would fall below what is reserved.
        """
        item = self._item(sku)
        if delta == 0 or not reason.strip():
            raise InvalidArgument("an adjustment needs a non-zero delta and a reason")
        if item.on_hand + delta < item.reserved:
            raise LimitExceeded(f"{sku}: {item.reserved} reserved, on hand cannot drop to {item.on_hand + delta}")
        updated = item.model_copy(update={"on_hand": item.on_hand + delta})
        self.state.stock[sku] = updated
        self.state.adjustments.append(Adjustment(at=self.now, sku=sku, delta=delta, reason=reason.strip()))
        return _level(updated)

    @tool(
        reads=("stock", "purchase_orders"),
        writes=("purchase_orders",),
        intent="order {quantity} more of {sku} from the supplier",
    )
    def create_purchase_order(self, sku: Sku, quantity: int) -> PurchaseOrder:
        """Order more units of a product from its supplier (delivery in 7 days).

        Args:
            sku: The product.
            quantity: Units to order, 1 to 500.

        Raises:
            NotFound: The product is not stocked.
            InvalidArgument: The quantity is out of range.
            Conflict: An open purchase order for the product already exists.
        """
        self._item(sku)
        if not 1 <= quantity <= 500:
            raise InvalidArgument("a purchase order is for 1 to 500 units")
        if any(po.sku == sku and po.status == "open" for po in self.state.purchase_orders.values()):
            raise Conflict(f"an open purchase order for {sku} exists already")
        order = PurchaseOrder(
            purchase_order_id=self.state.next_id("PO"),
            sku=sku,
            quantity=quantity,
            supplier=SUPPLIERS.get(sku, DEFAULT_SUPPLIER),
            status="open",
            expected_on=(self.now + timedelta(days=LEAD_TIME_DAYS)).date(),
        )
        self.state.purchase_orders[order.purchase_order_id] = order
        return order

    @tool(
        reads=("stock", "purchase_orders"),
        writes=("stock", "purchase_orders"),
        intent="book in the delivery of {purchase_order_id}",
    )
    def receive_purchase_order(self, purchase_order_id: PurchaseOrderId) -> StockLevel:
        """Book a delivered purchase order into stock.

        Args:
            purchase_order_id: The purchase order.

        Raises:
            NotFound: No such purchase order.
            Conflict: It was received already.
        """
        order = self.state.purchase_orders.get(purchase_order_id)
        if order is None:
            raise NotFound(f"no purchase order {purchase_order_id}")
        if order.status == "received":
            raise Conflict(f"{purchase_order_id} was received already")
        item = self._item(order.sku)
        updated = item.model_copy(update={"on_hand": item.on_hand + order.quantity})
        self.state.stock[order.sku] = updated
        self.state.purchase_orders[purchase_order_id] = order.model_copy(update={"status": "received"})
        return _level(updated)
