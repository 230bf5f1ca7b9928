"""Load the pattern pool from the package's data files (one YAML file per capability)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib.resources import files
from pathlib import Path

import yaml
from pydantic import ValidationError

from skill2env.patterns.models import Capability, Pattern, PatternFile

POOL_DIR = Path(str(files("skill2env.patterns") / "data"))


class PatternPoolError(ValueError):
    """A pattern file or the pool as a whole is invalid; the message names the file and the field."""


@dataclass(frozen=True)
class PatternPool:
    """The patterns by id, in file order, with conflicts made symmetric."""

    patterns: dict[str, Pattern]
    sources: dict[str, str] = field(default_factory=dict)
    """Pattern id → the file (or diagnosis) it came from."""

    def __iter__(self) -> Iterator[Pattern]:
        return iter(self.patterns.values())

    def __len__(self) -> int:
        return len(self.patterns)

    def __contains__(self, pattern_id: object) -> bool:
        return pattern_id in self.patterns

    def __getitem__(self, pattern_id: str) -> Pattern:
        return self.patterns[pattern_id]

    def of(self, capability: Capability) -> list[Pattern]:
        return [p for p in self.patterns.values() if p.capability == capability]

    def conflicts(self, pattern_id: str) -> frozenset[str]:
        """Every pattern that cannot share a task with `pattern_id` (declared on either side)."""
        if pattern_id not in self.patterns:
            raise KeyError(pattern_id)
        return self._conflicts.get(pattern_id, frozenset())

    @cached_property
    def _conflicts(self) -> dict[str, frozenset[str]]:
        both_ways: dict[str, set[str]] = {}
        for pattern in self.patterns.values():
            for other in pattern.conflicts:
                both_ways.setdefault(pattern.id, set()).add(other)
                both_ways.setdefault(other, set()).add(pattern.id)
        return {pattern_id: frozenset(others) for pattern_id, others in both_ways.items()}

    @property
    def digest(self) -> str:
        """Content hash of the whole pool: selections record which pool they were made from."""
        payload = json.dumps([p.model_dump(mode="json") for p in self.patterns.values()], sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def with_pattern(self, pattern: Pattern, source: str) -> PatternPool:
        """A new pool with `pattern` added, or replacing the pattern of the same id."""
        entries = [(pattern if p.id == pattern.id else p, source if p.id == pattern.id else self.sources.get(p.id, ""))
                   for p in self.patterns.values()]  # fmt: skip
        if pattern.id not in self.patterns:
            entries.append((pattern, source))
        return build_pool(entries)


def load_pattern_file(path: Path) -> PatternFile:
    """Parse and validate one pattern file; errors name the file, the pattern and the field."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise PatternPoolError(f"{path.name}: cannot read YAML: {exc}") from exc
    try:
        return PatternFile.model_validate(data)
    except ValidationError as exc:
        raise PatternPoolError(f"{path.name}: {_describe(exc, data)}") from exc


def load_pool(directory: Path = POOL_DIR) -> PatternPool:
    """Every `*.yaml` file of `directory`, validated as one pool."""
    files = sorted(directory.glob("*.yaml"))
    if not files:
        raise PatternPoolError(f"no pattern files (*.yaml) in {directory}")
    entries = [(pattern, path.name) for path in files for pattern in load_pattern_file(path).patterns]
    return build_pool(entries)


@cache
def seed_pool() -> PatternPool:
    """The package's own pool, loaded once per process."""
    return load_pool(POOL_DIR)


def build_pool(entries: Iterable[tuple[Pattern, str]]) -> PatternPool:
    """A pool from (pattern, source) pairs: ids unique, conflicts naming patterns of the pool."""
    listed = list(entries)
    counts = Counter(pattern.id for pattern, _ in listed)
    repeated = sorted(pattern_id for pattern_id, n in counts.items() if n > 1)
    if repeated:
        where = {pid: sorted({src for p, src in listed if p.id == pid}) for pid in repeated}
        raise PatternPoolError(f"duplicate pattern ids: {where}")
    patterns = {pattern.id: pattern for pattern, _ in listed}
    for pattern, source in listed:
        unknown = sorted(set(pattern.conflicts) - patterns.keys())
        if unknown:
            raise PatternPoolError(f"{source}: pattern {pattern.id}: conflicts names unknown patterns {unknown}")
    return PatternPool(patterns, {pattern.id: source for pattern, source in listed})


def _describe(exc: ValidationError, data: object) -> str:
    problems = []
    for error in exc.errors()[:5]:
        location = list(error["loc"])
        label = ".".join(str(part) for part in location)
        if len(location) >= 2 and location[0] == "patterns" and isinstance(location[1], int):
            pattern_id = _pattern_id(data, location[1])
            label = f"pattern {pattern_id or '#' + str(location[1])}: field " + ".".join(str(p) for p in location[2:])
        problems.append(f"{label}: {error['msg']}")
    more = f" (+{exc.error_count() - 5} more)" if exc.error_count() > 5 else ""
    return "; ".join(problems) + more


def _pattern_id(data: object, index: int) -> str | None:
    if isinstance(data, dict) and isinstance(data.get("patterns"), list) and index < len(data["patterns"]):
        entry = data["patterns"][index]
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            return entry["id"]
    return None
