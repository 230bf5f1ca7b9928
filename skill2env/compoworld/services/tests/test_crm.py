"""crm: lookups, creation, updates and their errors."""

from __future__ import annotations

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound
from skill2env.compoworld.services.crm import Crm
from skill2env.compoworld.services.tests.support import fresh, raises


def test_find_by_email_ignores_case_and_get_returns_the_same_record() -> None:
    crm, universe = fresh(Crm)
    person = universe.customers[0]
    found = crm.call("find_customer_by_email", {"email": person.email.upper()})
    assert found["customer_id"] == person.id and found["name"] == person.name
    assert crm.call("get_customer", {"customer_id": person.id}) == found


def test_unknown_customer_and_malformed_id_are_typed_errors() -> None:
    crm, _ = fresh(Crm)
    with raises(NotFound, "CUS-9999"):
        crm.call("get_customer", {"customer_id": "CUS-9999"})
    with raises(InvalidArgument, "customer_id"):
        crm.call("get_customer", {"customer_id": "customer 1"})
    with raises(NotFound):
        crm.call("find_customer_by_email", {"email": "nobody@example.com"})


def test_create_customer_takes_the_next_id_and_refuses_a_used_email() -> None:
    crm, universe = fresh(Crm)
    created = crm.call("create_customer", {"name": "Iris Vale", "email": "iris.vale@example.com"})
    assert created["customer_id"] == f"CUS-{1001 + len(universe.customers)}"
    assert crm.state.customers[created["customer_id"]].tier == "standard"
    with raises(Conflict, "already belongs"):
        crm.call("create_customer", {"name": "Other", "email": "IRIS.VALE@example.com"})
    with raises(InvalidArgument):
        crm.call("create_customer", {"name": " ", "email": "x.y@example.com"})


def test_update_email_notes_tags_and_tier() -> None:
    crm, universe = fresh(Crm)
    first, second = universe.customers[0], universe.customers[1]
    crm.call("update_customer_email", {"customer_id": first.id, "email": "new.address@example.com"})
    assert crm.state.customers[first.id].email == "new.address@example.com"
    with raises(Conflict):
        crm.call("update_customer_email", {"customer_id": second.id, "email": "new.address@example.com"})
    crm.call("add_customer_note", {"customer_id": first.id, "text": "prefers email"})
    assert [n.text for n in crm.state.customers[first.id].notes] == ["prefers email"]
    crm.call("tag_customer", {"customer_id": first.id, "tag": "VIP"})
    crm.call("tag_customer", {"customer_id": first.id, "tag": "vip"})
    assert crm.state.customers[first.id].tags == ["vip"]
    tier = "platinum" if first.tier != "platinum" else "gold"
    assert crm.call("set_customer_tier", {"customer_id": first.id, "tier": tier})["tier"] == tier
    with raises(Conflict):
        crm.call("set_customer_tier", {"customer_id": first.id, "tier": tier})


def test_search_matches_name_or_email_and_filters_by_tier() -> None:
    crm, universe = fresh(Crm)
    person = universe.customers[2]
    last = person.name.split()[1]
    found = crm.call("search_customers", {"query": last.lower()})
    assert person.id in {c["customer_id"] for c in found}
    other_tier = next(t for t in ("standard", "gold", "platinum") if t != person.tier)
    assert person.id not in {
        c["customer_id"] for c in crm.call("search_customers", {"query": last, "tier": other_tier})
    }
    with raises(InvalidArgument):
        crm.call("search_customers", {"query": "a"})
