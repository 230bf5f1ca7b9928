"""The service base: a typed state and tools registered with `@tool`.

    class Orders(Service):
        name = "orders"
        domain = "commerce"
        description = "Customer orders: line items, totals, status."
        State = OrdersState

        @tool(reads=("orders",), writes=("orders",), intent="cancel order {order_id} because {reason}")
        def cancel_order(self, order_id: OrderId, reason: str) -> Order:
            \"\"\"Cancel an order that has not shipped yet.

            Args:
                order_id: The order to cancel.
                reason: Why, for the order's history.

            Raises:
                NotFound: No such order.
                Conflict: The order has shipped or is already cancelled.
            \"\"\"

The decorator derives the JSON schema of the parameters and of the result from the type hints
and the docstring (`Args:` describe parameters, `Raises:` the errors the agent may see) and
records which state fields the tool reads and writes. `Service.call` is the JSON interface:
arguments are validated, the call runs as a transaction (any error rolls the state back), a
write to an undeclared field is refused, and the result comes back as JSON.
"""

from __future__ import annotations

import inspect
import random
import re
import string
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model

from skill2env.compoworld.errors import (
    ERROR_CODES,
    InvalidArgument,
    ServiceDefinitionError,
    SimulatedToolUnavailable,
    UndeclaredStateWrite,
    UnknownTool,
)
from skill2env.compoworld.schema import interface_types, own_type

Domain = Literal["commerce", "office", "communication", "operations"]
DOMAINS: tuple[Domain, ...] = ("commerce", "office", "communication", "operations")
EPOCH = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)
"""Every world starts on Monday 3 March 2025, 09:00 UTC; the clock is part of the state."""
BOOKKEEPING_FIELDS = frozenset({"clock", "counters"})
"""State fields every service has and any tool may touch; rubrics ignore them."""
F = TypeVar("F", bound=Callable[..., Any])
_STATE_SCHEMAS: dict[type[BaseModel], dict[str, Any]] = {}
_SECTION = re.compile(r"^(Args|Arguments|Parameters|Returns|Raises):\s*$")


class ServiceState(BaseModel):
    """The base of every service's state: a clock and the counters new identifiers come from."""

    model_config = ConfigDict(extra="forbid")

    clock: datetime = EPOCH
    counters: dict[str, int] = Field(default_factory=dict)

    def next_id(self, prefix: str) -> str:
        """The next identifier of a kind: `ORD-1001`, `ORD-1002`, …"""
        number = self.counters.get(prefix, 1000) + 1
        self.counters[prefix] = number
        return f"{prefix}-{number}"


@dataclass(frozen=True)
class ToolMeta:
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    simulated: bool
    intent: str | None
    reports: tuple[str, ...]


def tool(
    *,
    reads: tuple[str, ...] = (),
    writes: tuple[str, ...] = (),
    intent: str | None = None,
    simulated: bool = False,
    reports: tuple[str, ...] = (),
) -> Callable[[F], F]:
    """Register a method as a tool.

    Args:
        reads: State fields the tool reads.
        writes: State fields it may change (checked on every call).
        intent: How a user asks for it, with `{parameter}` placeholders for every required
            parameter, e.g. "refund {amount} on order {order_id}"; default: the docstring's summary.
        simulated: Its behaviour cannot be implemented reliably (a third-party API): a world model
            answers it, and the method's body is never run.
        reports: Result fields a user asking for it wants to hear back (a read tool ending a task).
    """

    def mark(fn: F) -> F:
        fn.__compoworld_tool__ = ToolMeta(tuple(reads), tuple(writes), simulated, intent, tuple(reports))  # type: ignore[attr-defined]
        return fn

    return mark


class ErrorSpec(BaseModel):
    model_config = ConfigDict(frozen=True)

    type: str
    when: str


class ToolSpec(BaseModel):
    """A tool as the gateway describes it and the graph reads it: JSON all the way down."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    service: str
    domain: str
    name: str
    description: str
    parameters: dict[str, Any]
    """JSON schema of the arguments object."""
    result: dict[str, Any]
    """JSON schema of the result."""
    errors: list[ErrorSpec] = Field(default_factory=list)
    reads: list[str] = Field(default_factory=list)
    writes: list[str] = Field(default_factory=list)
    simulated: bool = False
    intent: str
    reports: list[str] = Field(default_factory=list)
    inputs: dict[str, str] = Field(default_factory=dict)
    """Parameter → its interface type, for the parameters that have one."""
    outputs: list[str] = Field(default_factory=list)
    """The interface types anywhere in the result."""

    @property
    def key(self) -> str:
        return f"{self.service}.{self.name}"

    @property
    def required(self) -> list[str]:
        return list(self.parameters.get("required") or [])

    @property
    def read_only(self) -> bool:
        return not self.writes


@dataclass(frozen=True)
class BoundTool:
    spec: ToolSpec
    function: Callable[..., Any]
    arguments: type[BaseModel]
    result: TypeAdapter[Any]


@dataclass(frozen=True)
class Docstring:
    summary: str
    args: dict[str, str] = field(default_factory=dict)
    raises: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str | None) -> Docstring:
    """Summary (the text before the first section), `Args:` and `Raises:` of a Google-style docstring."""
    lines = inspect.cleandoc(doc or "").splitlines()
    summary: list[str] = []
    sections: dict[str, dict[str, str]] = {"Args": {}, "Raises": {}}
    current: dict[str, str] | None = None
    last = ""
    in_summary = True
    for line in lines:
        header = _SECTION.match(line.strip()) if not line.startswith(" ") else None
        if header:
            in_summary = False
            name = {"Arguments": "Args", "Parameters": "Args"}.get(header.group(1), header.group(1))
            current = sections.get(name)
            continue
        if in_summary:
            summary.append(line)
            continue
        if current is None or not line.strip():
            continue
        entry = re.match(r"^\s{2,}(\w+)(?:\s*\([^)]*\))?:\s*(.*)$", line)
        if entry and (len(line) - len(line.lstrip())) <= 4:
            last = entry.group(1)
            current[last] = entry.group(2).strip()
        elif last:
            current[last] = f"{current[last]} {line.strip()}".strip()
    text = " ".join(part.strip() for part in summary).strip()
    return Docstring(text, sections["Args"], sections["Raises"])


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def bind_tool(service: type[Service], fn: Callable[..., Any], meta: ToolMeta) -> BoundTool:
    """Derive a tool's spec, argument model and result adapter from its signature and docstring."""
    where = f"{service.__name__}.{fn.__name__}"
    hints = typing.get_type_hints(fn, include_extras=True)
    doc = parse_docstring(fn.__doc__)
    if not doc.summary:
        raise ServiceDefinitionError(f"{where}: a tool needs a docstring")
    state_fields = set(service.State.model_fields)
    for name in (*meta.reads, *meta.writes):
        if name not in state_fields:
            raise ServiceDefinitionError(f"{where}: {name!r} is not a field of {service.State.__name__}")
    fields: dict[str, Any] = {}
    for name, parameter in list(inspect.signature(fn).parameters.items())[1:]:
        if name not in hints:
            raise ServiceDefinitionError(f"{where}: parameter {name!r} has no type hint")
        if name not in doc.args:
            raise ServiceDefinitionError(f"{where}: parameter {name!r} is not described under Args:")
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[name] = (hints[name], Field(default, description=doc.args[name]))
    arguments = create_model(
        f"{service.__name__}_{fn.__name__}_arguments", __config__=ConfigDict(extra="forbid"), **fields
    )
    result = TypeAdapter(hints.get("return", type(None)))
    parameters = arguments.model_json_schema()
    parameters.pop("title", None)
    result_schema = result.json_schema()
    intent = meta.intent or doc.summary.rstrip(".")
    required = set(parameters.get("required") or [])
    unknown = placeholders(intent) - set(fields)
    missing = required - placeholders(intent)
    if unknown or missing:
        raise ServiceDefinitionError(
            f"{where}: intent {intent!r} must name every required parameter "
            f"(unknown: {sorted(unknown)}, missing: {sorted(missing)})"
        )
    errors = []
    for name, when in doc.raises.items():
        if name not in ERROR_CODES:
            raise ServiceDefinitionError(f"{where}: Raises: {name} is not a tool error ({sorted(ERROR_CODES)})")
        errors.append(ErrorSpec(type=ERROR_CODES[name], when=when))
    defs = parameters.get("$defs") or {}
    inputs = {
        name: kind
        for name, node in (parameters.get("properties") or {}).items()
        if (kind := own_type(node, defs)) is not None
    }
    spec = ToolSpec(
        service=service.name,
        domain=service.domain,
        name=fn.__name__,
        description=doc.summary,
        parameters=parameters,
        result=result_schema,
        errors=errors,
        reads=list(meta.reads),
        writes=list(meta.writes),
        simulated=meta.simulated,
        intent=intent,
        reports=list(meta.reports),
        inputs=inputs,
        outputs=sorted(interface_types(result_schema)),
    )
    return BoundTool(spec, fn, arguments, result)


def format_validation_error(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors(include_url=False):
        location = ".".join(str(part) for part in error["loc"]) or "arguments"
        parts.append(f"{location}: {error['msg']}")
    return "; ".join(parts)


class Service:
    """A service: a name, a domain, a typed `State` and the tools defined on the subclass."""

    name: ClassVar[str]
    domain: ClassVar[Domain]
    description: ClassVar[str]
    State: ClassVar[type[ServiceState]] = ServiceState
    tools: ClassVar[dict[str, BoundTool]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for attribute in ("name", "domain", "description"):
            if not isinstance(getattr(cls, attribute, None), str):
                raise ServiceDefinitionError(f"{cls.__name__}: a service needs a `{attribute}`")
        if cls.domain not in DOMAINS:
            raise ServiceDefinitionError(f"{cls.__name__}: domain {cls.domain!r} is not one of {DOMAINS}")
        cls.tools = {
            name: bind_tool(cls, member, member.__compoworld_tool__)
            for name, member in vars(cls).items()
            if callable(member) and hasattr(member, "__compoworld_tool__")
        }

    def __init__(self, state: ServiceState | None = None) -> None:
        self.state = state if state is not None else self.State()

    @classmethod
    def fixture(cls, universe: Any) -> ServiceState:
        """The service's initial state in a world built from `universe` (a `Universe`)."""
        return cls.State()

    def sample_arguments(self, tool_name: str, rng: random.Random) -> dict[str, Any]:
        """Plausible values for a tool's free-form parameters, proposed to the task generator (which
        otherwise samples from the schema and the state); services override it where text or dict
        parameters need to fit the state (a sheet's columns)."""
        return {}

    @classmethod
    def specs(cls) -> list[ToolSpec]:
        return [bound.spec for bound in cls.tools.values()]

    @classmethod
    def state_schema(cls) -> dict[str, Any]:
        """The state's JSON schema (computed once per class; do not mutate it)."""
        cached = _STATE_SCHEMAS.get(cls.State)
        if cached is None:
            cached = _STATE_SCHEMAS[cls.State] = cls.State.model_json_schema()
        return cached

    @property
    def now(self) -> datetime:
        return self.state.clock

    def state_json(self) -> dict[str, Any]:
        return self.state.model_dump(mode="json")

    def load_state(self, data: Mapping[str, Any]) -> None:
        self.state = self.State.model_validate(data)

    def bound(self, tool_name: str) -> BoundTool:
        """Raises: UnknownTool: the service has no such tool."""
        if tool_name not in self.tools:
            raise UnknownTool(f"service {self.name!r} has no tool {tool_name!r}; its tools: {', '.join(self.tools)}")
        return self.tools[tool_name]

    def validate_arguments(self, tool_name: str, arguments: Mapping[str, Any]) -> BaseModel:
        """Raises: InvalidArgument: the arguments do not fit the tool's schema."""
        try:
            return self.bound(tool_name).arguments.model_validate(dict(arguments))
        except ValidationError as exc:
            raise InvalidArgument(
                f"invalid arguments for {self.name}.{tool_name}: {format_validation_error(exc)}"
            ) from None

    def call(self, tool_name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """Run a tool on JSON arguments; returns its JSON result.

        Raises:
            UnknownTool: no such tool.
            InvalidArgument: the arguments do not fit the tool's schema.
            ToolError: the tool refused (the state is unchanged).
            SimulatedToolUnavailable: the tool is simulated (the world routes those to a world model).
            UndeclaredStateWrite: the tool changed a field it does not declare (rolled back).
        """
        bound = self.bound(tool_name)
        if bound.spec.simulated:
            raise SimulatedToolUnavailable(f"{bound.spec.key} is simulated: it is answered by a world model")
        validated = self.validate_arguments(tool_name, arguments or {})
        before = self.state.model_copy(deep=True)
        try:
            value = bound.function(self, **{name: getattr(validated, name) for name in type(validated).model_fields})
            result = bound.result.dump_python(value, mode="json")
        except BaseException:
            self.state = before
            raise
        allowed = set(bound.spec.writes) | BOOKKEEPING_FIELDS
        changed = [
            f
            for f in type(self.state).model_fields
            if f not in allowed and getattr(before, f) != getattr(self.state, f)
        ]
        if changed:
            self.state = before
            raise UndeclaredStateWrite(f"{bound.spec.key} changed {changed} but declares writes={bound.spec.writes}")
        return result
