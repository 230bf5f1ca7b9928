"""Tickets: the helpdesk — customer and internal tickets, assignment, comments, resolution."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound, PermissionDenied
from skill2env.compoworld.service import Service, ServiceState, tool
from skill2env.compoworld.types import CustomerId, EmailAddress, Reference, TicketId, Timestamp

Priority = Literal["low", "normal", "high", "urgent"]
TicketStatus = Literal["open", "pending", "resolved"]
PRIORITY_ORDER = {"urgent": 0, "high": 1, "normal": 2, "low": 3}


class Comment(BaseModel):
    at: Timestamp
    author: EmailAddress | None
    text: str
    public: bool


class Ticket(BaseModel):
    ticket_id: TicketId
    subject: str
    description: str
    priority: Priority
    status: TicketStatus
    customer_id: CustomerId | None = None
    assignee: EmailAddress | None = None
    links: list[Reference] = Field(default_factory=list)
    comments: list[Comment] = Field(default_factory=list)
    resolution: str = ""
    opened_at: Timestamp


class TicketsState(ServiceState):
    tickets: dict[str, Ticket] = Field(default_factory=dict)
    agents: list[EmailAddress] = Field(default_factory=list)
    """Who tickets can be assigned to."""


class Tickets(Service):
    name = "tickets"
    domain = "operations"
    description = "The helpdesk: tickets with priority, assignee (support and fulfilment staff), links, comments."
    State = TicketsState
    state: TicketsState

    @classmethod
    def fixture(cls, universe: Any) -> TicketsState:
        agents = [s.email for s in universe.staff if s.team in ("support", "fulfilment")]
        state = TicketsState(clock=universe.now, agents=agents)
        shipped = [o for o in universe.orders if o.status == "shipped"]
        seeds: list[tuple[str, str, Priority, str | None, list[str]]] = [
            ("Label printer offline", "The warehouse label printer stopped printing this morning.", "high", None, []),
        ]
        for placed in shipped[:2]:
            seeds.append(
                (
                    f"Parcel for {placed.id} late",
                    "Customer asks where the parcel is.",
                    "normal",
                    placed.customer_id,
                    [placed.id],
                )
            )
        for subject, description, priority, customer, links in seeds:
            ticket_id = state.next_id("TCK")
            state.tickets[ticket_id] = Ticket(
                ticket_id=ticket_id,
                subject=subject,
                description=description,
                priority=priority,
                status="open",
                customer_id=customer,
                links=links,
                opened_at=universe.now - timedelta(hours=5),
            )
        return state

    def _ticket(self, ticket_id: str) -> Ticket:
        if ticket_id not in self.state.tickets:
            raise NotFound(f"no ticket {ticket_id}")
        return self.state.tickets[ticket_id]

    def _open(self, ticket_id: str) -> Ticket:
        ticket = self._ticket(ticket_id)
        if ticket.status == "resolved":
            raise Conflict(f"{ticket_id} is resolved")
        return ticket

    def _save(self, ticket: Ticket, **changes: Any) -> Ticket:
        updated = ticket.model_copy(update=changes)
        self.state.tickets[ticket.ticket_id] = updated
        return updated

    @tool(reads=("tickets",), writes=("tickets",), intent="open a {priority} ticket “{subject}”: {description}")
    def create_ticket(
        self,
        subject: str,
        description: str,
        priority: Priority = "normal",
        customer_id: CustomerId | None = None,
        related: Reference | None = None,
    ) -> Ticket:
        """Open a ticket, optionally for a customer and linked to a record.

        Args:
            subject: A one-line summary.
            description: What happened.
            priority: How urgent.
            customer_id: The customer concerned.
            related: A record it is about (order, shipment, refund, …).

        Raises:
            InvalidArgument: Empty subject or description.
        """
        if not subject.strip() or not description.strip():
            raise InvalidArgument("a ticket needs a subject and a description")
        ticket = Ticket(
            ticket_id=self.state.next_id("TCK"),
            subject=subject.strip(),
            description=description.strip(),
            priority=priority,
            status="open",
            customer_id=customer_id,
            links=[related] if related else [],
            opened_at=self.now,
        )
        self.state.tickets[ticket.ticket_id] = ticket
        return ticket

    @tool(reads=("tickets",), intent="check {ticket_id}", reports=("status", "assignee"))
    def get_ticket(self, ticket_id: TicketId) -> Ticket:
        """Get a ticket with its comments.

        Args:
            ticket_id: The ticket.

        Raises:
            NotFound: No such ticket.
        """
        return self._ticket(ticket_id)

    @tool(reads=("tickets",), intent="list the open tickets")
    def list_open_tickets(
        self, priority: Priority | None = None, customer_id: CustomerId | None = None
    ) -> list[Ticket]:
        """List unresolved tickets, most urgent first, optionally of one priority or customer.

        Args:
            priority: Only this priority.
            customer_id: Only this customer's.
        """
        found = [
            t
            for t in self.state.tickets.values()
            if t.status != "resolved" and priority in (None, t.priority) and customer_id in (None, t.customer_id)
        ]
        return sorted(found, key=lambda t: (PRIORITY_ORDER[t.priority], t.opened_at))

    @tool(reads=("tickets", "agents"), writes=("tickets",), intent="assign {ticket_id} to {assignee}")
    def assign_ticket(self, ticket_id: TicketId, assignee: EmailAddress) -> Ticket:
        """Assign an unresolved ticket to a support or fulfilment agent.

        Args:
            ticket_id: The ticket.
            assignee: The agent.

        Raises:
            NotFound: No such ticket.
            Conflict: It is resolved, or assigned to them already.
            PermissionDenied: They are not a helpdesk agent.
        """
        ticket = self._open(ticket_id)
        if assignee not in self.state.agents:
            raise PermissionDenied(f"{assignee} is not a helpdesk agent; agents: {', '.join(self.state.agents)}")
        if ticket.assignee == assignee:
            raise Conflict(f"{ticket_id} is assigned to {assignee} already")
        return self._save(ticket, assignee=assignee)

    @tool(reads=("tickets",), writes=("tickets",), intent="comment on {ticket_id}: “{text}”")
    def comment_on_ticket(self, ticket_id: TicketId, text: str, public: bool = False) -> Ticket:
        """Add an internal note (or, with `public`, a reply the customer sees) to a ticket.

        Args:
            ticket_id: The ticket.
            text: The comment.
            public: Visible to the customer.

        Raises:
            NotFound: No such ticket.
            InvalidArgument: Empty comment.
        """
        ticket = self._ticket(ticket_id)
        if not text.strip():
            raise InvalidArgument("the comment is empty")
        comment = Comment(at=self.now, author=ticket.assignee, text=text.strip(), public=public)
        return self._save(ticket, comments=[*ticket.comments, comment])

    @tool(reads=("tickets",), writes=("tickets",), intent="make {ticket_id} {priority} priority")
    def set_ticket_priority(self, ticket_id: TicketId, priority: Priority) -> Ticket:
        """Change an unresolved ticket's priority.

        Args:
            ticket_id: The ticket.
            priority: The new priority.

        Raises:
            NotFound: No such ticket.
            Conflict: Resolved, or already that priority.
        """
        ticket = self._open(ticket_id)
        if ticket.priority == priority:
            raise Conflict(f"{ticket_id} is {priority} already")
        return self._save(ticket, priority=priority)

    @tool(reads=("tickets",), writes=("tickets",), intent="link {reference} to {ticket_id}")
    def link_ticket(self, ticket_id: TicketId, reference: Reference) -> Ticket:
        """Link a record (order, shipment, incident, …) to a ticket.

        Args:
            ticket_id: The ticket.
            reference: The record.

        Raises:
            NotFound: No such ticket.
            Conflict: Linked already.
        """
        ticket = self._ticket(ticket_id)
        if reference in ticket.links:
            raise Conflict(f"{reference} is linked to {ticket_id} already")
        return self._save(ticket, links=[*ticket.links, reference])

    @tool(reads=("tickets",), writes=("tickets",), intent="close {ticket_id} as resolved: “{resolution}”")
    def resolve_ticket(self, ticket_id: TicketId, resolution: str) -> Ticket:
        """Resolve a ticket with a resolution note.

        Args:
            ticket_id: The ticket.
            resolution: What was done.

        Raises:
            NotFound: No such ticket.
            Conflict: It is resolved already.
            InvalidArgument: Empty resolution.
        """
        ticket = self._open(ticket_id)
        if not resolution.strip():
            raise InvalidArgument("say how the ticket was resolved")
        return self._save(ticket, status="resolved", resolution=resolution.strip())
