"""Random walks: seeded, 2 to 6 steps, diverse starts, no repeated tools; task generation is deterministic."""

from __future__ import annotations

import itertools
import random

from skill2env.compoworld.graph import ToolGraph
from skill2env.compoworld.tasks import generate_tasks
from skill2env.compoworld.walks import MAX_LENGTH, MIN_LENGTH, random_walk, walks


def _first(graph: ToolGraph, seed: int, count: int, domain: str = "commerce") -> list[tuple[str, ...]]:
    starts = [k for k, s in graph.specs.items() if s.domain == domain]
    return [w.steps for w in itertools.islice(walks(graph, starts, random.Random(seed)), count)]


def test_the_same_seed_gives_the_same_walks(graph: ToolGraph) -> None:
    assert _first(graph, 7, 30) == _first(graph, 7, 30)
    assert _first(graph, 7, 30) != _first(graph, 8, 30)


def test_walks_are_2_to_6_distinct_tools_following_edges(graph: ToolGraph) -> None:
    chains = _first(graph, 1, 60)
    assert len(set(chains)) == len(chains), "no chain twice"
    for chain in chains:
        assert MIN_LENGTH <= len(chain) <= MAX_LENGTH
        assert len(set(chain)) == len(chain), f"a tool repeats in {chain}"
        for source, target in itertools.pairwise(chain):
            assert any(e.target == target for e in graph.out[source])
    assert {len(c) for c in chains} == set(range(MIN_LENGTH, MAX_LENGTH + 1))


def test_starts_rotate_through_the_domains_tools(graph: ToolGraph) -> None:
    starts = sorted(k for k, s in graph.specs.items() if s.domain == "office" and graph.out[k])
    chains = _first(graph, 3, len(starts), "office")
    assert sorted(chain[0] for chain in chains) == starts


def test_a_walk_stops_where_the_graph_ends(graph: ToolGraph) -> None:
    walk = random_walk(graph, "crm.get_customer", 6, random.Random(0))
    assert walk is not None and walk.steps[0] == "crm.get_customer" and len(walk.edges) == len(walk.steps) - 1
    leaves = [k for k, edges in graph.out.items() if not edges]
    for leaf in leaves:
        assert random_walk(graph, leaf, 4, random.Random(0)) is None


def test_task_generation_is_deterministic(graph: ToolGraph) -> None:
    first = generate_tasks(graph, "communication", 3, seed=11)
    second = generate_tasks(graph, "communication", 3, seed=11)
    assert [t.task_id for t in first.tasks] == [t.task_id for t in second.tasks]
    assert len(first.tasks) == 3
    assert [t.goal for t in first.tasks] == [t.goal for t in second.tasks]
