"""State and output checks: evaluation, and derivation from a hand-made diff."""

from __future__ import annotations

from typing import Any

from skill2env.compoworld.scoring import derive_checks, evaluate, score
from skill2env.compoworld.services.tickets import Tickets
from skill2env.compoworld.universe import generate_universe
from skill2env.rubric.models import CheckSpec, Method, Rubric, RubricItem

STATES: dict[str, Any] = {
    "orders": {"orders": {"ORD-1": {"status": "Cancelled ", "total": {"amount": "5.00", "currency": "USD"}}}},
    "chat": {"channels": {"ops": {"messages": [{"id": "CHM-9", "text": "Deploy at 14:00"}]}}},
}


def check(name: str, **params: Any) -> CheckSpec:
    return CheckSpec(check=name, params=params)


def test_state_equals_exact_and_subset() -> None:
    assert evaluate(
        check("state_equals", service="orders", path=["orders", "ORD-1", "status"], expected="cancelled"), STATES
    )
    subset = check(
        "state_equals",
        service="orders",
        path=["orders", "ORD-1"],
        subset=True,
        expected={"total": {"amount": "5.00", "currency": "USD"}},
    )
    assert evaluate(subset, STATES) == 1.0
    wrong = check("state_equals", service="orders", path=["orders", "ORD-1"], subset=True, expected={"status": "paid"})
    assert evaluate(wrong, STATES) == 0.0
    assert evaluate(check("state_equals", service="orders", path=["orders", "ORD-2"], expected=None), STATES) == 0.0


def test_records_exist_or_are_gone() -> None:
    path = ["channels", "ops", "messages"]
    assert evaluate(check("state_record_exists", service="chat", path=path, match={"text": "deploy at 14:00."}), STATES)
    assert not evaluate(check("state_record_exists", service="chat", path=path, match={"text": "other"}), STATES)
    assert evaluate(check("state_absent", service="orders", path=["orders"], key="ORD-2"), STATES)
    assert not evaluate(check("state_absent", service="orders", path=["orders"], key="ORD-1"), STATES)
    assert evaluate(check("state_absent", service="chat", path=path, match={"id": "CHM-1"}), STATES)


def test_output_contains_every_value() -> None:
    spec = check("output_contains", values=["12.50", "In Transit"])
    assert evaluate(spec, {}, "It costs 12.50 USD and is in   transit.") == 1.0
    assert evaluate(spec, {}, "It costs 12.50 USD.") == 0.0
    assert evaluate(check("no_such_check"), STATES) == 0.0


def test_score_weights_items() -> None:
    rubric = Rubric(
        items=[
            RubricItem(
                id="a",
                description="a",
                weight=0.25,
                method=Method.deterministic,
                check=check("output_contains", values=["x"]),
            ),
            RubricItem(
                id="b",
                description="b",
                weight=0.75,
                method=Method.deterministic,
                check=check("output_contains", values=["y"]),
            ),
        ]
    )
    result = score(rubric, {}, "y")
    assert result.items == {"a": 0.0, "b": 1.0} and result.reward == 0.75


def test_derived_checks_cover_new_changed_and_appended_records() -> None:
    tickets = Tickets(Tickets.fixture(generate_universe(0)))
    before = {"tickets": tickets.state_json()}
    first = next(iter(tickets.state.tickets))
    created = tickets.call(
        "create_ticket", {"subject": "Late parcel", "description": "Where is it?", "related": "ORD-1004"}
    )
    tickets.call("set_ticket_priority", {"ticket_id": first, "priority": "urgent"})
    tickets.call("comment_on_ticket", {"ticket_id": first, "text": "Chasing the carrier"})
    after = {"tickets": tickets.state_json()}
    derived = derive_checks(before, after, {"tickets": Tickets.state_schema()}, {created["ticket_id"]})
    by_name = {(d.check.check, tuple(d.check.params["path"])) for d in derived}
    assert by_name == {
        ("state_record_exists", ("tickets",)),
        ("state_equals", ("tickets", first)),
        ("state_record_exists", ("tickets", first, "comments")),
    }
    new = next(d for d in derived if d.check.params["path"] == ["tickets"])
    assert "ticket_id" not in new.check.params["match"] and new.check.params["match"]["links"] == ["ORD-1004"]
    assert all(evaluate(d.check, after) == 1.0 for d in derived)
    assert all(evaluate(d.check, before) == 0.0 for d in derived)
