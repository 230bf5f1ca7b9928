"""tickets: creation, assignment to agents, comments, priority, links, resolution."""

from __future__ import annotations

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound, PermissionDenied
from skill2env.compoworld.services.tests.support import fresh, raises
from skill2env.compoworld.services.tickets import Tickets


def test_create_with_customer_and_link() -> None:
    tickets, _ = fresh(Tickets)
    ticket = tickets.call(
        "create_ticket",
        {
            "subject": "Broken kettle",
            "description": "Arrived cracked",
            "priority": "high",
            "customer_id": "CUS-1003",
            "related": "ORD-1004",
        },
    )
    assert ticket["status"] == "open" and ticket["links"] == ["ORD-1004"] and ticket["customer_id"] == "CUS-1003"
    with raises(InvalidArgument):
        tickets.call("create_ticket", {"subject": "", "description": "x"})
    with raises(InvalidArgument, "priority"):
        tickets.call("create_ticket", {"subject": "s", "description": "d", "priority": "critical"})


def test_assignment_only_to_agents() -> None:
    tickets, universe = fresh(Tickets)
    ticket_id = next(iter(tickets.state.tickets))
    agent = tickets.state.agents[0]
    outsider = next(s.email for s in universe.staff if s.email not in tickets.state.agents)
    with raises(PermissionDenied, "not a helpdesk agent"):
        tickets.call("assign_ticket", {"ticket_id": ticket_id, "assignee": outsider})
    assert tickets.call("assign_ticket", {"ticket_id": ticket_id, "assignee": agent})["assignee"] == agent
    with raises(Conflict):
        tickets.call("assign_ticket", {"ticket_id": ticket_id, "assignee": agent})


def test_comments_priority_links_and_resolution() -> None:
    tickets, _ = fresh(Tickets)
    ticket_id = next(iter(tickets.state.tickets))
    tickets.call("comment_on_ticket", {"ticket_id": ticket_id, "text": "Asked the carrier", "public": True})
    assert tickets.state.tickets[ticket_id].comments[-1].public
    tickets.call("set_ticket_priority", {"ticket_id": ticket_id, "priority": "urgent"})
    assert tickets.call("list_open_tickets", {})[0]["ticket_id"] == ticket_id
    tickets.call("link_ticket", {"ticket_id": ticket_id, "reference": "SHP-1002"})
    with raises(Conflict, "linked"):
        tickets.call("link_ticket", {"ticket_id": ticket_id, "reference": "SHP-1002"})
    resolved = tickets.call("resolve_ticket", {"ticket_id": ticket_id, "resolution": "Printer restarted"})
    assert resolved["status"] == "resolved"
    assert ticket_id not in [t["ticket_id"] for t in tickets.call("list_open_tickets", {})]
    with raises(Conflict, "resolved"):
        tickets.call("set_ticket_priority", {"ticket_id": ticket_id, "priority": "low"})
    with raises(NotFound):
        tickets.call("get_ticket", {"ticket_id": "TCK-9999"})
