"""A world: the set of service instances a task runs against, with their states.

Calls to ordinary tools run the service's code; calls to `simulated` tools go to the world's
`Simulator` (a world model, validated and logged; none configured → `SimulatedToolUnavailable`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from skill2env.compoworld.errors import UnknownService
from skill2env.compoworld.service import Service, ToolSpec
from skill2env.compoworld.services import SERVICES, service_class
from skill2env.compoworld.universe import Universe, generate_universe
from skill2env.compoworld.world_model import Simulator, WorldModel


class World:
    def __init__(self, services: Mapping[str, Service], simulator: Simulator | None = None) -> None:
        self.services = dict(services)
        self.simulator = simulator or Simulator(None)

    @classmethod
    def build(
        cls,
        names: Iterable[str] | None = None,
        *,
        seed: int = 0,
        universe: Universe | None = None,
        world_model: WorldModel | None = None,
        simulator: Simulator | None = None,
    ) -> World:
        """The named services (default: all) with their fixture states of one universe."""
        universe = universe or generate_universe(seed)
        chosen = list(names) if names is not None else list(SERVICES)
        services = {name: service_class(name)(service_class(name).fixture(universe)) for name in chosen}
        return cls(services, simulator or Simulator(world_model))

    @classmethod
    def from_states(
        cls,
        states: Mapping[str, Mapping[str, Any]],
        *,
        world_model: WorldModel | None = None,
        simulator: Simulator | None = None,
    ) -> World:
        """Services restored from JSON states (a task's initial states)."""
        services = {}
        for name, state in states.items():
            service = service_class(name)()
            service.load_state(state)
            services[name] = service
        return cls(services, simulator or Simulator(world_model))

    def service(self, name: str) -> Service:
        if name not in self.services:
            raise UnknownService(f"no service {name!r} in this world; services: {', '.join(self.services)}")
        return self.services[name]

    def spec(self, service: str, tool: str) -> ToolSpec:
        return self.service(service).bound(tool).spec

    def specs(self) -> list[ToolSpec]:
        return [spec for service in self.services.values() for spec in service.specs()]

    def call(self, service: str, tool: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """Run one tool on JSON arguments; its JSON result. Raises the tool's `ToolError`s."""
        target = self.service(service)
        if target.bound(tool).spec.simulated:
            return self.simulator.run(target, tool, arguments or {})
        return target.call(tool, arguments or {})

    def states(self) -> dict[str, dict[str, Any]]:
        return {name: service.state_json() for name, service in self.services.items()}
