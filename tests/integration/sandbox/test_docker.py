"""What only the Docker backend has: the base image, task images and their cache, container settings."""

from __future__ import annotations

import contextlib
import logging
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from docker.errors import APIError, NotFound
from harbor_tasks import CSV_AGGREGATION, HARBOR_FIXTURES, fixture_task

from skill2env.sandbox import docker_backend
from skill2env.sandbox.base import SandboxLimits, owner_token
from skill2env.sandbox.base_image import BASE_IMAGE, RECIPE_DIGEST_LABEL, BaseImageRecipe
from skill2env.sandbox.cli import sandbox as sandbox_cli
from skill2env.sandbox.docker_backend import DockerSandbox
from skill2env.sandbox.engine import docker_client
from skill2env.sandbox.errors import ImageBuildError
from skill2env.sandbox.images import ENV_DIGEST_LABEL, ensure_task_image
from skill2env.sandbox.labels import DEADLINE_LABEL, OWNER_LABEL, ROLLOUT_LABEL, SANDBOX_LABEL
from skill2env.sandbox.reaper import reap_docker
from skill2env.sandbox.task import TaskDir

pytestmark = [pytest.mark.integration, pytest.mark.docker, pytest.mark.usefixtures("docker_backend")]


@pytest.fixture
def client():
    client = docker_client()
    yield client
    client.close()


def test_the_base_image_is_built_from_the_current_recipe_with_the_tools(client) -> None:
    image = client.images.get(BASE_IMAGE)
    assert image.labels[RECIPE_DIGEST_LABEL] == BaseImageRecipe().digest

    probe = "import pandas, openpyxl, pypdf, docx; print('ok')"
    tools = "jq sqlite3 git curl unzip 7z pdftotext tesseract timeout"
    output = client.containers.run(
        BASE_IMAGE,
        ["sh", "-c", f'python3 -c "{probe}" && for t in {tools}; do command -v $t; done | wc -l'],
        remove=True,
        network_mode="none",
    )
    assert output.decode().split() == ["ok", str(len(tools.split()))]


def test_build_base_is_skipped_when_the_image_exists() -> None:
    result = CliRunner().invoke(sandbox_cli, ["build-base", "--no-start-engine"])

    assert result.exit_code == 0, result.output
    assert "already built" in result.output


def test_doctor_reports_every_check() -> None:
    result = CliRunner().invoke(sandbox_cli, ["doctor"])

    for check in ("dockerd", "debootstrap", "docker engine", "base image", "bubblewrap"):
        assert check in result.output
    assert "bwrap file" in result.output and "--backend" in result.output and "runs bwrap" in result.output


def test_task_images_are_cached_by_environment_digest(client, tmp_path: Path) -> None:
    task = fixture_task(CSV_AGGREGATION)
    tag = ensure_task_image(client, task)
    began = time.monotonic()

    assert ensure_task_image(client, task) == tag
    assert time.monotonic() - began < 2
    assert client.images.get(tag).labels[ENV_DIGEST_LABEL] == task.environment_digest

    changed = tmp_path / "task"
    shutil.copytree(HARBOR_FIXTURES / CSV_AGGREGATION, changed)
    (changed / "environment" / "workspace" / "extra.txt").write_text("new file\n")
    try:
        assert ensure_task_image(client, TaskDir(changed)) != tag
    finally:
        client.images.remove(ensure_task_image(client, TaskDir(changed)), force=True)


def test_a_dockerfile_that_fails_raises_an_image_build_error_with_the_log(client, tmp_path: Path) -> None:
    broken = tmp_path / "task"
    shutil.copytree(HARBOR_FIXTURES / CSV_AGGREGATION, broken)
    (broken / "environment" / "Dockerfile").write_text("FROM skill2env-base\nRUN echo failing-step && exit 7\n")

    with pytest.raises(ImageBuildError, match="failing-step"):
        ensure_task_image(client, TaskDir(broken))


def test_the_container_is_locked_down_and_labelled(client) -> None:
    sandbox = DockerSandbox(SandboxLimits(memory_mb=300, pids=99, cpus=0.5, storage_mb=64, tmp_mb=64))
    sandbox.start(fixture_task(CSV_AGGREGATION))
    try:
        attrs = client.containers.get(sandbox.container_id).attrs
        host = attrs["HostConfig"]
        assert host["ReadonlyRootfs"] and host["CapDrop"] == ["ALL"]
        assert host["SecurityOpt"] == ["no-new-privileges:true"]
        assert host["NetworkMode"] == "none" and host["PidsLimit"] == 99
        assert host["Memory"] == 300 << 20 and host["NanoCpus"] == 500_000_000
        assert attrs["Config"]["Labels"][ROLLOUT_LABEL] == sandbox.rollout_id
        assert {m["Destination"] for m in attrs["Mounts"]} >= {"/workspace", "/logs", "/tests", "/solution"}
    finally:
        sandbox.stop()
    label = {"label": f"{ROLLOUT_LABEL}={sandbox.rollout_id}"}
    assert client.containers.list(all=True, filters=label) == []
    assert client.volumes.list(filters=label) == []


def test_reap_reports_what_it_removed() -> None:
    result = CliRunner().invoke(sandbox_cli, ["reap"])

    assert result.exit_code == 0, result.output
    assert "removed" in result.output


def test_a_sandbox_its_owner_removes_while_the_reaper_lists_them_is_no_error(client) -> None:
    # The engine lists the sandboxes, then each is inspected: the other owner's removal lands in between.
    labels = {SANDBOX_LABEL: "1", DEADLINE_LABEL: str(int(time.time()) + 600)}
    vanishing = client.containers.create(BASE_IMAGE, ["sleep", "600"], labels=labels | {OWNER_LABEL: owner_token()})
    orphan = client.containers.create(BASE_IMAGE, ["sleep", "600"], labels=labels | {OWNER_LABEL: "gone:1:1"})
    listing = client.api.containers

    def list_then_lose_one(*args: object, **kwargs: object) -> list[dict[str, object]]:
        rows = listing(*args, **kwargs)
        assert vanishing.id in {row["Id"] for row in rows}
        client.api.remove_container(vanishing.id, force=True)
        return rows

    client.api.containers = list_then_lose_one
    try:
        report = reap_docker(client)
    finally:
        client.api.containers = listing
        for container in (vanishing, orphan):
            with contextlib.suppress(NotFound):
                container.remove(force=True)

    assert report.containers == [orphan.name]


def test_a_reap_that_fails_is_logged_and_the_start_goes_on(monkeypatch, caplog) -> None:
    def engine_busy(_: object) -> None:
        raise APIError("500 Server Error: the engine is busy")

    monkeypatch.setattr(docker_backend, "reap_docker", engine_busy)
    sandbox = DockerSandbox(SandboxLimits(storage_mb=64, tmp_mb=64))
    with caplog.at_level(logging.WARNING, logger=docker_backend.__name__):
        sandbox.start(fixture_task(CSV_AGGREGATION))
    try:
        assert sandbox.exec("echo started").stdout == "started\n"
    finally:
        sandbox.stop()
    assert "removing orphaned sandboxes failed; starting anyway: 500 Server Error" in caplog.text
