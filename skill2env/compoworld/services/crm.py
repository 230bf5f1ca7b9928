"""CRM: the customers, their contact details, tier, tags and notes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound
from skill2env.compoworld.service import Service, ServiceState, tool
from skill2env.compoworld.types import Address, CustomerId, EmailAddress, PhoneNumber, Timestamp

Tier = Literal["standard", "gold", "platinum"]


class Note(BaseModel):
    at: Timestamp
    text: str


class Customer(BaseModel):
    customer_id: CustomerId
    name: str
    email: EmailAddress
    phone: PhoneNumber | None = None
    address: Address | None = None
    tier: Tier = "standard"
    tags: list[str] = Field(default_factory=list)
    notes: list[Note] = Field(default_factory=list)


class CrmState(ServiceState):
    customers: dict[str, Customer] = Field(default_factory=dict)


class Crm(Service):
    name = "crm"
    domain = "commerce"
    description = "Customer records: contact details, loyalty tier, tags and account notes."
    State = CrmState
    state: CrmState

    @classmethod
    def fixture(cls, universe: Any) -> CrmState:
        state = CrmState(clock=universe.now)
        for person in universe.customers:
            state.customers[person.id] = Customer(
                customer_id=person.id,
                name=person.name,
                email=person.email,
                phone=person.phone,
                address=person.address,
                tier=person.tier,
            )
            state.counters["CUS"] = int(person.id.split("-")[1])
        return state

    def _customer(self, customer_id: str) -> Customer:
        if customer_id not in self.state.customers:
            raise NotFound(f"no customer {customer_id}")
        return self.state.customers[customer_id]

    def _by_email(self, email: str) -> Customer | None:
        return next((c for c in self.state.customers.values() if c.email.lower() == email.lower()), None)

    @tool(
        reads=("customers",),
        intent="look up the customer with the email address {email}",
        reports=("customer_id", "name", "tier"),
    )
    def find_customer_by_email(self, email: EmailAddress) -> Customer:
        """Find the customer who uses an email address.

        Args:
            email: The address to look up (case does not matter).

        Raises:
            NotFound: No customer uses it.
        """
        found = self._by_email(email)
        if found is None:
            raise NotFound(f"no customer with email {email}")
        return found

    @tool(reads=("customers",), intent="look up {customer_id}", reports=("name", "email", "tier"))
    def get_customer(self, customer_id: CustomerId) -> Customer:
        """Get one customer's record.

        Args:
            customer_id: The customer.

        Raises:
            NotFound: No such customer.
        """
        return self._customer(customer_id)

    @tool(reads=("customers",), intent="search the customers for {query}")
    def search_customers(self, query: str, tier: Tier | None = None) -> list[Customer]:
        """Search customers by a part of their name or email, optionally of one tier.

        Args:
            query: Text to find in the name or email (case-insensitive); at least 2 characters.
            tier: Only customers of this tier.

        Raises:
            InvalidArgument: The query is shorter than 2 characters.
        """
        text = query.strip().lower()
        if len(text) < 2:
            raise InvalidArgument("the query needs at least 2 characters")
        return [
            c
            for c in self.state.customers.values()
            if (text in c.name.lower() or text in c.email.lower()) and (tier is None or c.tier == tier)
        ]

    @tool(reads=("customers",), writes=("customers",), intent="add a new customer, {name}, with email {email}")
    def create_customer(self, name: str, email: EmailAddress, phone: PhoneNumber | None = None) -> Customer:
        """Create a customer record.

        Args:
            name: Full name.
            email: Email address; must not belong to another customer.
            phone: Phone number (E.164).

        Raises:
            Conflict: Another customer already uses the email.
            InvalidArgument: The name is empty.
        """
        if not name.strip():
            raise InvalidArgument("the name is empty")
        if self._by_email(email) is not None:
            raise Conflict(f"{email} already belongs to a customer")
        customer = Customer(customer_id=self.state.next_id("CUS"), name=name.strip(), email=email, phone=phone)
        self.state.customers[customer.customer_id] = customer
        return customer

    @tool(reads=("customers",), writes=("customers",), intent="change the email address of {customer_id} to {email}")
    def update_customer_email(self, customer_id: CustomerId, email: EmailAddress) -> Customer:
        """Change a customer's email address.

        Args:
            customer_id: The customer.
            email: The new address; must not belong to another customer.

        Raises:
            NotFound: No such customer.
            Conflict: Another customer uses the address.
        """
        customer = self._customer(customer_id)
        owner = self._by_email(email)
        if owner is not None and owner.customer_id != customer_id:
            raise Conflict(f"{email} already belongs to {owner.customer_id}")
        updated = customer.model_copy(update={"email": email})
        self.state.customers[customer_id] = updated
        return updated

    @tool(reads=("customers",), writes=("customers",), intent="note on the account of {customer_id}: “{text}”")
    def add_customer_note(self, customer_id: CustomerId, text: str) -> Customer:
        """Add a note to a customer's account history.

        Args:
            customer_id: The customer.
            text: The note.

        Raises:
            NotFound: No such customer.
            InvalidArgument: The note is empty.
        """
        customer = self._customer(customer_id)
        if not text.strip():
            raise InvalidArgument("the note is empty")
        updated = customer.model_copy(update={"notes": [*customer.notes, Note(at=self.now, text=text.strip())]})
        self.state.customers[customer_id] = updated
        return updated

    @tool(reads=("customers",), writes=("customers",), intent="tag {customer_id} as “{tag}”")
    def tag_customer(self, customer_id: CustomerId, tag: str) -> Customer:
        """Add a tag to a customer (tags are lower-case; adding one twice keeps one).

        Args:
            customer_id: The customer.
            tag: The tag, e.g. "vip" or "churn-risk".

        Raises:
            NotFound: No such customer.
            InvalidArgument: The tag is empty or longer than 32 characters.
        """
        customer = self._customer(customer_id)
        clean = tag.strip().lower()
        if not clean or len(clean) > 32:
            raise InvalidArgument("a tag has 1 to 32 characters")
        if clean in customer.tags:
            return customer
        updated = customer.model_copy(update={"tags": [*customer.tags, clean]})
        self.state.customers[customer_id] = updated
        return updated

    @tool(reads=("customers",), writes=("customers",), intent="move {customer_id} to the {tier} tier")
    def set_customer_tier(self, customer_id: CustomerId, tier: Tier) -> Customer:
        """Change a customer's loyalty tier.

        Args:
            customer_id: The customer.
            tier: The new tier.

        Raises:
            NotFound: No such customer.
            Conflict: The customer is already in that tier.
        """
        customer = self._customer(customer_id)
        if customer.tier == tier:
            raise Conflict(f"{customer_id} is already {tier}")
        updated = customer.model_copy(update={"tier": tier})
        self.state.customers[customer_id] = updated
        return updated
