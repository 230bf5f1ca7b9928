"""Asset checks: what must hold of the lake after each asset, shown on the UI's Checks tab.

Errors (a broken invariant): an accepted task that failed a gate, a reward outside [0, 1], a duplicate
key in a newest-version view, an SFT row that is incomplete or flagged. Warnings (a limit, set in the
check's config): the validation acceptance rate below `min_acceptance_rate`, the share of probed tasks
a hack strategy beat above `max_hack_rejection_rate`.

The checks read the lake as it stands (every domain of the iteration), so one evaluation per run
covers whichever partitions the run wrote.
"""

import dagster as dg
import polars as pl

from assets.iterations import stage_key
from resources.lake import LakeResource
from skill2env.formatting import markdown_table
from skill2env.lake.sqlfiles import load_sql
from skill2env.thresholds import SFT_MIN_REWARD

MIN_ACCEPTANCE_RATE = 0.5
MAX_HACK_REJECTION_RATE = 0.25
FAILED_GATE_STATUSES = ("failed", "infra_error")
UNIQUE_KEYS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "skills": ("skills", ("skill_id",), "TRUE"),
    "curated_skills": ("curated_skills", ("skill_id",), "TRUE"),
    "tasks": ("tasks", ("task_id",), "task_id IS NOT NULL"),
}
"""Asset → (newest-version view, its key columns, which rows have a key)."""


class AcceptanceLimit(dg.Config):
    min_acceptance_rate: float = MIN_ACCEPTANCE_RATE
    """Warn when fewer of the iteration's validated tasks than this share are accepted."""


class HackProbeLimit(dg.Config):
    max_hack_rejection_rate: float = MAX_HACK_REJECTION_RATE
    """Warn when a hack strategy beat more of the iteration's probed tasks than this share."""


def _violations(frame: pl.DataFrame) -> dict[str, dg.MetadataValue]:
    """How many rows break the rule, and the first of them."""
    return {"violations": dg.MetadataValue.int(frame.height), "sample": dg.MetadataValue.md(markdown_table(frame))}


def gates_check(iteration: int) -> dg.AssetChecksDefinition:
    @dg.asset_check(
        asset=stage_key(iteration, "validations"),
        name="accepted_tasks_passed_every_gate",
        description="No accepted task of the iteration has a failed or errored gate.",
    )
    def check(lake: LakeResource) -> dg.AssetCheckResult:
        rows = lake.lake().query(
            "SELECT task_id, gate, status, evidence FROM validations "
            "WHERE iteration = $k AND accepted AND status IN ('failed', 'infra_error') ORDER BY task_id, gate",
            {"k": iteration},
        )
        accepted = lake.lake().query(
            "SELECT count(DISTINCT task_id) FROM validations WHERE iteration = $k AND accepted", {"k": iteration}
        )
        return dg.AssetCheckResult(
            passed=rows.height == 0,
            metadata={"accepted_tasks": int(accepted.item()), **_violations(rows)},
        )

    return check


def acceptance_rate_check(iteration: int) -> dg.AssetChecksDefinition:
    @dg.asset_check(
        asset=stage_key(iteration, "validations"),
        name="acceptance_rate",
        description=f"At least `min_acceptance_rate` (default {MIN_ACCEPTANCE_RATE}) of the validated tasks "
        "are accepted (warning).",
    )
    def check(config: AcceptanceLimit, lake: LakeResource) -> dg.AssetCheckResult:
        funnel = lake.lake().query(
            "SELECT validated, accepted FROM validation_funnel WHERE domain = '*' AND iteration = $k", {"k": iteration}
        )
        validated, accepted = funnel.row(0) if funnel.height else (0, 0)
        return _rate_warning(("validated", validated), ("accepted", accepted), "acceptance_rate",
                             ("min_acceptance_rate", config.min_acceptance_rate), at_least=True)  # fmt: skip

    return check


def hack_probe_check(iteration: int) -> dg.AssetChecksDefinition:
    @dg.asset_check(
        asset=stage_key(iteration, "validations"),
        name="hack_probe_rejections",
        description=f"Hack strategies beat at most `max_hack_rejection_rate` (default {MAX_HACK_REJECTION_RATE}) "
        "of the probed tasks (warning).",
    )
    def check(config: HackProbeLimit, lake: LakeResource) -> dg.AssetCheckResult:
        funnel = lake.lake().query(
            "SELECT tasks_probed, tasks_rejected FROM hack_probe_funnel "
            "WHERE domain = '*' AND strategy = '*' AND iteration = $k",
            {"k": iteration},
        )
        probed, rejected = funnel.row(0) if funnel.height else (0, 0)
        return _rate_warning(("tasks_probed", probed), ("tasks_rejected", rejected), "rejection_rate",
                             ("max_hack_rejection_rate", config.max_hack_rejection_rate), at_least=False)  # fmt: skip

    return check


def _rate_warning(total: tuple[str, int], part: tuple[str, int], rate_name: str, limit: tuple[str, float], *,
                  at_least: bool) -> dg.AssetCheckResult:  # fmt: skip
    """A warning check on `part / total` against `limit` (at least, or at most); no tasks: passed."""
    rate = part[1] / total[1] if total[1] else None
    passed = rate is None or (rate >= limit[1] if at_least else rate <= limit[1])
    shown = dg.MetadataValue.float(rate) if rate is not None else dg.MetadataValue.text("n/a")
    metadata = {total[0]: int(total[1]), part[0]: int(part[1]), rate_name: shown, limit[0]: limit[1]}
    return dg.AssetCheckResult(passed=passed, severity=dg.AssetCheckSeverity.WARN, metadata=metadata)


def rewards_check(iteration: int) -> dg.AssetChecksDefinition:
    @dg.asset_check(
        asset=stage_key(iteration, "rubric_scores"),
        name="rewards_in_unit_interval",
        description="Every scored rollout's reward is in [0, 1].",
    )
    def check(lake: LakeResource) -> dg.AssetCheckResult:
        rows = lake.lake().query(
            "SELECT rollout_id, task_id, reward FROM rollout_rewards WHERE iteration = $k "
            "AND verification = 'scored' AND (reward IS NULL OR reward < 0 OR reward > 1) ORDER BY rollout_id",
            {"k": iteration},
        )
        return dg.AssetCheckResult(passed=rows.height == 0, metadata=_violations(rows))

    return check


def unique_keys_check(asset: str) -> dg.AssetChecksDefinition:
    view, columns, where = UNIQUE_KEYS[asset]
    key = ", ".join(columns)

    @dg.asset_check(
        asset=asset,
        name="unique_keys",
        description=f"`{view}` (the newest version of each partition) holds each ({key}) once.",
    )
    def check(lake: LakeResource) -> dg.AssetCheckResult:
        rows = lake.lake().query(
            f"SELECT {key}, count(*) AS copies FROM {view} WHERE {where} GROUP BY ALL HAVING count(*) > 1 "
            f"ORDER BY copies DESC, {key}"
        )
        return dg.AssetCheckResult(passed=rows.height == 0, metadata=_violations(rows))

    return check


@dg.asset_check(
    asset="sft_trajectories",
    name="sft_rows_complete_and_unflagged",
    description="No exported SFT row comes from an incomplete rollout (an unscored item) or a flagged one.",
)
def sft_rows_check(lake: LakeResource) -> dg.AssetCheckResult:
    exported = load_sql("queries/sft_candidates").rstrip().rstrip(";")
    rows = lake.lake().query(
        f"SELECT e.rollout_id, r.incomplete, e.rollout_id IN (SELECT rollout_id FROM rollout_flags) AS flagged "
        f"FROM ({exported}) AS e JOIN rollout_rewards AS r USING (rollout_id) "
        "WHERE r.incomplete OR e.rollout_id IN (SELECT rollout_id FROM rollout_flags) ORDER BY 1",
        {"min_reward": SFT_MIN_REWARD},
    )
    return dg.AssetCheckResult(passed=rows.height == 0, metadata=_violations(rows))


def asset_checks(iterations: int) -> list[dg.AssetChecksDefinition]:
    """Every check of the definitions with `iterations` hardening rounds."""
    per_iteration = [
        make(k)
        for k in range(iterations + 1)
        for make in (gates_check, acceptance_rate_check, hack_probe_check, rewards_check)
    ]
    return [*per_iteration, *(unique_keys_check(asset) for asset in UNIQUE_KEYS), sft_rows_check]
