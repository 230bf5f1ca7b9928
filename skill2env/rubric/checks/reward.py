"""The reward of a rubric from its items' results: r = Σ w·q / Σ w over every item.

One rule for everything: an item that was not scored never helps the attempt. Items that are
`error` (a judge that failed) or `unscored` (no judge endpoint) count q = 0 in the reward, and
they make the result **incomplete** (`complete` false): its reward is reported and flagged, but
it is never full credit, never passes, never enters the SFT set. Shared by the in-environment
verifier and the host.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

SCORED = ("passed", "failed")
WEIGHT_SLACK = 1e-9


def weighted_reward(entries: Iterable[tuple[float, str, float | None]]) -> dict[str, Any]:
    """From (weight, status, q) per item: `reward` (Σ w·q over the whole weight, an item without q
    counting 0; None only for an empty rubric), `raw_reward` (Σ w·q), `scored_weight`,
    `total_weight`, `complete` (every item scored) and the item counts by status."""
    items = list(entries)
    counts: dict[str, int] = {}
    for _, status, _ in items:
        counts[status] = counts.get(status, 0) + 1
    scored = [(weight, q) for weight, status, q in items if status in SCORED and q is not None and math.isfinite(q)]
    total = math.fsum(weight for weight, _, _ in items)
    scored_weight = math.fsum(weight for weight, _ in scored)
    raw = math.fsum(weight * min(1.0, max(0.0, q)) for weight, q in scored)
    reward = min(1.0, max(0.0, raw / total)) if total > 0 else None
    complete = bool(items) and len(scored) == len(items) and abs(scored_weight - total) <= WEIGHT_SLACK
    return {
        "reward": reward,
        "raw_reward": raw,
        "scored_weight": scored_weight,
        "total_weight": total,
        "complete": complete,
        "counts": counts,
    }
