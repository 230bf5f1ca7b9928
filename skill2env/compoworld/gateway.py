"""The agent's interface to a world: four meta-tools, JSON in and JSON out.

* `list_services()` — every service: name, domain, description, how many tools;
* `list_tools(service)` — a service's tools: name, one-line description, whether simulated;
* `describe_tool(service, tool)` — parameters and result as JSON schemas, the errors it may
  return, the state it reads and writes;
* `call_tool(service, tool, arguments)` — run it.

Every answer is an envelope: `{"ok": true, "result": …}` or `{"ok": false, "error": {"type",
"message"}}`. A tool's typed error (not_found, conflict, invalid_argument, …) is an ordinary answer
the agent reads and recovers from; a bug in a service is `internal_error`, told apart in the log.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from skill2env.compoworld.errors import ToolError, UnknownTool
from skill2env.compoworld.service import format_validation_error
from skill2env.compoworld.world import World

Envelope = dict[str, Any]


class ListServicesArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ListToolsArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    service: str = Field(description="The service's name, as list_services gives it.")


class DescribeToolArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    service: str = Field(description="The service's name.")
    tool: str = Field(description="The tool's name, as list_tools gives it.")


class CallToolArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    service: str = Field(description="The service's name.")
    tool: str = Field(description="The tool's name.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments, per describe_tool.")


META_TOOLS: dict[str, tuple[str, type[BaseModel]]] = {
    "list_services": ("List the services available in this environment.", ListServicesArgs),
    "list_tools": ("List the tools of one service.", ListToolsArgs),
    "describe_tool": ("Describe one tool: its parameters, result, errors and effects.", DescribeToolArgs),
    "call_tool": ("Call one tool of one service with its arguments.", CallToolArgs),
}
"""Meta-tool name → (description, argument model); `Tool.from_model(name, *META_TOOLS[name])` for the model client."""


class GatewayCall(BaseModel):
    """One meta-tool call the agent made, and what it got."""

    meta_tool: str
    arguments: Any
    ok: bool
    result: Any = None
    error: dict[str, str] | None = None
    service: str | None = None
    tool: str | None = None


def ok(result: Any) -> Envelope:
    return {"ok": True, "result": result}


def failed(kind: str, message: str) -> Envelope:
    return {"ok": False, "error": {"type": kind, "message": message}}


def meta_tool_specs() -> list[dict[str, Any]]:
    """The four meta-tools as chat-completions `tools` entries."""
    return [
        {"type": "function", "function": {"name": name, "description": text, "parameters": model.model_json_schema()}}
        for name, (text, model) in META_TOOLS.items()
    ]


class Gateway:
    """The meta-tools over one world; `calls` is the transcript."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.calls: list[GatewayCall] = []

    def list_services(self) -> Envelope:
        return self._run(
            "list_services",
            {},
            lambda: [
                {"name": s.name, "domain": s.domain, "description": s.description, "tools": len(s.tools)}
                for s in self.world.services.values()
            ],
        )

    def list_tools(self, service: str) -> Envelope:
        return self._run(
            "list_tools",
            {"service": service},
            lambda: [
                {"name": b.spec.name, "description": b.spec.description, "simulated": b.spec.simulated}
                for b in self.world.service(service).tools.values()
            ],
            service=service,
        )

    def describe_tool(self, service: str, tool: str) -> Envelope:
        def describe() -> dict[str, Any]:
            spec = self.world.spec(service, tool)
            return {
                "service": spec.service,
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.parameters,
                "result": spec.result,
                "errors": [e.model_dump() for e in spec.errors],
                "effects": {"reads": spec.reads, "writes": spec.writes},
                "simulated": spec.simulated,
            }

        return self._run("describe_tool", {"service": service, "tool": tool}, describe, service=service, tool=tool)

    def call_tool(self, service: str, tool: str, arguments: Mapping[str, Any] | None = None) -> Envelope:
        arguments = dict(arguments or {})
        return self._run(
            "call_tool",
            {"service": service, "tool": tool, "arguments": arguments},
            lambda: self.world.call(service, tool, arguments),
            service=service,
            tool=tool,
        )

    def dispatch(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> Envelope:
        """Run a meta-tool by name on its arguments (a JSON string or an object), as a model calls it."""
        if name not in META_TOOLS:
            envelope = failed(UnknownTool.code, f"no meta-tool {name!r}; meta-tools: {', '.join(META_TOOLS)}")
            self.calls.append(GatewayCall(meta_tool=name, arguments=arguments, ok=False, error=envelope["error"]))
            return envelope
        try:
            raw = json.loads(arguments) if isinstance(arguments, str) else dict(arguments or {})
            parsed = META_TOOLS[name][1].model_validate(raw)
        except (ValueError, TypeError, ValidationError) as exc:
            detail = format_validation_error(exc) if isinstance(exc, ValidationError) else str(exc)
            envelope = failed("invalid_argument", f"invalid arguments for {name}: {detail}")
            self.calls.append(GatewayCall(meta_tool=name, arguments=arguments, ok=False, error=envelope["error"]))
            return envelope
        values = parsed.model_dump()
        if name == "list_services":
            return self.list_services()
        if name == "list_tools":
            return self.list_tools(values["service"])
        if name == "describe_tool":
            return self.describe_tool(values["service"], values["tool"])
        return self.call_tool(values["service"], values["tool"], values["arguments"])

    def dispatch_json(self, name: str, arguments: str) -> str:
        """`dispatch` with the answer as a JSON string (what goes back to the model as the tool message)."""
        return json.dumps(self.dispatch(name, arguments), ensure_ascii=False, default=str)

    def _run(
        self, meta: str, arguments: dict[str, Any], action: Any, service: str | None = None, tool: str | None = None
    ) -> Envelope:
        try:
            envelope = ok(action())
        except ToolError as exc:
            envelope = failed(exc.code, str(exc))
        except Exception as exc:  # a bug in a service: the agent sees it, the log tells it apart
            envelope = failed("internal_error", f"{type(exc).__name__}: {exc}")
        self.calls.append(
            GatewayCall(
                meta_tool=meta,
                arguments=arguments,
                ok=envelope["ok"],
                result=envelope.get("result"),
                error=envelope.get("error"),
                service=service,
                tool=tool,
            )
        )
        return envelope
