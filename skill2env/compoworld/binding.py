"""Concrete arguments for a chain's tools: bound from earlier results, else sampled.

A parameter whose interface type an earlier step produced takes that value (the chain's data
dependency, most recent step first); the rest are drawn from the world (values of the same type
found in the services' states, or a fresh value when the tool creates something), from the
service's own proposals (`Service.sample_arguments`), or from the JSON schema (enums, bounds,
dates), with text picked by the parameter's name. Everything draws from one seeded `Random`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from skill2env.compoworld.schema import TypedValue, resolve, typed_values
from skill2env.compoworld.service import Service, ToolSpec, placeholders
from skill2env.compoworld.types import TYPE_KEY, accepts
from skill2env.compoworld.universe import FIRST_NAMES, LAST_NAMES, Universe

FRESH_SHARE = 0.3
"""How often a typed parameter that could take an existing value gets a fresh one instead."""
TEXT: dict[str, tuple[str, ...]] = {
    "subject": ("Update on your order", "About your refund", "Your parcel", "Follow-up from support"),
    "body": (
        "Thanks for your patience, we are on it.",
        "We have processed your request.",
        "Here is the latest on your case.",
    ),
    "text": ("Heads-up: handled by support.", "Customer contacted again.", "Done, see the ticket."),
    "note": ("Checked with the customer.", "Please take a look.", "Customer asked by email."),
    "reason": ("customer request", "ordered by mistake", "duplicate order"),
    "title": ("Quarterly review", "Carrier delay follow-up", "Checkout latency", "Returns process"),
    "description": ("Reported by the customer by email.", "Seen twice this week.", "Needs a look today."),
    "resolution": ("Replaced the item.", "Refunded the customer.", "Fixed and verified."),
    "summary": ("Rolled back the deploy; error rate normal.", "Restarted the worker; queue drained."),
    "message": ("Please check the alert now.", "Incident opened, join #ops."),
    "memo": ("refund", "replacement", "restock"),
    "topic": ("Customer escalation", "Incident follow-up"),
    "query": ("order", "refund", "parcel"),
    "tag": ("vip", "churn-risk", "wholesale"),
    "location": ("Room 2", "video call"),
    "column": ("status", "notes"),
    "value": ("checked", "done"),
}


@dataclass(frozen=True)
class Produced:
    """A typed value an earlier step's result holds."""

    step: int
    service: str
    value: TypedValue
    siblings: int
    """How many distinct values of its type that result holds (1 = unambiguous)."""


@dataclass
class Bound:
    """A step's arguments and where each came from."""

    arguments: dict[str, Any]
    sources: dict[str, Produced] = field(default_factory=dict)
    """Parameter → the earlier value it took."""


def produced_by(step: int, spec: ToolSpec, result: Any) -> list[Produced]:
    values = typed_values(spec.result, result)
    counts: dict[str, set[str]] = {}
    for item in values:
        counts.setdefault(item.type, set()).add(repr(item.value))
    return [Produced(step, spec.service, v, len(counts[v.type])) for v in values]


class Binder:
    def __init__(
        self, universe: Universe, pool_states: Mapping[str, Any], schemas: Mapping[str, Any], rng: random.Random
    ) -> None:
        """`pool_states`/`schemas`: JSON states and state schemas of every service of the universe."""
        self.universe = universe
        self.rng = rng
        self.pool: dict[str, list[Any]] = {}
        for name, state in pool_states.items():
            for item in typed_values(schemas[name], state):
                bucket = self.pool.setdefault(item.type, [])
                if item.value not in bucket:
                    bucket.append(item.value)

    def bind(self, spec: ToolSpec, service: Service, earlier: Sequence[Produced], link_type: str | None) -> Bound:
        """Arguments for `spec`; `link_type` (the edge's type into this step) must be bound from the
        previous step when given. Raises LookupError when it cannot be."""
        schema = spec.parameters
        defs = schema.get("$defs") or {}
        properties: dict[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        mentioned = placeholders(spec.intent)
        proposals = service.sample_arguments(spec.name, self.rng)
        bound = Bound({})
        last_step = max((p.step for p in earlier), default=-1)
        if link_type is not None:
            candidates = [
                (name, p)
                for name, kind in spec.inputs.items()
                for p in earlier
                if p.step == last_step and p.value.type == link_type and accepts(kind, link_type)
            ]
            if not candidates:
                raise LookupError(f"{spec.key} takes no {link_type} from the previous step")
            name, chosen = self.rng.choice(candidates)
            bound.arguments[name] = self._shaped(properties[name], defs, chosen.value.value)
            bound.sources[name] = chosen
        for name, node in properties.items():
            if name in bound.arguments:
                continue
            kind = spec.inputs.get(name)
            source = self._from_earlier(kind, earlier) if kind else None
            if source is not None and (name in required or self.rng.random() < 0.5):
                bound.arguments[name] = self._shaped(node, defs, source.value.value)
                bound.sources[name] = source
            elif name in proposals:
                bound.arguments[name] = proposals[name]
            elif name in required or name in mentioned:
                bound.arguments[name] = self.sample(name, node, defs, spec)
        return bound

    def _from_earlier(self, kind: str, earlier: Sequence[Produced]) -> Produced | None:
        for produced in sorted(earlier, key=lambda p: -p.step):
            if accepts(kind, produced.value.type) and not isinstance(produced.value.value, list):
                return produced
        return None

    @staticmethod
    def _shaped(node: Any, defs: Mapping[str, Any], value: Any) -> Any:
        """The value as the parameter wants it: a list parameter gets a one-item list."""
        node = resolve(node, defs)
        options = [resolve(o, defs) for o in node.get("anyOf") or [] if resolve(o, defs).get("type") != "null"]
        target = options[0] if options else node
        return [value] if target.get("type") == "array" else value

    # -- sampling -------------------------------------------------------------------------------

    def sample(self, name: str, node: Any, defs: Mapping[str, Any], spec: ToolSpec) -> Any:
        node = resolve(node, defs)
        if "anyOf" in node:
            options = [o for o in node["anyOf"] if resolve(o, defs).get("type") != "null"]
            return self.sample(name, options[0], defs, spec)
        kind = node.get(TYPE_KEY)
        if kind is not None:
            return self._typed(str(kind), name, spec)
        if "enum" in node:
            return self.rng.choice(list(node["enum"]))
        if "const" in node:
            return node["const"]
        json_type = node.get("type")
        if json_type == "boolean":
            return self.rng.random() < 0.5
        if json_type == "integer":
            low = int(node.get("minimum", node.get("exclusiveMinimum", 0) + 1))
            high = int(node.get("maximum", low + 4))
            return self.rng.randint(low, min(high, low + 4))
        if json_type == "number":
            return round(self.rng.uniform(0.5, 3.0), 2)
        if json_type == "array":
            item = node.get("items") or {}
            return [self.sample(name.rstrip("s"), item, defs, spec)]
        if json_type == "object":
            properties = node.get("properties") or {}
            return {
                key: self.sample(key, value, defs, spec)
                for key, value in properties.items()
                if key in set(node.get("required") or [])
            }
        if json_type == "string" and node.get("format") == "date":
            return (self.universe.today + timedelta(days=self.rng.randint(1, 6))).isoformat()
        if json_type == "string" and node.get("format") == "date-time":
            moment = self.universe.now + timedelta(days=self.rng.randint(1, 4), hours=self.rng.randint(1, 6))
            return moment.isoformat()
        if name == "name":
            return f"{self.rng.choice(FIRST_NAMES)} {self.rng.choice(LAST_NAMES)}"
        choices = TEXT.get(name)
        if choices:
            return self.rng.choice(choices)
        if json_type is None:  # Decimal (number or string) and other open schemas
            return str(round(self.rng.uniform(0.5, 4.0), 1))
        return self.rng.choice(TEXT["note"])

    def _typed(self, kind: str, name: str, spec: ToolSpec) -> Any:
        fresh = self._fresh(kind)
        existing = self.pool.get(kind) or []
        if kind == "Reference":
            existing = [v for k, vs in self.pool.items() if k.endswith("Id") for v in vs]
        if existing and (fresh is None or self.rng.random() >= FRESH_SHARE or spec.read_only):
            return self.rng.choice(existing)
        if fresh is not None:
            return fresh
        raise LookupError(f"no value of {kind} for {spec.key}.{name}")

    def _fresh(self, kind: str) -> Any:
        rng = self.rng
        if kind == "EmailAddress":
            return f"{rng.choice(FIRST_NAMES)}.{rng.choice(LAST_NAMES)}{rng.randint(2, 99)}@example.com".lower()
        if kind == "PhoneNumber":
            return f"+1555{rng.randint(1000000, 9999999)}"
        if kind == "Money":
            return {"amount": f"{rng.choice((12, 18, 25, 40, 65, 120))}.00", "currency": "USD"}
        if kind == "DateRange":
            start = self.universe.today + timedelta(days=rng.randint(0, 3))
            return {"start": start.isoformat(), "end": (start + timedelta(days=rng.randint(1, 6))).isoformat()}
        if kind == "Address":
            person = rng.choice(self.universe.customers)
            return person.address.model_dump()
        if kind == "ChannelName":
            return f"{rng.choice(('escalation', 'launch', 'carrier', 'returns'))}-{rng.randint(10, 99)}"
        if kind == "SheetName":
            return f"{rng.choice(('Returns', 'Claims', 'Review'))} {rng.randint(10, 99)}"
        if kind == "Day":
            return (self.universe.today + timedelta(days=rng.randint(1, 4))).isoformat()
        if kind == "Timestamp":
            return (self.universe.now + timedelta(days=rng.randint(1, 4), hours=rng.randint(1, 6))).isoformat()
        if kind == "Currency":
            return rng.choice(("EUR", "GBP", "CAD"))
        return None
