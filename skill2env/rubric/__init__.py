"""Rubric evaluators: weighted items, deterministic checks and judge items, evidence for every score.

* `models` — the rubric contract (`Rubric`, `RubricItem`, `CheckSpec`, `Method`);
* `checks` — the deterministic check library (standard library only; runs inside the task environment);
* `verify_main` — the in-environment verifier shipped as `tests/verify.py`; `bundle` packages it;
* `results` — `ItemResult`, `VerificationResult` and `score` (r = Σ w·q, partial rewards flagged);
* `judge` — the judge role (`Judge` protocol, `ModelJudge`, `judge_item`);
* `evaluate` — isolated verification of a rollout in a sandbox;
* `eval_spec` — the Skill2Env authors' `tests/eval_spec.json` rubrics.
"""

from skill2env.rubric.bundle import verifier_bundle, write_bundle
from skill2env.rubric.evaluate import verify_in_sandbox, verify_rollout, verify_workspace
from skill2env.rubric.judge import Judge, JudgeRequest, JudgeVerdict, ModelJudge, judge_item
from skill2env.rubric.models import CheckSpec, Method, Rubric, RubricItem, check_problems
from skill2env.rubric.results import Flag, ItemResult, ItemStatus, Score, VerificationResult, score

__all__ = [
    "CheckSpec",
    "Flag",
    "ItemResult",
    "ItemStatus",
    "Judge",
    "JudgeRequest",
    "JudgeVerdict",
    "Method",
    "ModelJudge",
    "Rubric",
    "RubricItem",
    "Score",
    "VerificationResult",
    "check_problems",
    "judge_item",
    "score",
    "verifier_bundle",
    "verify_in_sandbox",
    "verify_rollout",
    "verify_workspace",
    "write_bundle",
]
