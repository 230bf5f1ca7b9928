"""The RL reward for a group of attempts at one task: rubric items few attempts pass weigh more.

For a group of G attempts at a task whose rubric has items c with weights w_c (Σ w_c = 1) and
attempt g scoring q_gc ∈ [0, 1] on item c:

    pass rate         p_c  = (1/G) Σ_g q_gc
    emphasis          e_c  = w_c · (1 − p_c + ε)^α
    group weight      ŵ_c  = e_c / Σ_k e_k
    reward            r_g  = Σ_c ŵ_c · q_gc
    advantage         A_g  = (r_g − mean(r)) / std(r)      (0 when every r_g is equal)

ε (`floor`, default `thresholds.PASS_RATE_FLOOR`, 0.1) keeps items every attempt passes in the
reward with a small weight, so regressing on them still costs; α (`power`, default 1) sets how
sharply hard items are favoured.
When every item has the same pass rate, ŵ = w and the reward is the rubric's own score. The
reward depends on nothing but the group's item scores (and the rubric's static weights; without
them every item starts equal): no history, no other groups.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from skill2env.thresholds import PASS_RATE_FLOOR

DEFAULT_POWER = 1.0


@dataclass(frozen=True)
class GroupReward:
    pass_rates: dict[str, float]
    weights: dict[str, float]
    """ŵ_c, the group's item weights (Σ = 1)."""
    rewards: list[float]
    """r_g per attempt, in the group's order."""
    advantages: list[float]


def pass_rates(scores: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Each item's mean score over the group. Raises ValueError on an empty group or differing items."""
    if not scores:
        raise ValueError("a group needs at least one attempt")
    items = set(scores[0])
    for attempt in scores[1:]:
        if set(attempt) != items:
            raise ValueError(f"attempts score different items: {sorted(items ^ set(attempt))}")
    for attempt in scores:
        for item, value in attempt.items():
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"item {item} scored {value}, outside [0, 1]")
    return {item: math.fsum(a[item] for a in scores) / len(scores) for item in sorted(items)}


def group_reward(
    scores: Sequence[Mapping[str, float]],
    base_weights: Mapping[str, float] | None = None,
    *,
    floor: float = PASS_RATE_FLOOR,
    power: float = DEFAULT_POWER,
) -> GroupReward:
    """The rewards of a group of attempts (see the module docstring for the formula).

    `scores`: per attempt, item id → score in [0, 1]; `base_weights`: the rubric's weights
    (default: equal)."""
    if floor <= 0 or power < 0:
        raise ValueError("floor must be positive and power non-negative")
    rates = pass_rates(scores)
    base = dict(base_weights) if base_weights is not None else {item: 1.0 for item in rates}
    if set(base) != set(rates):
        raise ValueError(f"weights and scores name different items: {sorted(set(base) ^ set(rates))}")
    emphasis = {item: base[item] * (1.0 - rates[item] + floor) ** power for item in rates}
    total = math.fsum(emphasis.values())
    weights = {item: value / total for item, value in emphasis.items()}
    rewards = [math.fsum(weights[item] * attempt[item] for item in weights) for attempt in scores]
    mean = math.fsum(rewards) / len(rewards)
    spread = math.sqrt(math.fsum((r - mean) ** 2 for r in rewards) / len(rewards))
    advantages = [(r - mean) / spread if spread > 1e-12 else 0.0 for r in rewards]
    return GroupReward(rates, weights, rewards, advantages)
