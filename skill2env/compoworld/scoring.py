"""State and output checks: derived from an oracle run, evaluated on any final state.

Check names (a `CheckSpec`'s `check`), all on JSON states keyed by service:

* `state_equals` — `{service, path, expected, subset}`: the value at `path` equals `expected`
  (with `subset`, the record at `path` has at least those fields with those values);
* `state_record_exists` — `{service, path, match}`: the collection (object or list) at `path`
  holds an item containing `match`;
* `state_absent` — `{service, path, key | match}`: the key, or any item containing `match`, is gone;
* `output_contains` — `{values}`: the agent's final answer mentions every value.

Text compares case- and whitespace-insensitively; everything else exactly. A check scores 1 or 0;
a rubric's score is Σ weight · check. Checks are derived by diffing the states before and after
the oracle run, guided by the state schema: scalar changes of a record become one `state_equals`
(subset) check, items added to a collection a `state_record_exists` check (identifiers the run
created left out, since another run may number them differently), items removed a
`state_absent` check. Bookkeeping fields (clock, counters) are never checked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from skill2env.compoworld.schema import resolve
from skill2env.compoworld.service import BOOKKEEPING_FIELDS
from skill2env.compoworld.types import TYPE_KEY
from skill2env.rubric import CheckSpec, Rubric

Path = list[str | int]
States = Mapping[str, Mapping[str, Any]]
_SPACE = re.compile(r"\s+")
MISSING = object()


@dataclass(frozen=True)
class DerivedCheck:
    check: CheckSpec
    description: str
    region: tuple[str, tuple[str | int, ...]]
    """(service, path) whose change the check is about: which step made it decides its weight."""


class RubricScore(BaseModel):
    reward: float
    items: dict[str, float]


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return _SPACE.sub(" ", value.strip().lower()).rstrip(".!")
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if isinstance(value, dict):
        return {k: _norm(v) for k, v in value.items()}
    return value


def same(a: Any, b: Any) -> bool:
    return bool(_norm(a) == _norm(b))


def contains(item: Any, match: Any) -> bool:
    """Whether `item` holds `match`: objects hold a subset of keys with values held recursively."""
    if isinstance(match, dict):
        return isinstance(item, dict) and all(k in item and contains(item[k], v) for k, v in match.items())
    return same(item, match)


def value_at(data: Any, path: Sequence[str | int]) -> Any:
    for part in path:
        in_list = isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data)
        if (isinstance(data, dict) and part in data) or in_list:
            data = data[part]
        else:
            return MISSING
    return data


def _items(collection: Any) -> list[Any]:
    if isinstance(collection, dict):
        return list(collection.values())
    if isinstance(collection, list):
        return collection
    return []


def evaluate(check: CheckSpec, states: States, answer: str = "") -> float:
    """1.0 if the check holds on `states` (and `answer`), else 0.0. Unknown checks score 0."""
    p = check.params
    if check.check == "output_contains":
        text = _norm(answer)
        return float(all(str(_norm(str(v))) in text for v in p.get("values", [])))
    state = states.get(str(p.get("service")), {})
    target = value_at(state, p.get("path", []))
    if check.check == "state_equals":
        if target is MISSING:
            return 0.0
        expected = p.get("expected")
        if p.get("subset"):
            return float(contains(target, expected))
        return float(same(target, expected))
    if check.check == "state_record_exists":
        return float(any(contains(item, p.get("match")) for item in _items(target)))
    if check.check == "state_absent":
        if target is MISSING:
            return 1.0
        if "key" in p:
            return float(not (isinstance(target, dict) and p["key"] in target))
        return float(not any(contains(item, p.get("match")) for item in _items(target)))
    return 0.0


def score(rubric: Rubric, states: States, answer: str = "") -> RubricScore:
    items = {item.id: evaluate(item.check, states, answer) if item.check else 0.0 for item in rubric.items}
    reward = sum(item.weight * items[item.id] for item in rubric.items)
    return RubricScore(reward=round(reward, 6), items=items)


# -- deriving checks from a run ---------------------------------------------------------------


def _atomic(node: Any, defs: Mapping[str, Any]) -> bool:
    """Values compared whole: scalars and interface-typed objects (Money, Address, DateRange)."""
    node = resolve(node, defs)
    if TYPE_KEY in node:
        return True
    for option in node.get("anyOf") or []:
        option = resolve(option, defs)
        if option.get("type") != "null":
            return _atomic(option, defs)
    return node.get("type") not in ("object", "array") or (
        node.get("type") == "object"
        and not node.get("properties")
        and not isinstance(node.get("additionalProperties"), dict)
    )


def _strip(value: Any, created: set[str]) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v, created) for k, v in value.items() if not _mentions(v, created)}
    return value


def _mentions(value: Any, created: set[str]) -> bool:
    if isinstance(value, str):
        return value in created
    if isinstance(value, list):
        return any(_mentions(v, created) for v in value)
    if isinstance(value, dict):
        return any(_mentions(v, created) for v in value.values())
    return False


def _label(path: Sequence[str | int]) -> str:
    return "/".join(str(p) for p in path)


class _Differ:
    def __init__(self, service: str, schema: Mapping[str, Any], created: set[str]) -> None:
        self.service = service
        self.defs = schema.get("$defs") or {}
        self.schema = schema
        self.created = created
        self.out: list[DerivedCheck] = []

    def _add(self, name: str, path: Path, description: str, **params: Any) -> None:
        spec = CheckSpec(check=name, params={"service": self.service, "path": list(path), **params})
        self.out.append(DerivedCheck(spec, f"{self.service}: {description}", (self.service, tuple(path))))

    def state(self, before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
        properties = self.schema.get("properties") or {}
        for name, node in properties.items():
            if name in BOOKKEEPING_FIELDS or before.get(name) == after.get(name):
                continue
            self.value([name], node, before.get(name), after.get(name))

    def value(self, path: Path, node: Any, before: Any, after: Any) -> None:
        node = resolve(node, self.defs)
        options = [
            resolve(o, self.defs) for o in node.get("anyOf") or [] if resolve(o, self.defs).get("type") != "null"
        ]
        if options and before is not None and after is not None:
            node = options[0]
        if after is None or before is None or _atomic(node, self.defs):
            self._add("state_equals", path, f"{_label(path)} is {after!r}", expected=after, subset=False)
        elif node.get("type") == "array":
            self.sequence(path, before, after)
        elif isinstance(node.get("additionalProperties"), dict):
            self.mapping(path, node["additionalProperties"], before, after)
        else:
            self.record(path, node, before, after)

    def mapping(self, path: Path, item: Any, before: dict[str, Any], after: dict[str, Any]) -> None:
        for key in after:
            if key not in before and key in self.created:
                match = _strip(after[key], self.created | {key})
                self._add("state_record_exists", path, f"{_label(path)} has a new entry {match!r}", match=match)
            elif key not in before:
                expected = _strip(after[key], self.created)
                self._add(
                    "state_equals",
                    [*path, key],
                    f"{_label([*path, key])} is {expected!r}",
                    expected=expected,
                    subset=isinstance(expected, dict),
                )
            elif before[key] != after[key]:
                self.value([*path, key], item, before[key], after[key])
        for key in before:
            if key not in after:
                self._add("state_absent", path, f"{_label(path)} no longer has {key}", key=key)

    def record(self, path: Path, node: Mapping[str, Any], before: dict[str, Any], after: dict[str, Any]) -> None:
        properties = node.get("properties") or {}
        scalars = {}
        for name, child in properties.items():
            if before.get(name) == after.get(name):
                continue
            if _atomic(child, self.defs) or before.get(name) is None or after.get(name) is None:
                scalars[name] = after.get(name)
            else:
                self.value([*path, name], child, before.get(name), after.get(name))
        if scalars:
            shown = ", ".join(f"{k}={v!r}" for k, v in scalars.items())
            self._add("state_equals", path, f"{_label(path)} has {shown}", expected=scalars, subset=True)

    def sequence(self, path: Path, before: list[Any], after: list[Any]) -> None:
        remaining = list(before)
        added = []
        for item in after:
            if item in remaining:
                remaining.remove(item)
            else:
                added.append(item)
        for item in added:
            match = _strip(item, self.created)
            self._add("state_record_exists", path, f"{_label(path)} holds {match!r}", match=match)
        for item in remaining:
            if item not in after:
                self._add("state_absent", path, f"{_label(path)} no longer holds {item!r}", match=item)


def derive_checks(
    before: States, after: States, schemas: Mapping[str, Mapping[str, Any]], created: set[str]
) -> list[DerivedCheck]:
    """The state checks that tell `after` from `before`, service by service."""
    checks: list[DerivedCheck] = []
    for service in sorted(after):
        differ = _Differ(service, schemas[service], created)
        differ.state(before.get(service, {}), after[service])
        checks.extend(differ.out)
    return checks
