"""The interface types services share, so one service's output can be another's input.

Each identifier type is a constrained `str` carrying its name in the JSON schema (`x-type`);
`Money`, `DateRange` and `Address` are models with an `x-type` too. The dependency graph links
tools by these names, so `orders.get_order` (its result holds a `CustomerId`) feeds
`crm.get_customer(customer_id: CustomerId)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated, Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator, model_validator

from skill2env.compoworld.errors import InvalidArgument

TYPE_KEY = "x-type"
"""The JSON-schema key naming an interface type."""


def _id(name: str, prefix: str, description: str) -> Any:
    pattern = rf"^{prefix}-\d{{4,6}}$"
    return Annotated[str, Field(pattern=pattern, description=description, json_schema_extra={TYPE_KEY: name})]


CustomerId = _id("CustomerId", "CUS", "A customer, e.g. CUS-1001.")
OrderId = _id("OrderId", "ORD", "An order, e.g. ORD-1001.")
PaymentId = _id("PaymentId", "PAY", "A payment, e.g. PAY-1001.")
RefundId = _id("RefundId", "RFD", "A refund, e.g. RFD-1001.")
ReservationId = _id("ReservationId", "RSV", "A stock reservation, e.g. RSV-1001.")
PurchaseOrderId = _id("PurchaseOrderId", "PO", "A purchase order to a supplier, e.g. PO-1001.")
TicketId = _id("TicketId", "TCK", "A support ticket, e.g. TCK-1001.")
ShipmentId = _id("ShipmentId", "SHP", "A shipment, e.g. SHP-1001.")
EventId = _id("EventId", "EVT", "A calendar event, e.g. EVT-1001.")
DocumentId = _id("DocumentId", "DOC", "A document, e.g. DOC-1001.")
MessageId = _id("MessageId", "MSG", "An email message, e.g. MSG-1001.")
ChatMessageId = _id("ChatMessageId", "CHM", "A chat message, e.g. CHM-1001.")
AlertId = _id("AlertId", "ALR", "A monitoring alert, e.g. ALR-1001.")
IncidentId = _id("IncidentId", "INC", "An incident, e.g. INC-1001.")

ID_TYPES = (
    "CustomerId",
    "OrderId",
    "PaymentId",
    "RefundId",
    "ReservationId",
    "PurchaseOrderId",
    "TicketId",
    "ShipmentId",
    "EventId",
    "DocumentId",
    "MessageId",
    "ChatMessageId",
    "AlertId",
    "IncidentId",
)

Reference = Annotated[
    str,
    Field(
        pattern=r"^[A-Z]{2,3}-\d{4,6}$",
        description="Any record's identifier (an order, a ticket, a refund, …), e.g. ORD-1001.",
        json_schema_extra={TYPE_KEY: "Reference"},
    ),
]
Sku = Annotated[
    str,
    Field(
        pattern=r"^SKU-[A-Z0-9]{3,8}$",
        description="A stock-keeping unit, e.g. SKU-MUG01.",
        json_schema_extra={TYPE_KEY: "Sku"},
    ),
]
TrackingNumber = Annotated[
    str,
    Field(
        pattern=r"^[A-Z0-9]{10,22}$",
        description="A carrier's tracking number, e.g. 1ZX4829301.",
        json_schema_extra={TYPE_KEY: "TrackingNumber"},
    ),
]
EmailAddress = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$",
        max_length=254,
        description="An email address, e.g. ana.silva@example.com.",
        json_schema_extra={TYPE_KEY: "EmailAddress"},
    ),
]
PhoneNumber = Annotated[
    str,
    Field(
        pattern=r"^\+[1-9]\d{7,14}$",
        description="A phone number in E.164 form, e.g. +14155550123.",
        json_schema_extra={TYPE_KEY: "PhoneNumber"},
    ),
]
ChannelName = Annotated[
    str,
    Field(
        pattern=r"^[a-z0-9][a-z0-9-]{1,39}$",
        description="A chat channel, without '#', e.g. support.",
        json_schema_extra={TYPE_KEY: "ChannelName"},
    ),
]
SheetName = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9 _-]{0,39}$",
        description="A spreadsheet tab, e.g. Refund log.",
        json_schema_extra={TYPE_KEY: "SheetName"},
    ),
]
Currency = Annotated[
    str,
    Field(
        pattern=r"^[A-Z]{3}$",
        description="An ISO 4217 currency code, e.g. USD.",
        json_schema_extra={TYPE_KEY: "Currency"},
    ),
]
Timestamp = Annotated[
    AwareDatetime,
    Field(
        description="A time with its zone, ISO 8601, e.g. 2025-03-03T14:00:00Z.",
        json_schema_extra={TYPE_KEY: "Timestamp"},
    ),
]
Day = Annotated[
    date, Field(description="A calendar day, ISO 8601, e.g. 2025-03-03.", json_schema_extra={TYPE_KEY: "Day"})
]

CENT = Decimal("0.01")
CURRENCIES = frozenset({"USD", "EUR", "GBP", "CAD", "JPY"})


class Money(BaseModel):
    """An amount in one currency, kept to the cent."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra={TYPE_KEY: "Money"})

    amount: Decimal = Field(description="The amount, e.g. 12.50; two decimals.")
    currency: Currency = "USD"

    @field_validator("amount")
    @classmethod
    def _to_cents(cls, value: Decimal) -> Decimal:
        if not value.is_finite():
            raise ValueError("amount must be a finite number")
        return value.quantize(CENT, rounding=ROUND_HALF_UP)

    @field_validator("currency")
    @classmethod
    def _known_currency(cls, value: str) -> str:
        if value not in CURRENCIES:
            raise ValueError(f"unsupported currency {value}; supported: {', '.join(sorted(CURRENCIES))}")
        return value

    @classmethod
    def of(cls, amount: str | int | Decimal, currency: str = "USD") -> Money:
        return cls(amount=Decimal(str(amount)), currency=currency)

    def _same(self, other: Money) -> None:
        if other.currency != self.currency:
            raise InvalidArgument(f"currency mismatch: {self.currency} and {other.currency}")

    def __add__(self, other: Money) -> Money:
        self._same(other)
        return Money(amount=self.amount + other.amount, currency=self.currency)

    def __sub__(self, other: Money) -> Money:
        self._same(other)
        return Money(amount=self.amount - other.amount, currency=self.currency)

    def times(self, factor: int | Decimal) -> Money:
        return Money(amount=self.amount * factor, currency=self.currency)

    def exceeds(self, other: Money) -> bool:
        self._same(other)
        return self.amount > other.amount

    @property
    def positive(self) -> bool:
        return self.amount > 0

    def __str__(self) -> str:
        return f"{self.amount} {self.currency}"


def zero(currency: str = "USD") -> Money:
    return Money(amount=Decimal(0), currency=currency)


class DateRange(BaseModel):
    """Calendar days from `start` to `end`, both included."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra={TYPE_KEY: "DateRange"})

    start: date
    end: date

    @model_validator(mode="after")
    def _ordered(self) -> DateRange:
        if self.end < self.start:
            raise ValueError(f"the range ends ({self.end}) before it starts ({self.start})")
        return self

    def contains(self, moment: date | datetime) -> bool:
        day = moment.astimezone(UTC).date() if isinstance(moment, datetime) else moment
        return self.start <= day <= self.end

    def __str__(self) -> str:
        return f"{self.start} to {self.end}"


class Address(BaseModel):
    """A postal address."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra={TYPE_KEY: "Address"})

    line1: str = Field(min_length=1, max_length=120)
    city: str = Field(min_length=1, max_length=60)
    postal_code: str = Field(min_length=2, max_length=12)
    country: str = Field(pattern=r"^[A-Z]{2}$", description="ISO 3166 alpha-2, e.g. US.")

    def __str__(self) -> str:
        return f"{self.line1}, {self.postal_code} {self.city}, {self.country}"


@dataclass(frozen=True)
class InterfaceType:
    """What the goal writer and the binder know of an interface type."""

    name: str
    noun: str
    """How a user names a value of it they do not spell out ("that order")."""
    shown: str = "{value}"
    """How a user writes a value of it they do know ("order ORD-1001")."""
    identifier: bool = False
    link: bool = True
    """Whether the dependency graph links tools by it (times and currencies are too generic to)."""


def _ids() -> list[InterfaceType]:
    labels = {
        "CustomerId": "customer",
        "OrderId": "order",
        "PaymentId": "payment",
        "RefundId": "refund",
        "ReservationId": "reservation",
        "PurchaseOrderId": "purchase order",
        "TicketId": "ticket",
        "ShipmentId": "shipment",
        "EventId": "meeting",
        "DocumentId": "document",
        "MessageId": "email",
        "ChatMessageId": "chat message",
        "AlertId": "alert",
        "IncidentId": "incident",
    }
    return [InterfaceType(n, f"that {label}", f"{label} {{value}}", identifier=True) for n, label in labels.items()]


INTERFACE_TYPES: dict[str, InterfaceType] = {
    t.name: t
    for t in (
        *_ids(),
        InterfaceType("Reference", "that record", identifier=True),
        InterfaceType("Sku", "that product"),
        InterfaceType("TrackingNumber", "that tracking number", identifier=True),
        InterfaceType("EmailAddress", "that email address"),
        InterfaceType("PhoneNumber", "that phone number"),
        InterfaceType("ChannelName", "that channel", "#{value}"),
        InterfaceType("SheetName", "that tab", "the “{value}” tab"),
        InterfaceType("Currency", "that currency", link=False),
        InterfaceType("Timestamp", "that time", link=False),
        InterfaceType("Day", "that day", link=False),
        InterfaceType("Money", "that amount"),
        InterfaceType("DateRange", "those dates"),
        InterfaceType("Address", "that address"),
    )
}

ACCEPTS: dict[str, frozenset[str]] = {"Reference": frozenset({"Reference", *ID_TYPES})}
"""Input type → the output types a parameter of it accepts (besides itself)."""


def accepts(input_type: str, output_type: str) -> bool:
    """Whether a value of `output_type` can fill a parameter of `input_type`."""
    return input_type == output_type or output_type in ACCEPTS.get(input_type, frozenset())
