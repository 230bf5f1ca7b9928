"""The reward of a rubric from its items' results: r = Σ w·q over the scored items.

Items that are `error` (the verifier could not judge) or `unscored` (no judge endpoint) carry no
q. The reward is then reported over the weight that was scored, and the result says so
(`complete` false, `scored_weight` < 1): it is never renormalised silently, and never zero for
what nobody judged. Shared by the in-environment verifier and the host.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

SCORED = ("passed", "failed")
WEIGHT_SLACK = 1e-9


def weighted_reward(entries: Iterable[tuple[float, str, float | None]]) -> dict[str, Any]:
    """From (weight, status, q) per item: `reward` (over the scored weight, None when nothing was
    scored), `raw_reward` (Σ w·q, what the scored items earned of the whole), `scored_weight`,
    `total_weight`, `complete` and the item counts by status."""
    items = list(entries)
    counts: dict[str, int] = {}
    for _, status, _ in items:
        counts[status] = counts.get(status, 0) + 1
    scored = [(weight, q) for weight, status, q in items if status in SCORED and q is not None]
    total = math.fsum(weight for weight, _, _ in items)
    scored_weight = math.fsum(weight for weight, _ in scored)
    raw = math.fsum(weight * q for weight, q in scored)
    reward = min(1.0, max(0.0, raw / scored_weight)) if scored_weight > 0 else None
    complete = len(scored) == len(items) and abs(scored_weight - total) <= WEIGHT_SLACK
    return {
        "reward": reward,
        "raw_reward": raw,
        "scored_weight": scored_weight,
        "total_weight": total,
        "complete": complete,
        "counts": counts,
    }
