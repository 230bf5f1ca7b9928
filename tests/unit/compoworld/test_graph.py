"""The tool dependency graph: data edges by interface type, state edges by field, components, tables."""

from __future__ import annotations

from skill2env.compoworld.graph import Edge, ToolGraph, build_graph
from skill2env.compoworld.service import ToolSpec
from skill2env.compoworld.tables import edges_frame, graph_from_tables, service_tools_frame


def spec(
    key: str,
    *,
    inputs: dict[str, str] | None = None,
    outputs: list[str] | None = None,
    reads: list[str] | None = None,
    writes: list[str] | None = None,
) -> ToolSpec:
    service, name = key.split(".")
    return ToolSpec(
        service=service,
        domain="commerce",
        name=name,
        description=name,
        parameters={},
        result={},
        intent=name,
        inputs=inputs or {},
        outputs=outputs or [],
        reads=reads or [],
        writes=writes or [],
    )


def test_data_edges_follow_interface_types_and_references_accept_any_identifier() -> None:
    graph = build_graph(
        [
            spec("orders.get_order", inputs={"order_id": "OrderId"}, outputs=["OrderId", "CustomerId", "Timestamp"]),
            spec("crm.get_customer", inputs={"customer_id": "CustomerId"}, outputs=["CustomerId", "EmailAddress"]),
            spec("tickets.link", inputs={"reference": "Reference"}),
            spec("oncall.on_call", inputs={"at": "Timestamp"}),
        ]
    )
    data = {(e.source, e.target, e.via, e.parameter) for e in graph.edges if e.kind == "data"}
    assert ("orders.get_order", "crm.get_customer", "CustomerId", "customer_id") in data
    assert ("crm.get_customer", "tickets.link", "CustomerId", "reference") in data
    assert ("orders.get_order", "tickets.link", "OrderId", "reference") in data
    assert not any(e.target == "oncall.on_call" for e in graph.edges), "times are too generic to link"
    assert not any(e.source == e.target for e in graph.edges)


def test_state_edges_join_writers_to_readers_of_the_same_service_only() -> None:
    graph = build_graph(
        [
            spec("inventory.reserve", writes=["stock"], reads=["stock"]),
            spec("inventory.get_stock", reads=["stock"]),
            spec("orders.other", reads=["stock"]),
        ]
    )
    assert graph.edges == [Edge("inventory.reserve", "inventory.get_stock", "state", "stock")]


def test_components_and_stats() -> None:
    graph = build_graph(
        [
            spec("a.one", outputs=["OrderId"]),
            spec("a.two", inputs={"order_id": "OrderId"}),
            spec("b.three", outputs=["TicketId"]),
            spec("b.four", inputs={"ticket_id": "TicketId"}),
            spec("c.alone"),
        ]
    )
    components = graph.components()
    assert components["a.one"] == components["a.two"] != components["b.three"] == components["b.four"]
    stats = graph.stats()
    assert (stats.services, stats.tools, stats.edges, stats.components, stats.isolated_tools) == (3, 5, 2, 3, 1)
    assert stats.cross_service_edges == 0 and stats.largest_component == 2


def test_the_shipped_graph(graph: ToolGraph) -> None:
    stats = graph.stats()
    assert stats.tools == len(graph.specs) >= 60
    assert stats.data_edges > 0 and stats.state_edges > 0 and stats.cross_service_edges > 0
    assert stats.components >= 1 and stats.simulated_tools >= 2
    out = {e.target for e in graph.out["crm.find_customer_by_email"]}
    assert {"orders.list_customer_orders", "tickets.create_ticket", "payments.charge"} <= out
    assert any(e.kind == "state" for e in graph.out["inventory.reserve_stock"])


def test_the_graph_survives_its_tables(graph: ToolGraph) -> None:
    tools = service_tools_frame(graph)
    edges = edges_frame(graph)
    assert tools.height == len(graph.specs) and edges.height == len(graph.edges)
    again = graph_from_tables(tools, edges)
    assert again.specs == graph.specs and again.edges == graph.edges
    subgraph = again.subgraph(["crm", "orders"])
    assert {s.service for s in subgraph.specs.values()} == {"crm", "orders"}
    assert all(e.source in subgraph.specs and e.target in subgraph.specs for e in subgraph.edges)
