"""The Skill2Env paper's measured effect of hardening, to read our numbers against (REFERENCE.md)."""

from __future__ import annotations

PAPER_SOURCE = "Skill2Env paper: 500 paired tasks, solver DeepSeek-V4-Flash, two hardening rounds"
PAPER_FULL_CREDIT_PCT = (48.40, 24.80, 15.40)
"""Full-credit rate (%) at iterations 0, 1, 2."""
PAPER_MEAN_TURNS = (25.91, 36.54, 38.85)
"""Mean assistant turns at iterations 0, 1, 2."""
