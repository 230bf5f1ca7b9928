"""The Dagster UI in Chromium, after `skill2env run` on the bundled skills: what a user sees.

* the asset graph shows every asset group, CompoWorld's included, and every asset in it materialized;
* `environments_job`'s Runs tab lists the CLI's run, successful;
* the Checks tab of `iteration_0/validations` shows its checks passing;
* the hardening-curve image (asset metadata, a Markdown data-URI image) renders on `sft_trajectories`'
  page, and the hack-probe funnel on `iteration_0/validations`';
* one partition of `curated_skills` materialized from the UI: the asset page's Materialize button, one
  domain picked in the partition dialog, "Launch 1 run" clicked; the run is then followed through the
  GraphQL API the UI itself uses, and its page shows it succeeded.

Facts (the groups, the run id, the checks, the partitions) come from the UI's GraphQL endpoint; every
assertion about what is shown reads the rendered page. Screenshots are left in the artifacts directory
(see conftest.py)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

# The first test's set-up runs the whole bundled pipeline (PIPELINE_TIMEOUT) before the UI starts.
pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.bwrap, pytest.mark.timeout(1800)]

GraphQL = Callable[..., dict[str, Any]]
"""The `graphql` fixture: a query (and its variables) against the UI's `/graphql`, its `data`."""

CODE_LOCATION = "skill2env"
GROUPS = {"catalog", "patterns", "tasks", "iteration_0", "iteration_1", "iteration_2", "exports", "compoworld"}
"""The bundled run's groups: the default 2 hardening iterations unroll into 3 iteration groups."""
VALIDATION_CHECKS = {"accepted_tasks_passed_every_gate", "acceptance_rate", "hack_probe_rejections"}
PARTITIONED_ASSET = "curated_skills"
LAUNCH_TIMEOUT = 600

ASSET_NODES = """{ assetNodes { assetKey { path } groupName isPartitioned
  partitionStats { numMaterialized numPartitions numFailed numMaterializing }
  assetMaterializations(limit: 1) { runId } } }"""
REPOSITORY = """{ repositoriesOrError { ... on RepositoryConnection { nodes { name location { name } } } } }"""
JOB_RUNS = """query($selector: PipelineSelector!) { pipelineOrError(params: $selector) {
  __typename ... on Pipeline { runs { runId status } } } }"""
ASSET = """query($path: [String!]!) { assetNodeOrError(assetKey: {path: $path}) { ... on AssetNode {
  partitionKeysByDimension { partitionKeys }
  assetMaterializations(limit: 1) { runId partition metadataEntries { label } }
  assetChecksOrError { ... on AssetChecks { checks { name
    executionForLatestMaterialization { status evaluation { success } } } } } } } }"""
RUNS = """{ runsOrError { ... on Runs { results { runId status assetSelection { path } tags { key value } } } } }"""
RUN_STATUS = """query($id: ID!) { runOrError(runId: $id) { ... on Run { status } } }"""


def shot(page: Page, artifacts: Path, name: str) -> None:
    page.screenshot(path=str(artifacts / f"{name}.png"))


def asset_nodes(graphql: GraphQL) -> dict[str, dict[str, Any]]:
    return {"/".join(n["assetKey"]["path"]): n for n in graphql(ASSET_NODES)["assetNodes"]}


def test_the_asset_graph_shows_every_group_all_materialized(page: Page, graphql: GraphQL, ui_artifacts: Path) -> None:
    nodes = asset_nodes(graphql)
    groups: dict[str, list[str]] = {}
    for key, node in sorted(nodes.items()):
        groups.setdefault(node["groupName"], []).append(key)
    assert set(groups) == GROUPS
    for key, node in nodes.items():  # what the run wrote, as the UI's own API reports it
        stats = node["partitionStats"]
        if node["isPartitioned"]:
            assert stats["numPartitions"] > 0 and stats["numMaterialized"] == stats["numPartitions"], (key, stats)
            assert stats["numFailed"] == stats["numMaterializing"] == 0, (key, stats)
        else:
            assert node["assetMaterializations"], key

    # The global lineage: one node per group, CompoWorld's among them.
    page.goto("/asset-groups")
    graph = page.locator("svg")
    for group in sorted(GROUPS):
        expect(graph.locator(f'[data-tooltip="{group}"]').first).to_be_visible()
    shot(page, ui_artifacts, "asset-graph")

    # Each group's list: every asset of the group, each materialized (all partitions, none missing or failed).
    for group, keys in sorted(groups.items()):
        page.goto(f"/locations/{CODE_LOCATION}/asset-groups/{group}/list")
        headers = page.locator("div[class*='VirtualizedTable_headerCell']")
        expect(headers.filter(has_text="Status")).to_have_count(1)
        column = [text.strip() for text in headers.all_inner_texts()].index("Status")
        for key in keys:
            row = page.locator("div[class*='VirtualizedTable_row']").filter(
                has=page.locator(f'a[href="/assets/{key}"]')
            )
            expect(row).to_have_count(1)
            status = row.locator("div[class*='VirtualizedTable_cellBox']").nth(column)
            if nodes[key]["isPartitioned"]:
                count = nodes[key]["partitionStats"]["numPartitions"]
                # "All" (materialized), then 0 missing, 0 failed, 0 in progress, and how many partitions
                all_done = rf"^\s*All\s+0\s+0\s+0\s+{count} partitions?\s*$"
                expect(status).to_have_text(re.compile(all_done), use_inner_text=True)
                expect(status.locator('[aria-label="partition_success"]').first).to_be_visible()
            else:
                expect(status.locator('[aria-label="check_passed"]')).to_be_visible()
                expect(status).to_contain_text("Materialized")
        shot(page, ui_artifacts, f"group-{group}")
    page.goto(f"/locations/{CODE_LOCATION}/asset-groups/iteration_0")
    expect(page.locator("svg").get_by_text("validations", exact=True).first).to_be_visible()
    shot(page, ui_artifacts, "group-iteration_0-lineage")


def test_the_runs_tab_of_environments_job_lists_the_cli_run(page: Page, graphql: GraphQL, ui_artifacts: Path) -> None:
    (repository,) = graphql(REPOSITORY)["repositoriesOrError"]["nodes"]
    selector = {"repositoryLocationName": repository["location"]["name"], "repositoryName": repository["name"],
                "pipelineName": "environments_job"}  # fmt: skip
    found = graphql(JOB_RUNS, {"selector": selector})["pipelineOrError"]
    assert found["__typename"] == "Pipeline", found
    (run,) = found["runs"]
    assert run["status"] == "SUCCESS"

    page.goto(f"/locations/{CODE_LOCATION}/jobs/environments_job/runs")
    rows = page.locator("div[class*='VirtualizedTable_row']")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text(run["runId"][:8])
    expect(rows.first).to_contain_text("Success")
    shot(page, ui_artifacts, "environments-job-runs")


def test_the_checks_tab_of_validations_shows_passing_checks(page: Page, graphql: GraphQL, ui_artifacts: Path) -> None:
    asset = graphql(ASSET, {"path": ["iteration_0", "validations"]})["assetNodeOrError"]
    checks = {c["name"]: c["executionForLatestMaterialization"] for c in asset["assetChecksOrError"]["checks"]}
    assert set(checks) == VALIDATION_CHECKS
    assert all(e["status"] == "SUCCEEDED" and e["evaluation"]["success"] for e in checks.values()), checks

    page.goto("/assets/iteration_0/validations?view=checks")
    for name in sorted(VALIDATION_CHECKS):
        row = page.locator("div[class*='AssetChecks_checkRow']").filter(has=page.locator(f'[title="{name}"]'))
        expect(row).to_have_count(1)
        expect(row).to_contain_text("Succeeded")
        expect(row.locator('[aria-label="check_circle"]')).to_be_visible()
    shot(page, ui_artifacts, "validations-checks")
    page.goto("/assets/iteration_0/validations?view=checks&checkDetail=hack_probe_rejections")
    expect(page.get_by_text("Evaluation result")).to_be_visible()
    expect(page.get_by_text("Passed", exact=True).first).to_be_visible()
    shot(page, ui_artifacts, "validations-check-hack-probe-rejections")


def show_markdown_image(page: Page, label: str, alt: str) -> dict[str, Any]:
    """Open the Markdown metadata entry `label` of the asset page shown and return the image `alt`'s
    rendered size."""
    row = page.locator("tr").filter(has=page.get_by_text(label, exact=True))
    row.first.get_by_text("[Show Markdown]").click()
    image = page.get_by_role("img", name=alt)
    expect(image).to_be_visible()
    page.wait_for_function("alt => [...document.images].some(i => i.alt === alt && i.complete)", arg=alt)
    return dict(image.evaluate("i => ({width: i.naturalWidth, height: i.naturalHeight, src: i.src.slice(0, 22)})"))


def test_the_hardening_curve_and_the_hack_probe_funnel_render(page: Page, graphql: GraphQL, ui_artifacts: Path) -> None:
    for path, label in ((["sft_trajectories"], "hardening_curve"), (["iteration_0", "validations"],
                                                                     "hack_probe_funnel_plot")):  # fmt: skip
        (latest,) = graphql(ASSET, {"path": path})["assetNodeOrError"]["assetMaterializations"]
        assert label in {entry["label"] for entry in latest["metadataEntries"]}, path

    page.goto("/assets/sft_trajectories")
    curve = show_markdown_image(page, "hardening_curve", "Hardening curve")
    assert curve["src"] == "data:image/png;base64,"
    assert curve["width"] > 500 and curve["height"] > 150, curve  # the PNG decoded: a 13 × 4.2 inch figure
    shot(page, ui_artifacts, "hardening-curve")

    page.goto("/assets/iteration_0/validations")
    funnel = show_markdown_image(page, "hack_probe_funnel_plot", "Hack-probe funnel")
    assert funnel["width"] > 400 and funnel["height"] > 150, funnel
    shot(page, ui_artifacts, "hack-probe-funnel")


def test_one_partition_materialized_from_the_ui_completes(page: Page, graphql: GraphQL, ui_artifacts: Path) -> None:
    (keys,) = graphql(ASSET, {"path": [PARTITIONED_ASSET]})["assetNodeOrError"]["partitionKeysByDimension"]
    partition = sorted(keys["partitionKeys"])[-1]
    before = {run["runId"] for run in graphql(RUNS)["runsOrError"]["results"]}

    page.goto(f"/assets/{PARTITIONED_ASSET}")
    page.get_by_role("button", name="Materialize…").click()
    dialog = page.locator("div.dagster-dialog[role=dialog]")
    title = dialog.get_by_text(f"Launch runs to materialize {PARTITIONED_ASSET}")
    expect(title).to_be_visible()
    dialog.get_by_text("Select a partition or create one").click()
    # The list opens in a portal (as the dialog does); the asset page behind the dialog may show the
    # same key in its own table, where a click lands on the dialog's overlay instead.
    choice = page.locator("[class*='-portal']").get_by_text(partition, exact=True).filter(visible=True).last
    expect(choice).to_be_visible()
    choice.click()
    title.click()  # closes the partition list
    expect(dialog).to_contain_text("1 partition")
    launch = dialog.get_by_role("button", name="Launch 1 run")
    shot(page, ui_artifacts, "materialize-one-partition")
    launch.click()
    expect(dialog).to_be_hidden()

    deadline, launched = time.monotonic() + 60, []
    while not launched and time.monotonic() < deadline:
        launched = [run for run in graphql(RUNS)["runsOrError"]["results"] if run["runId"] not in before]
        time.sleep(1)
    (run,) = launched
    tags = {tag["key"]: tag["value"] for tag in run["tags"]}
    assert tags.get("dagster/partition") == partition, tags
    assert run["assetSelection"] == [{"path": [PARTITIONED_ASSET]}], run
    deadline, status = time.monotonic() + LAUNCH_TIMEOUT, run["status"]
    while status not in ("SUCCESS", "FAILURE", "CANCELED") and time.monotonic() < deadline:
        time.sleep(2)
        status = graphql(RUN_STATUS, {"id": run["runId"]})["runOrError"]["status"]
    assert status == "SUCCESS"
    (latest,) = graphql(ASSET, {"path": [PARTITIONED_ASSET]})["assetNodeOrError"]["assetMaterializations"]
    assert (latest["runId"], latest["partition"]) == (run["runId"], partition)

    page.goto(f"/runs/{run['runId']}")
    expect(page.get_by_text("Success", exact=True).first).to_be_visible()
    expect(page.get_by_text(f"partition: {partition}", exact=True)).to_be_visible()
    shot(page, ui_artifacts, "materialize-one-partition-run")
