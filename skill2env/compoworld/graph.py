"""The tool dependency graph: which tool's output (or state write) can feed which tool.

Nodes are tools (`service.tool`). Two kinds of directed edges:

* `data`: an interface type in A's result fills a parameter of B (`orders.get_order` →
  `crm.get_customer` via `CustomerId`); types too generic to mean a dependency (times,
  currencies) make no edges, and a `Reference` parameter accepts any identifier;
* `state`: A writes a state field B reads, in the same service (`inventory.reserve_stock` →
  `inventory.get_stock` via `stock`).

Components are weakly connected components (edges taken both ways).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel

from skill2env.compoworld.service import ToolSpec
from skill2env.compoworld.types import INTERFACE_TYPES, accepts

EdgeKind = Literal["data", "state"]


@dataclass(frozen=True, order=True)
class Edge:
    source: str
    target: str
    kind: EdgeKind
    via: str
    """The interface type (data) or the state field (state) the edge runs through."""
    parameter: str = ""
    """data edges: the target's parameter that takes the value."""

    @property
    def cross_service(self) -> bool:
        return self.source.split(".", 1)[0] != self.target.split(".", 1)[0]


class GraphStats(BaseModel):
    services: int
    tools: int
    simulated_tools: int
    edges: int
    data_edges: int
    state_edges: int
    cross_service_edges: int
    components: int
    largest_component: int
    isolated_tools: int


@dataclass
class ToolGraph:
    specs: dict[str, ToolSpec]
    edges: list[Edge]
    out: dict[str, list[Edge]] = field(default_factory=dict)
    into: dict[str, list[Edge]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        out: dict[str, list[Edge]] = defaultdict(list)
        into: dict[str, list[Edge]] = defaultdict(list)
        for edge in self.edges:
            out[edge.source].append(edge)
            into[edge.target].append(edge)
        self.out = {key: out.get(key, []) for key in self.specs}
        self.into = {key: into.get(key, []) for key in self.specs}

    @property
    def services(self) -> list[str]:
        return sorted({spec.service for spec in self.specs.values()})

    def components(self) -> dict[str, int]:
        """Tool → component number; components numbered 0.. by size (largest first), then by first tool."""
        parent = {key: key for key in self.specs}

        def find(key: str) -> str:
            while parent[key] != key:
                parent[key] = parent[parent[key]]
                key = parent[key]
            return key

        for edge in self.edges:
            a, b = find(edge.source), find(edge.target)
            if a != b:
                parent[max(a, b)] = min(a, b)
        groups: dict[str, list[str]] = defaultdict(list)
        for key in sorted(self.specs):
            groups[find(key)].append(key)
        ordered = sorted(groups.values(), key=lambda members: (-len(members), members[0]))
        return {key: number for number, members in enumerate(ordered) for key in members}

    def stats(self) -> GraphStats:
        components = self.components()
        sizes: dict[int, int] = defaultdict(int)
        for number in components.values():
            sizes[number] += 1
        linked = {e.source for e in self.edges} | {e.target for e in self.edges}
        return GraphStats(
            services=len(self.services),
            tools=len(self.specs),
            simulated_tools=sum(spec.simulated for spec in self.specs.values()),
            edges=len(self.edges),
            data_edges=sum(e.kind == "data" for e in self.edges),
            state_edges=sum(e.kind == "state" for e in self.edges),
            cross_service_edges=sum(e.cross_service for e in self.edges),
            components=len(sizes),
            largest_component=max(sizes.values(), default=0),
            isolated_tools=len(self.specs) - len(linked & set(self.specs)),
        )

    def subgraph(self, services: Iterable[str]) -> ToolGraph:
        """The graph restricted to some services (e.g. the verified ones)."""
        keep = set(services)
        specs = {k: s for k, s in self.specs.items() if s.service in keep}
        return ToolGraph(specs, [e for e in self.edges if e.source in specs and e.target in specs])


def _linkable(type_name: str) -> bool:
    known = INTERFACE_TYPES.get(type_name)
    return known is not None and known.link


def build_graph(specs: Iterable[ToolSpec]) -> ToolGraph:
    """Edges between every pair of distinct tools, by output → input type and by state write → read."""
    by_key = {spec.key: spec for spec in sorted(specs, key=lambda s: s.key)}
    edges: set[Edge] = set()
    for source in by_key.values():
        outputs = [t for t in source.outputs if _linkable(t)]
        for target in by_key.values():
            if target.key == source.key:
                continue
            for parameter, input_type in sorted(target.inputs.items()):
                for output in outputs:
                    if accepts(input_type, output):
                        edges.add(Edge(source.key, target.key, "data", output, parameter))
            if target.service == source.service:
                for state_field in sorted(set(source.writes) & set(target.reads)):
                    edges.add(Edge(source.key, target.key, "state", state_field))
    return ToolGraph(by_key, sorted(edges))
