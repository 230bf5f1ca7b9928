"""`skill2env ui` serves the Dagster UI with the catalog assets and the home's iterations, starts
without alarming warnings, and a run launched from it succeeds."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from skill_trees import small_tree

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SKILL2ENV = Path(sys.executable).parent / "skill2env"
START_TIMEOUT = 180
RUN_TIMEOUT = 240

ASSETS_QUERY = """{ assetNodes { assetKey { path } isPartitioned partitionDefinition { type name } } }"""
REPOSITORY_QUERY = """{ repositoriesOrError { ... on RepositoryConnection { nodes { name location { name } } } } }"""
LAUNCH = """mutation($params: ExecutionParams!) { launchRun(executionParams: $params) {
  __typename ... on LaunchRunSuccess { run { runId } } ... on PythonError { message }
  ... on RunConfigValidationInvalid { errors { message } } } }"""
RUN_STATUS = """query($id: ID!) { runOrError(runId: $id) { ... on Run { status } } }"""
JOB_RUNS = """query($selector: PipelineSelector!) { pipelineOrError(params: $selector) {
  __typename ... on Pipeline { runs { runId status repositoryOrigin { repositoryLocationName } } } } }"""
"""A job's Runs tab (and the Jobs page's latest run): the runs of that job of this code location."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def graphql(base: str, query: str, variables: dict[str, object] | None = None) -> dict:
    body = json.dumps({"query": query, "variables": variables or {}}).encode()
    request = urllib.request.Request(f"{base}/graphql", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        payload = json.loads(response.read())
    if payload.get("errors"):
        raise AssertionError(payload["errors"])
    return payload["data"]


def wait_until_up(base: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"skill2env ui exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{base}/server_info", timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(1)
    raise AssertionError("the UI did not come up in time")


ITERATIONS = 3
"""What the home's last `skill2env run` recorded in `<home>/pipeline.toml` (the default is 2)."""
ALARMS = ("superseded", "dg dev", "will not be used", "deprecat")
"""What `dagster dev` printed on every start: its deprecation notice and a misleading dagster.yaml warning."""


@pytest.fixture
def ui(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    home = tmp_path / "home"
    home.mkdir()
    (home / "pipeline.toml").write_text(f"iterations = {ITERATIONS}\n")
    env = {
        **{k: v for k, v in os.environ.items() if k != "SKILL2ENV_ITERATIONS"},
        "SKILL2ENV_HOME": str(home),
        "SKILL2ENV_SKILLS": str(small_tree(tmp_path / "skills")),
    }
    # Started from the project's root, beside its dagster.yaml, as `make ui` and a new user do.
    with (tmp_path / "ui.log").open("wb") as log:
        process = subprocess.Popen(
            [str(SKILL2ENV), "ui", "--port", str(port)],
            env=env,
            cwd=Path(__file__).resolve().parents[2],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, process)
        yield base
    finally:
        with contextlib.suppress(ProcessLookupError):  # it may have exited on its own
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def test_ui_serves_the_catalog_assets_and_runs_the_catalog(ui: str) -> None:
    nodes = {"/".join(n["assetKey"]["path"]): n for n in graphql(ui, ASSETS_QUERY)["assetNodes"]}
    assert {"skills", "skill_files", "curated_skills", "pattern_library", "pattern_selections"} <= set(nodes)
    assert nodes["curated_skills"]["isPartitioned"]
    assert nodes["curated_skills"]["partitionDefinition"]["type"] == "DYNAMIC"

    (repository,) = graphql(ui, REPOSITORY_QUERY)["repositoriesOrError"]["nodes"]
    selector = {"repositoryLocationName": repository["location"]["name"], "repositoryName": repository["name"],
                "jobName": "catalog_job"}  # fmt: skip
    launched = graphql(ui, LAUNCH, {"params": {"selector": selector, "runConfigData": {}}})["launchRun"]
    assert launched["__typename"] == "LaunchRunSuccess", launched
    run_id = launched["run"]["runId"]
    deadline, status = time.monotonic() + RUN_TIMEOUT, None
    while time.monotonic() < deadline:
        status = graphql(ui, RUN_STATUS, {"id": run_id})["runOrError"]["status"]
        if status in ("SUCCESS", "FAILURE", "CANCELED"):
            break
        time.sleep(2)
    assert status == "SUCCESS"


def test_ui_starts_quietly_with_the_iterations_of_the_home(ui: str, tmp_path: Path) -> None:
    nodes = {"/".join(n["assetKey"]["path"]) for n in graphql(ui, ASSETS_QUERY)["assetNodes"]}
    last = ITERATIONS
    assert {f"iteration_{last}/rubric_scores", f"iteration_{last - 1}/hardening"} <= nodes
    assert f"iteration_{last}/hardening" not in nodes and f"iteration_{last + 1}/validations" not in nodes
    (repository,) = graphql(ui, REPOSITORY_QUERY)["repositoriesOrError"]["nodes"]
    assert repository["location"]["name"] == "skill2env"

    output = (tmp_path / "ui.log").read_text(errors="replace")
    assert "Serving dagster-webserver" in output, output
    assert "Error" not in output, output
    for alarm in ALARMS:
        assert alarm not in output.lower(), output


def test_a_cli_run_shows_under_its_jobs_in_the_ui(ui: str, tmp_path: Path) -> None:
    env = {**os.environ, "SKILL2ENV_HOME": str(tmp_path / "home")}
    catalog = [str(SKILL2ENV), "catalog", "--skills", str(tmp_path / "skills"), "--workers", "1"]
    subprocess.run(catalog, env=env, check=True, capture_output=True, timeout=RUN_TIMEOUT)

    (repository,) = graphql(ui, REPOSITORY_QUERY)["repositoriesOrError"]["nodes"]
    for job in ("catalog_job", "curation_job"):
        selector = {"repositoryLocationName": repository["location"]["name"],
                    "repositoryName": repository["name"], "pipelineName": job}  # fmt: skip
        found = graphql(ui, JOB_RUNS, {"selector": selector})["pipelineOrError"]
        assert found["__typename"] == "Pipeline", found
        assert [(run["status"], run["repositoryOrigin"]) for run in found["runs"]] == [
            ("SUCCESS", {"repositoryLocationName": "skill2env"})
        ], job
