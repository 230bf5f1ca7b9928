"""The goal: the chain written as a user's request, from the tools' intents and the concrete values.

Each step contributes its tool's `intent` with its arguments filled in. A value the user would
not know — one an earlier step produces — is named, not spelled out ("that order", "them"), so
the agent has to find it; values the user does know (an email address, an amount, a reason) are
given. Tool and service names never appear.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from skill2env.compoworld.binding import Bound
from skill2env.compoworld.service import ToolSpec, placeholders
from skill2env.compoworld.types import INTERFACE_TYPES

REPORT_LABELS = {
    "available": "number of units available",
    "start": "start time",
    "sku": "products (SKUs)",
    "engineer": "engineer's email address",
    "name": "name",
    "customer_id": "customer id",
    "tracking_number": "tracking number",
}
"""How a user names a result field they want to hear back (the rest: the field name in words)."""
OPENERS = ("Hi!", "Hello!", "Quick one:", "Could you help?", "Morning!")
_ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]00:00)$")
CLOSERS = ("Thanks!", "Thank you.", "Cheers.", "")


def render_value(value: Any, kind: str | None = None) -> str:
    """A value as a person writes it: order ORD-1001, 12.50 USD, 2025-03-05 14:00 UTC, a, b and c."""
    if isinstance(value, list):
        parts = [render_value(v, kind) for v in value]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + f" and {parts[-1]}"
    if isinstance(value, dict):
        if set(value) == {"amount", "currency"}:
            return f"{value['amount']} {value['currency']}"
        if set(value) == {"start", "end"}:
            return f"{value['start']} to {value['end']}"
        if {"line1", "city", "country"} <= set(value):
            return f"{value['line1']}, {value.get('postal_code', '')} {value['city']}, {value['country']}".replace(
                "  ", " "
            )
        if {"sku", "quantity"} <= set(value):
            return f"{value['quantity']} × {value['sku']}"
        return ", ".join(f"{k}: {render_value(v)}" for k, v in value.items())
    if isinstance(value, bool):
        return "yes" if value else "no"
    text = str(value)
    if _ISO_TIME.match(text):
        return f"{text[:10]} {text[11:16]} UTC"
    known = INTERFACE_TYPES.get(kind or "")
    return known.shown.format(value=text) if known is not None else text


def _mention(name: str, spec: ToolSpec, bound: Bound) -> str:
    value = bound.arguments[name]
    source = bound.sources.get(name)
    if source is not None and source.siblings == 1:
        known = INTERFACE_TYPES.get(source.value.type)
        return known.noun if known else "that"
    return render_value(value, spec.inputs.get(name))


def step_phrase(spec: ToolSpec, bound: Bound) -> str:
    """The step's intent, filled in; arguments its intent does not mention follow in brackets."""
    named = placeholders(spec.intent)
    filled = spec.intent.format(
        **{name: _mention(name, spec, bound) if name in bound.arguments else "" for name in named}
    )
    extra = [
        f"{name.replace('_id', '').replace('_', ' ')}: {_mention(name, spec, bound)}"
        for name in bound.arguments
        if name not in named
    ]
    return f"{filled} ({'; '.join(extra)})" if extra else filled


def write_goal(
    specs: Sequence[ToolSpec],
    bounds: Sequence[Bound],
    rng: random.Random,
    reports: Mapping[int, Sequence[str]] | None = None,
) -> str:
    """The whole request: an opener, the steps in order, and what to report back."""
    phrases = [step_phrase(spec, bound) for spec, bound in zip(specs, bounds, strict=True)]
    body = phrases[0] if len(phrases) == 1 else ", then ".join(phrases[:-1]) + f", and finally {phrases[-1]}"
    body = body[0].upper() + body[1:]
    wanted = [
        REPORT_LABELS.get(field, field.replace("_", " ")) for fields in (reports or {}).values() for field in fields
    ]
    ask = f" In your reply, tell me the {render_value(wanted)}." if wanted else ""
    return " ".join(part for part in (rng.choice(OPENERS), f"{body}.{ask}", rng.choice(CLOSERS)) if part)
