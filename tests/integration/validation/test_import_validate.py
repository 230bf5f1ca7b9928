"""`skill2env import harbor DIR --validate`: imported tasks go through every gate that can run, and
the verdicts land in the lake beside the pipeline's, so `export harbor --status accepted` sees them."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from harbor_tasks import require_backend
from task_samples import DOMAIN, billing_draft

from skill2env.lake.lake import Lake
from skill2env.lake.sqlfiles import load_sql
from skill2env.tasks.cli import export_group, import_group
from skill2env.tasks.export import export_tasks
from skill2env.tasks.store import TaskStore

pytestmark = [pytest.mark.integration, pytest.mark.bwrap, pytest.mark.slow]


def _invoke(group: object, *args: str) -> str:
    result = CliRunner().invoke(group, list(args), catch_exceptions=False)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output
    return result.output


def test_imported_exports_are_validated_and_then_exported_as_accepted(tmp_path: Path) -> None:
    require_backend("bwrap")
    source = TaskStore(tmp_path / "source")
    stored = source.put_draft(billing_draft(), skill_dir=None)
    row = {"task_id": "vendor-billing-reconciliation-i0", "task_name": "vendor-billing-reconciliation",
           "iteration": 0, "task_digest": stored.digest, "store_path": stored.relative_path}  # fmt: skip
    export_tasks([row], source, tmp_path / "incoming")
    home = tmp_path / "home"

    _invoke(import_group, "harbor", str(tmp_path / "incoming"), "--validate", "--backend", "bwrap",
            "--home", str(home))  # fmt: skip

    lake = Lake(home / "lake.duckdb")
    gates = dict(lake.query("SELECT gate, status FROM validations WHERE task_id = 'vendor-billing-reconciliation-i0'")
                 .iter_rows())  # fmt: skip
    assert gates["oracle"] == "passed" and gates["nop"] == "passed" and gates["hack_probe"] == "passed"
    assert lake.query("SELECT DISTINCT partition_key FROM validations").item() == "import:incoming"
    probes = lake.query("SELECT count(*), max(reward) FROM hack_probes").row(0)
    assert probes[0] > 20 and probes[1] <= 0.1
    # Accepted (without a judge: its judge items cannot be scored here) and exported as accepted.
    assert lake.query("SELECT acceptance FROM accepted_tasks").item() == "accepted_without_judge"
    _invoke(export_group, "harbor", "--out", str(tmp_path / "out"), "--status", "accepted", "--home", str(home))
    assert len(list((tmp_path / "out").iterdir())) == 1
    # … and it is what the rollout stage reads for its domain and iteration, like the pipeline's tasks.
    staged = lake.query(load_sql("queries/stage_accepted_tasks"), {"domain": DOMAIN, "iteration": 0})
    assert staged.get_column("task_id").to_list() == ["vendor-billing-reconciliation-i0"]
