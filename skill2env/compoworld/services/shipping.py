"""Shipping: rate quotes, shipments with carrier labels, and live tracking through the carrier's API."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, Field

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound
from skill2env.compoworld.service import Service, ServiceState, tool
from skill2env.compoworld.types import Address, Day, Money, OrderId, ShipmentId, Timestamp, TrackingNumber

Carrier = Literal["UPS", "DHL", "FedEx"]
ShipmentStatus = Literal["label_created", "in_transit", "out_for_delivery", "delivered", "exception", "cancelled"]
RATES: dict[str, tuple[Decimal, Decimal, int]] = {
    "UPS": (Decimal("6.50"), Decimal("2.10"), 3),
    "DHL": (Decimal("8.00"), Decimal("1.60"), 2),
    "FedEx": (Decimal("7.20"), Decimal("1.90"), 2),
}
"""Carrier → (base price, price per kg, days to deliver) for domestic parcels; abroad costs double and a day more."""
HOME_COUNTRY = "US"


class Shipment(BaseModel):
    shipment_id: ShipmentId
    order_id: OrderId
    carrier: Carrier
    tracking_number: TrackingNumber
    address: Address
    weight_kg: Decimal
    cost: Money
    status: ShipmentStatus
    created_at: Timestamp
    last_event: str = ""


class RateQuote(BaseModel):
    carrier: Carrier
    price: Money
    days: int


class TrackingStatus(BaseModel):
    tracking_number: TrackingNumber
    carrier: Carrier
    status: ShipmentStatus
    location: str
    estimated_delivery: Day | None = None


class ShippingState(ServiceState):
    shipments: dict[str, Shipment] = Field(default_factory=dict)


def _quote(carrier: str, address: Address, weight_kg: Decimal) -> RateQuote:
    base, per_kg, days = RATES[carrier]
    price = base + per_kg * weight_kg
    if address.country != HOME_COUNTRY:
        price, days = price * 2, days + 1
    return RateQuote(carrier=carrier, price=Money(amount=price, currency="USD"), days=days)


class Shipping(Service):
    name = "shipping"
    domain = "operations"
    description = "Parcel shipping: quotes per carrier, labels (shipments), cancellation, carrier tracking."
    State = ShippingState
    state: ShippingState

    @classmethod
    def fixture(cls, universe: Any) -> ShippingState:
        state = ShippingState(clock=universe.now)
        for placed in universe.orders:
            if placed.shipment_id is None:
                continue
            weight = sum((universe.product(line.sku).weight_kg * line.quantity for line in placed.lines), Decimal(0))
            address = universe.customer(placed.customer_id).address
            state.shipments[placed.shipment_id] = Shipment(
                shipment_id=placed.shipment_id,
                order_id=placed.id,
                carrier=placed.carrier,
                tracking_number=placed.tracking_number,
                address=address,
                weight_kg=weight,
                cost=_quote(placed.carrier, address, weight).price,
                status="delivered" if placed.status == "delivered" else "in_transit",
                created_at=placed.placed_at,
            )
            state.counters["SHP"] = max(state.counters.get("SHP", 1000), int(placed.shipment_id.split("-")[1]))
        return state

    def _shipment(self, shipment_id: str) -> Shipment:
        if shipment_id not in self.state.shipments:
            raise NotFound(f"no shipment {shipment_id}")
        return self.state.shipments[shipment_id]

    @tool(intent="get shipping quotes for a {weight_kg} kg parcel to {address}")
    def quote_shipping(self, address: Address, weight_kg: Decimal) -> list[RateQuote]:
        """Quote every carrier for a parcel, cheapest first.

        Args:
            address: Where it goes.
            weight_kg: Its weight, more than 0 and at most 30 kg.

        Raises:
            InvalidArgument: The weight is out of range.
        """
        if not Decimal(0) < weight_kg <= Decimal(30):
            raise InvalidArgument("parcels weigh more than 0 and at most 30 kg")
        return sorted((_quote(c, address, weight_kg) for c in RATES), key=lambda q: (q.price.amount, q.days))

    @tool(
        reads=("shipments",),
        writes=("shipments",),
        intent="ship {order_id} with {carrier} ({weight_kg} kg) to {address}",
    )
    def create_shipment(self, order_id: OrderId, address: Address, carrier: Carrier, weight_kg: Decimal) -> Shipment:
        """Buy a label: create a shipment for an order, with a tracking number.

        Args:
            order_id: The order shipped.
            address: Where it goes.
            carrier: Which carrier.
            weight_kg: The parcel's weight, more than 0 and at most 30 kg.

        Raises:
            InvalidArgument: The weight is out of range.
            Conflict: The order has a live shipment already.
        """
        if not Decimal(0) < weight_kg <= Decimal(30):
            raise InvalidArgument("parcels weigh more than 0 and at most 30 kg")
        live = [s for s in self.state.shipments.values() if s.order_id == order_id and s.status != "cancelled"]
        if live:
            raise Conflict(f"{order_id} already ships as {live[0].shipment_id}")
        shipment_id = self.state.next_id("SHP")
        shipment = Shipment(
            shipment_id=shipment_id,
            order_id=order_id,
            carrier=carrier,
            tracking_number=f"1Z{carrier.upper()[:2]}{shipment_id.split('-')[1].zfill(8)}",
            address=address,
            weight_kg=weight_kg,
            cost=_quote(carrier, address, weight_kg).price,
            status="label_created",
            created_at=self.now,
        )
        self.state.shipments[shipment_id] = shipment
        return shipment

    @tool(reads=("shipments",), intent="check {shipment_id}", reports=("status", "tracking_number"))
    def get_shipment(self, shipment_id: ShipmentId) -> Shipment:
        """Get a shipment as we last knew it (use tracking for the carrier's live view).

        Args:
            shipment_id: The shipment.

        Raises:
            NotFound: No such shipment.
        """
        return self._shipment(shipment_id)

    @tool(reads=("shipments",), intent="find the shipment of {order_id}")
    def find_shipment_for_order(self, order_id: OrderId) -> Shipment:
        """Find an order's live (not cancelled) shipment.

        Args:
            order_id: The order.

        Raises:
            NotFound: The order has no live shipment.
        """
        live = [s for s in self.state.shipments.values() if s.order_id == order_id and s.status != "cancelled"]
        if not live:
            raise NotFound(f"{order_id} has no shipment")
        return live[0]

    @tool(reads=("shipments",), writes=("shipments",), intent="cancel {shipment_id}")
    def cancel_shipment(self, shipment_id: ShipmentId) -> Shipment:
        """Void a label that the carrier has not picked up yet.

        Args:
            shipment_id: The shipment.

        Raises:
            NotFound: No such shipment.
            Conflict: The carrier has it already (in transit or later), or it is cancelled.
        """
        shipment = self._shipment(shipment_id)
        if shipment.status != "label_created":
            raise Conflict(f"{shipment_id} is {shipment.status}; only unpicked labels can be cancelled")
        updated = shipment.model_copy(update={"status": "cancelled"})
        self.state.shipments[shipment_id] = updated
        return updated

    @tool(
        reads=("shipments",),
        writes=("shipments",),
        intent="track the parcel under {tracking_number} and tell me where it is now",
        reports=("status", "location"),
        simulated=True,
    )
    def track_package(self, tracking_number: TrackingNumber) -> TrackingStatus:
        """Ask the carrier's tracking API where a parcel is; our shipment record is updated to match.

        Args:
            tracking_number: The parcel's tracking number.

        Raises:
            NotFound: The carrier does not know the number.
        """
        raise NotImplementedError("simulated: answered by the world model")
