"""Seeded random walks over the tool graph: the tool chains cross-service tasks are made from.

A walk starts at a tool of the partition's domain — starts rotate through every such tool, least
used first, so chains do not all begin at the same place — and follows edges for 2 to 6 steps.
At each step the next tool is drawn by the best edge into it: a data edge carrying an identifier
weighs most, a cross-service edge twice as much, a state edge least. No tool appears twice in a
walk (no loops, no ping-pong), and the same chain is never produced twice.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from skill2env.compoworld.graph import Edge, ToolGraph
from skill2env.compoworld.types import INTERFACE_TYPES

MIN_LENGTH = 2
MAX_LENGTH = 6


@dataclass(frozen=True)
class Walk:
    steps: tuple[str, ...]
    edges: tuple[Edge, ...]
    """`edges[i]` leads from `steps[i]` to `steps[i + 1]`."""

    @property
    def services(self) -> list[str]:
        return list(dict.fromkeys(step.split(".", 1)[0] for step in self.steps))


def edge_weight(edge: Edge) -> float:
    if edge.kind == "data":
        known = INTERFACE_TYPES.get(edge.via)
        weight = 4.0 if known is not None and known.identifier else 1.5
    else:
        weight = 1.0
    return weight * (2.0 if edge.cross_service else 1.0)


def random_walk(graph: ToolGraph, start: str, length: int, rng: random.Random) -> Walk | None:
    """A walk of at most `length` tools from `start`; None when it cannot reach two."""
    steps, edges = [start], []
    while len(steps) < length:
        best: dict[str, list[Edge]] = {}
        for edge in graph.out.get(steps[-1], []):
            if edge.target not in steps:
                best.setdefault(edge.target, []).append(edge)
        if not best:
            break
        targets = sorted(best)
        weights = [max(edge_weight(e) for e in best[t]) for t in targets]
        target = rng.choices(targets, weights=weights)[0]
        top = max(edge_weight(e) for e in best[target])
        edge = rng.choice([e for e in best[target] if edge_weight(e) == top])
        steps.append(target)
        edges.append(edge)
    return Walk(tuple(steps), tuple(edges)) if len(steps) >= MIN_LENGTH else None


def walks(
    graph: ToolGraph,
    starts: Iterable[str],
    rng: random.Random,
    *,
    min_length: int = MIN_LENGTH,
    max_length: int = MAX_LENGTH,
) -> Iterator[Walk]:
    """Endless distinct walks of `min_length` to `max_length` tools from `starts`, the least used start
    first (ties broken by the seed)."""
    pool = sorted(set(starts))
    if not pool:
        return
    used: Counter[str] = Counter()
    order = {tool: rng.random() for tool in pool}
    seen: set[tuple[str, ...]] = set()
    misses = 0
    while misses < 50 * len(pool):
        start = min(pool, key=lambda tool: (used[tool], order[tool]))
        used[start] += 1
        walk = random_walk(graph, start, rng.randint(min_length, max_length), rng)
        if walk is None or len(walk.steps) < min_length or walk.steps in seen:
            misses += 1
            continue
        seen.add(walk.steps)
        yield walk
