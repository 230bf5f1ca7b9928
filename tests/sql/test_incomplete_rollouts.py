"""An incomplete rollout (a judge item unscored or errored) is never an SFT candidate and is marked
in the RL export, whatever reward its other items earned."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from export_lake import EXPORTED_SFT, _rollout, _sft, build_export_lake, filled
from harbor_tasks import CSV_AGGREGATION
from lake_backends import LakeMaker

from skill2env.agent.tables import ROLLOUTS_SCHEMA
from skill2env.exports.sft import SFT_EXAMPLES_SCHEMA
from skill2env.lake.lake import TableWrite
from skill2env.lake.sqlfiles import load_sql
from skill2env.rubric.tables import RUBRIC_SCORES_SCHEMA

UNJUDGED = "csv-aggregation-i1-a9"


def test_an_incomplete_rollout_is_no_sft_candidate_and_is_marked_for_rl(make_lake: LakeMaker, tmp_path: Path) -> None:
    lake = build_export_lake(make_lake.home(tmp_path / "home"))
    task_id, domain = "csv-aggregation-i1", "data-analysis"
    base = dict(rollout_id=UNJUDGED, task_id=task_id, iteration=1, domain=domain, policy="solver", attempt=9,
                verification="scored", reward=0.95, raw_reward=0.95, scored_weight=0.95, full_credit=False,
                flags=["unscored", "incomplete"], evidence="{}", isolation="fresh")  # fmt: skip
    scores = [
        filled(RUBRIC_SCORES_SCHEMA, **base, item_id="a", method="deterministic", weight=0.95, status="passed", q=1.0),
        filled(RUBRIC_SCORES_SCHEMA, **base, item_id="note", method="llm_judge", weight=0.05, status="unscored"),
    ]
    rollout = _rollout(UNJUDGED, task_id, CSV_AGGREGATION, domain, 1, 9, None, "completed")
    example = _sft(UNJUDGED, task_id, CSV_AGGREGATION, domain, 1, None, 0.95)
    lake.write(
        [
            TableWrite("rollouts", pl.DataFrame([rollout], schema=ROLLOUTS_SCHEMA), "extra"),
            TableWrite("rubric_scores", pl.DataFrame(scores, schema=RUBRIC_SCORES_SCHEMA), "extra"),
            TableWrite("sft_examples", pl.DataFrame([example], schema=SFT_EXAMPLES_SCHEMA), "extra"),
        ],
        run_id="incomplete",
        code_version="test",
    )

    rewards = lake.query("SELECT rollout_id, incomplete FROM rollout_rewards WHERE incomplete").rows()
    assert rewards == [(UNJUDGED, True)]
    candidates = lake.query(load_sql("queries/sft_candidates"), {"min_reward": 0.9})
    assert sorted(candidates.get_column("rollout_id")) == sorted(EXPORTED_SFT)
    marks = lake.query(load_sql("queries/rl_rollouts"), {"policy": None})
    assert marks.filter(pl.col("incomplete")).get_column("rollout_id").to_list() == [UNJUDGED]
