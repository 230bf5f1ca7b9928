"""The `skill2env` command line, end to end, in a temporary home."""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg
import polars as pl
import pytest
from bundled_skills import NO_KIT
from click.testing import CliRunner
from dagster._core.remote_origin import InProcessCodeLocationOrigin, ManagedGrpcPythonEnvCodeLocationOrigin
from dagster._core.storage.tags import REPOSITORY_LABEL_TAG
from dagster._core.workspace.load import location_origins_from_yaml_paths
from harbor_client import HARBOR_BIN
from harbor_tasks import tree
from skill_trees import small_tree

from skill2env.cli import main, write_workspace
from skill2env.home import CODE_LOCATION, EXAMPLE_SKILLS, Home
from skill2env.lake.lake import Lake
from skill2env.lake.sqlfiles import load_sql

pytestmark = [pytest.mark.integration, pytest.mark.bwrap]


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CliRunner:
    monkeypatch.setenv("SKILL2ENV_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("SKILL2ENV_SKILLS", raising=False)
    return CliRunner()


@pytest.mark.timeout(1800)  # the whole bundled pipeline, in process
def test_run_catalogs_the_bundled_examples_and_prints_the_funnel(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = runner.invoke(main, ["run", "--attempts", "2"], catch_exceptions=False)

    assert result.exit_code == 0, result.output
    examples = sum(1 for p in EXAMPLE_SKILLS.iterdir() if (p / "SKILL.md").is_file())
    assert f"Cataloged {examples} skill folders" in result.output
    assert "Curation funnel" in result.output
    assert "all domains" in result.output
    for section in ("Validation funnel", "Tasks per iteration", "Hardening curve", "SFT examples"):
        assert section in result.output
    # Offline, the world kits author every task, each passes every gate at every iteration, and the
    # naive baseline does worse on each hardened iteration.
    lake = Lake(tmp_path / "home" / "lake.duckdb")
    funnel = lake.query("SELECT iteration, validated, accepted FROM validation_funnel WHERE domain = '*'").rows()
    assert [row[0] for row in funnel] == [0, 1, 2]
    served = examples - len(NO_KIT)
    assert all(validated == accepted == served for _, validated, accepted in funnel), funnel
    skipped = lake.query("SELECT skill_path, reasons[1] FROM tasks WHERE status = 'skipped' AND iteration = 0").rows()
    assert {path for path, _ in skipped} == NO_KIT and all("no world kit fits" in why for _, why in skipped)
    curve = lake.query("SELECT iteration, mean_reward, full_credit_rate FROM hardening_curve WHERE domain = '*'")
    rewards = curve.sort("iteration").get_column("mean_reward").to_list()
    assert len(rewards) == 3 and rewards[0] > rewards[1] > rewards[2], curve
    assert lake.query("SELECT count(*) FROM hardening_rounds WHERE outcome = 'hardened'").item() > 0
    # Every accepted task, hardened children included, resisted every hack strategy (none above 0.1) …
    unprobed = lake.query(
        "SELECT task_id FROM accepted_tasks AS a "
        "WHERE NOT EXISTS (SELECT 1 FROM hack_probes AS h WHERE h.task_id = a.task_id)"
    ).rows()
    assert unprobed == []
    beaten = lake.query(
        "SELECT h.task_id, h.strategy, h.reward FROM hack_probes AS h "
        "JOIN accepted_tasks AS a USING (task_id) WHERE h.reward > 0.1"
    ).rows()
    assert beaten == []
    probed = lake.query(
        "SELECT iteration, tasks_probed, tasks_rejected FROM hack_probe_funnel "
        "WHERE domain = '*' AND strategy = '*' ORDER BY iteration"
    ).rows()
    assert probed == [(k, served, 0) for k in range(3)], probed
    # … and the SFT set holds no incomplete and no flagged rollout.
    exported = load_sql("queries/sft_candidates")
    tainted = lake.query(
        f"SELECT e.rollout_id FROM ({exported.rstrip().rstrip(';')}) AS e "
        "JOIN rollout_rewards AS r USING (rollout_id) WHERE r.incomplete "
        "OR e.rollout_id IN (SELECT rollout_id FROM rollout_flags)",
        {"min_reward": 0.0},
    ).rows()
    assert tainted == []
    # CompoWorld runs too: every service verified, tasks in each of its domains rolled out, and the
    # examples above the SFT threshold join the SFT set with their lineage (their task and its services).
    assert "CompoWorld rollouts" in result.output and "from CompoWorld" in result.output
    stats = lake.query("SELECT * FROM compoworld_stats").row(0, named=True)
    assert stats["verified_services"] == stats["services"] >= 12 and stats["tasks"] > 0, stats
    sft = [json.loads(line) for line in (tmp_path / "home" / "exports" / "sft" / "sft.jsonl").read_text().splitlines()]
    compo = [line["metadata"] for line in sft if line["metadata"]["source"] == "compoworld"]
    assert compo and len(compo) == lake.query("SELECT count(*) FROM compo_sft").item()
    assert any(line["metadata"]["source"] == "skills" and line["metadata"]["skill_path"] for line in sft)
    services = dict(lake.query("SELECT task_id, services FROM compo_tasks WHERE status = 'ok'").rows())
    compo_rollouts = dict(lake.query("SELECT rollout_id, task_id FROM compo_rollouts").rows())
    for metadata in compo:
        assert compo_rollouts[metadata["rollout_id"]] == metadata["task_id"], metadata
        assert metadata["services"] == services[metadata["task_id"]] and len(metadata["services"]) >= 1
        assert metadata["skill_id"] is None and metadata["reward"] > 0.9 and metadata["task_digest"]
    parquet = pl.read_parquet(tmp_path / "home" / "exports" / "sft" / "sft.parquet")
    assert parquet.filter(pl.col("source") == "compoworld").height == len(compo)
    rl_compo = tmp_path / "home" / "exports" / "rl" / "compoworld"
    assert len((rl_compo / "tasks.jsonl").read_text().splitlines()) == stats["tasks"]
    assert pl.read_parquet(rl_compo / "rollouts.parquet").height == len(compo_rollouts)
    # Each job's run is a run of that job of the UI's code location.
    monkeypatch.setenv("DAGSTER_HOME", str(Home.resolve(tmp_path / "home").dagster_home))
    for job in ("catalog_job", "curation_job", "environments_job", "compoworld_job", "exports_job"):
        assert [run.status for run in ui_runs_of(tmp_path / "home", job)] == [dg.DagsterRunStatus.SUCCESS], job
    # The accepted tasks export as Harbor tasks: one folder per distinct version, each loading in Harbor
    # itself and lint-clean, and export → import → export gives the same bytes.
    versions = lake.query("SELECT count(DISTINCT task_digest) FROM accepted_tasks").item()
    out, again = tmp_path / "harbor", tmp_path / "harbor-again"
    exported = runner.invoke(main, ["export", "harbor", "--out", str(out), "--status", "accepted"])
    assert exported.exit_code == 0, exported.output
    assert len(list(out.iterdir())) == versions >= served
    checked = runner.invoke(main, ["export", "harbor", "--check", str(out), "--harbor", str(HARBOR_BIN)])
    assert checked.exit_code == 0, checked.output
    assert f"{versions} of {versions} task(s) load in Harbor and are lint-clean" in " ".join(checked.output.split())
    other_home = tmp_path / "other-home"
    imported = runner.invoke(main, ["import", "harbor", str(out), "--home", str(other_home)])
    assert imported.exit_code == 0, imported.output
    reexported = runner.invoke(main, ["export", "harbor", "--out", str(again), "--status", "all",
                                      "--home", str(other_home)])  # fmt: skip
    assert reexported.exit_code == 0, reexported.output
    assert tree(again) == tree(out)


def ui_runs_of(home_root: Path, job_name: str) -> list[dg.DagsterRun]:
    """The runs the UI lists under `job_name` (the Jobs page, the job's Runs tab): its name and the
    repository label of the job as the code location of `skill2env ui`'s workspace loads it."""
    home = Home.resolve(home_root)
    (origin,) = location_origins_from_yaml_paths([str(write_workspace(home))])
    assert isinstance(origin, ManagedGrpcPythonEnvCodeLocationOrigin) and origin.location_name == CODE_LOCATION
    in_process = InProcessCodeLocationOrigin(origin.loadable_target_origin, location_name=origin.location_name)
    with dg.DagsterInstance.get() as instance, in_process.create_location(instance) as location:
        (repository,) = location.get_repositories().values()
        job = repository.get_full_job(job_name)
        label = job.get_remote_origin().repository_origin.get_label()
        runs = list(instance.get_runs(dg.RunsFilter(job_name=job_name, tags={REPOSITORY_LABEL_TAG: label})))
    for run in runs:  # linked to the job, so the UI can re-execute it
        assert run.remote_job_origin is not None and run.remote_job_origin.location_name == CODE_LOCATION
        assert run.remote_job_origin.job_name == job_name
    return runs


def test_the_cli_runs_are_runs_of_their_jobs_in_the_ui(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = small_tree(tmp_path / "skills")
    assert runner.invoke(main, ["catalog", "--skills", str(root), "--workers", "1"]).exit_code == 0
    monkeypatch.setenv("DAGSTER_HOME", str(Home.resolve(tmp_path / "home").dagster_home))

    for job in ("catalog_job", "curation_job"):
        assert [run.status for run in ui_runs_of(tmp_path / "home", job)] == [dg.DagsterRunStatus.SUCCESS], job
    assert ui_runs_of(tmp_path / "home", "environments_job") == []


def test_catalog_then_query_as_csv_and_json(runner: CliRunner, tmp_path: Path) -> None:
    root = small_tree(tmp_path / "skills")
    assert runner.invoke(main, ["catalog", "--skills", str(root), "--workers", "1"]).exit_code == 0

    csv_out = runner.invoke(main, ["sql", "SELECT path, curated FROM curated_skills ORDER BY path", "--format", "csv"])
    assert csv_out.exit_code == 0
    assert csv_out.stdout.splitlines() == [
        "path,curated",
        "others/draft,false",
        "others/fast-setup,false",
        "team/csv-report,true",
        "team/notes-export,false",
    ]
    json_out = runner.invoke(main, ["sql", "SELECT path, reasons FROM curated_skills WHERE path = 'others/fast-setup'",
                                    "--format", "json"])  # fmt: skip
    (row,) = json.loads(json_out.stdout)
    assert any(reason.startswith("malicious:") for reason in row["reasons"])


def test_sql_refuses_to_write(runner: CliRunner, tmp_path: Path) -> None:
    runner.invoke(main, ["catalog", "--skills", str(small_tree(tmp_path / "skills")), "--workers", "1"])
    result = runner.invoke(main, ["sql", "DELETE FROM skills_versions"])
    assert result.exit_code == 1
    assert "read-only" in result.output


def test_sql_without_a_lake_says_what_to_do(runner: CliRunner) -> None:
    result = runner.invoke(main, ["sql", "SELECT 1"])
    assert result.exit_code == 2
    assert "skill2env catalog" in result.output


def test_catalog_of_a_missing_folder_is_a_usage_error(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(main, ["catalog", "--skills", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "does not exist" in result.output
