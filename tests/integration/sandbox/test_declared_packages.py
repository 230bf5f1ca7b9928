"""Declared packages on a real engine: installed at build time through the host's package indexes,
usable offline in the sandbox, nothing of the host's configuration left in the image, a package that
does not install failing the build by name, and the declarations checked before any build."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from harbor_tasks import require_backend
from task_samples import billing_draft, make_skill_dir

from skill2env.sandbox import ImageBuildError, TaskDir, make_sandbox
from skill2env.sandbox.packages import BUILD_DIR, PACKAGES_REPOSITORY, unresolved
from skill2env.tasks.draft import TaskDraft
from skill2env.tasks.harbor import write_task_dir

pytestmark = [pytest.mark.integration, pytest.mark.docker, pytest.mark.slow]

APT = "tree"  # small, not in the base image
PIP = "tomli-w==1.0.0"


def _with_packages(apt: list[str], pip: list[str]) -> TaskDraft:
    draft = billing_draft()
    environment = draft.blueprint.environment.model_copy(update={"apt_packages": apt, "pip_packages": pip})
    return dataclasses.replace(draft, blueprint=draft.blueprint.model_copy(update={"environment": environment}))


def _task(tmp_path: Path, draft: TaskDraft, name: str) -> TaskDir:
    write_task_dir(draft, tmp_path / name, skill_dir=make_skill_dir(tmp_path / f"skills-{name}"))
    return TaskDir(tmp_path / name)


def test_declared_packages_are_installed_at_build_time_and_work_offline(tmp_path: Path) -> None:
    require_backend("docker")
    import docker

    task = _task(tmp_path, _with_packages([APT], [PIP]), "declared")
    assert not task.network_enabled
    with make_sandbox("docker") as sandbox:
        sandbox.start(task)
        found = sandbox.exec(["sh", "-c", f"command -v {APT} && python3 -c 'import tomli_w; print(tomli_w.__name__)'"])
        offline = sandbox.exec(["python3", "-c", "import socket; socket.create_connection(('pypi.org', 443), 5)"])
        leftovers = sandbox.exec(["sh", "-c", f"ls {BUILD_DIR}; env | grep -c PIP_CERT"])
    assert found.ok, found.stderr
    assert f"/usr/bin/{APT}" in found.stdout and "tomli_w" in found.stdout
    assert not offline.ok  # the task runs with the network it asks for: none
    assert "No such file" in leftovers.stderr and leftovers.stdout.strip().endswith("0")

    client = docker.from_env()
    stages = client.images.list(name=PACKAGES_REPOSITORY)
    assert stages, "the install ran in a packages stage"
    for stage in stages:
        config = json.dumps(stage.attrs["Config"])
        assert "PIP_CERT" not in config and BUILD_DIR not in config


def test_a_package_that_does_not_install_fails_the_build_by_name(tmp_path: Path) -> None:
    require_backend("docker")
    task = _task(tmp_path, _with_packages(["skill2env-no-such-package"], []), "broken")
    with make_sandbox("docker") as sandbox, pytest.raises(ImageBuildError) as failed:
        sandbox.start(task)
    message = str(failed.value)
    assert "installing declared packages failed" in message
    assert "skill2env-no-such-package" in message


def test_declarations_are_checked_against_the_indexes_before_any_build() -> None:
    problems = unresolved(["tree", "skill2env-no-such-package"], ["tomli-w==1.0.0", "tomli-w==99.0.0"])
    assert len(problems) == 2, problems
    assert problems[0].startswith("apt package skill2env-no-such-package does not resolve")
    assert problems[1].startswith("pip package tomli-w==99.0.0 does not resolve: version 99.0.0 is not on the index")
