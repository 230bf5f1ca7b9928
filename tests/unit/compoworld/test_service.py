"""The service base: schemas from type hints and docstrings, declared effects, transactions, the catalog."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import Field

from skill2env.compoworld.errors import (
    Conflict,
    InvalidArgument,
    ServiceDefinitionError,
    UndeclaredStateWrite,
    UnknownTool,
)
from skill2env.compoworld.service import DOMAINS, Service, ServiceState, parse_docstring, tool
from skill2env.compoworld.services import SERVICES
from skill2env.compoworld.services.orders import Orders
from skill2env.compoworld.types import CustomerId, Money
from skill2env.compoworld.universe import generate_universe


class CounterState(ServiceState):
    counts: dict[str, int] = Field(default_factory=dict)
    audit: list[str] = Field(default_factory=list)


class Counter(Service):
    name = "counter"
    domain = "operations"
    description = "Counts things per customer."
    State = CounterState
    state: CounterState

    @tool(reads=("counts",), writes=("counts",), intent="count {amount} for {customer_id}")
    def bump(self, customer_id: CustomerId, amount: Money, note: str = "") -> int:
        """Add one to a customer's count.

        Args:
            customer_id: Whose count.
            amount: What it was worth.
            note: Free text.

        Raises:
            Conflict: The count reached 3.
        """
        current = self.state.counts.get(customer_id, 0)
        self.state.counts[customer_id] = current + 1
        if current + 1 > 3:
            raise Conflict("a count stops at 3")
        return current + 1

    @tool(reads=("counts",), writes=("counts",))
    def sneaky(self) -> None:
        """Write a field it does not declare."""
        self.state.audit.append("changed")


def test_the_decorator_derives_the_json_schemas_and_the_spec() -> None:
    spec = Counter.tools["bump"].spec
    properties = spec.parameters["properties"]
    assert spec.parameters["required"] == ["customer_id", "amount"]
    assert spec.parameters["additionalProperties"] is False
    assert properties["customer_id"]["x-type"] == "CustomerId"
    assert properties["customer_id"]["description"] == "Whose count."
    assert properties["note"]["default"] == ""
    assert spec.result == {"type": "integer"}
    assert spec.inputs == {"customer_id": "CustomerId", "amount": "Money"}
    assert [(e.type, e.when) for e in spec.errors] == [("conflict", "The count reached 3.")]
    assert (spec.reads, spec.writes, spec.simulated) == (["counts"], ["counts"], False)
    assert spec.description == "Add one to a customer's count."
    assert Counter.tools["sneaky"].spec.intent == "Write a field it does not declare"


def test_calls_validate_arguments_and_roll_back_on_errors() -> None:
    counter = Counter()
    args: dict[str, Any] = {"customer_id": "CUS-1001", "amount": {"amount": "2"}}
    assert [counter.call("bump", args) for _ in range(3)] == [1, 2, 3]
    with pytest.raises(Conflict):
        counter.call("bump", args)
    assert counter.state.counts == {"CUS-1001": 3}
    with pytest.raises(InvalidArgument, match="customer_id"):
        counter.call("bump", {"customer_id": "nobody", "amount": {"amount": "2"}})
    with pytest.raises(InvalidArgument, match="colour: Extra inputs"):
        counter.call("bump", {**args, "colour": "red"})
    with pytest.raises(UnknownTool):
        counter.call("nope", {})


def test_a_write_to_an_undeclared_field_is_refused_and_rolled_back() -> None:
    counter = Counter()
    with pytest.raises(UndeclaredStateWrite, match="audit"):
        counter.call("sneaky", {})
    assert counter.state.audit == []


def test_definition_errors_are_caught_when_the_class_is_made() -> None:
    with pytest.raises(ServiceDefinitionError, match="not described"):

        class Undocumented(Service):
            name, domain, description = "u", "office", "u"

            @tool()
            def act(self, value: int) -> int:
                """Do it."""
                return value

    with pytest.raises(ServiceDefinitionError, match="not a field"):

        class UnknownField(Service):
            name, domain, description = "u", "office", "u"

            @tool(reads=("missing",))
            def act(self) -> int:
                """Do it."""
                return 1

    with pytest.raises(ServiceDefinitionError, match="intent"):

        class BadIntent(Service):
            name, domain, description = "u", "office", "u"

            @tool(intent="do it")
            def act(self, value: int) -> int:
                """Do it.

                Args:
                    value: A value.
                """
                return value


def test_docstring_sections() -> None:
    doc = parse_docstring(
        """Summary line
        continues here.

        Args:
            first: One
                and more.
            second (int): Two.

        Raises:
            NotFound: Missing.
        """
    )
    assert doc.summary == "Summary line continues here."
    assert doc.args == {"first": "One and more.", "second": "Two."}
    assert doc.raises == {"NotFound": "Missing."}


def test_the_shipped_catalog_has_enough_services_domains_and_tools() -> None:
    assert len(SERVICES) >= 12
    assert {cls.domain for cls in SERVICES.values()} == set(DOMAINS)
    tools = [spec for cls in SERVICES.values() for spec in cls.specs()]
    assert len(tools) >= 60
    assert {spec.key for spec in tools if spec.simulated} >= {"shipping.track_package", "payments.convert_currency"}
    for cls in SERVICES.values():
        assert len(cls.tools) >= 5, cls.name
        for spec in cls.specs():
            assert spec.description and spec.intent
            assert set(spec.writes) <= set(cls.State.model_fields)


def test_a_service_round_trips_its_state_as_json() -> None:
    orders = Orders(Orders.fixture(generate_universe(3)))
    copy = Orders()
    copy.load_state(orders.state_json())
    assert copy.state == orders.state
