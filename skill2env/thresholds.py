"""Every scoring threshold, once.

Python imports these; SQL gets them too: queries as parameters (`$min_reward`), views through the
macros `sql_macros()` defines when the lake's schema is applied (a view cannot take parameters, so
`full_credit_at()` in a view is this module's `FULL_CREDIT_AT`). The verifier program
(`rubric/verify_main.py`) and the judge prompt (`rubric/judge_prompt.py`) run alone in a sandbox
with the standard library only, so they keep their own copies; a test holds them equal to these.
"""

from __future__ import annotations

FULL_CREDIT_AT = 0.999
"""A complete attempt whose reward reaches this solved the task (float slack below 1.0)."""
PASS_THRESHOLD = 0.7
"""A rubric's pass threshold when its eval_spec names none; CompoWorld's partial-gate bound."""
JUDGE_PASS_Q = 0.5
"""A judge item with q at least this is `passed` (its q, not the status, enters the reward)."""

ORACLE_AT_LEAST = 0.99
"""Validation's `oracle` gate: the reference solution scores at least this."""
NOP_AT_MOST = 0.1
"""Validation's `nop` gate and every hack probe: doing nothing (or cheating) scores at most this."""
JUDGE_ORACLE_AT_LEAST = 0.7
"""A judge-only task: the judge scores the oracle's deliverables at least this …"""
JUDGE_NOP_AT_MOST = 0.3
"""… and the nop's at most this."""

HARDEN_ABOVE = 0.7
"""A task whose group mean reward is above this (at or above, when inclusive) is too easy: harden it."""
SFT_MIN_REWARD = 0.9
"""SFT keeps rollouts whose reward is strictly above this (the paper's r > 0.9)."""
PASS_RATE_FLOOR = 0.1
"""ε in the RL item weights w' ∝ w · (1 − pass_rate + ε): items every attempt passes keep a small weight."""


def sql_macros() -> dict[str, float]:
    """The thresholds views read, by macro name: `CREATE OR REPLACE MACRO <name>() AS <value>`."""
    return {
        "full_credit_at": FULL_CREDIT_AT,
        "sft_min_reward": SFT_MIN_REWARD,
        "pass_rate_floor": PASS_RATE_FLOOR,
    }
