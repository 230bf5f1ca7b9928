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
from skill2env.sandbox.rootfs import needs_own_image
from skill2env.tasks.draft import TaskDraft
from skill2env.tasks.harbor import write_task_dir
from skill2env.validation.gates import Gate, validate_task

pytestmark = [pytest.mark.integration, pytest.mark.docker, pytest.mark.slow]

APT = "tree"  # small, not in the base image
PIP = "tomli-w==1.0.0"
NPM = "semver@7.6.0"  # a command-line tool, small, with no dependencies


def _with_packages(apt: list[str], pip: list[str], npm: list[str] | None = None) -> TaskDraft:
    draft = billing_draft()
    environment = draft.blueprint.environment.model_copy(
        update={"apt_packages": apt, "pip_packages": pip, "npm_packages": npm or []}
    )
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


@pytest.mark.parametrize("backend", ["docker", pytest.param("bwrap", marks=pytest.mark.bwrap)])
def test_a_task_whose_image_does_not_build_fails_its_oracle_gate_by_name(tmp_path: Path, backend: str) -> None:
    """A build that fails is the task's own failure, named with the build log's tail, not an
    infrastructure error of every gate's run: the task is rejected, and no run is made."""
    require_backend("docker")
    require_backend(backend)
    draft = _with_packages(["skill2env-no-such-package"], [])
    task = _task(tmp_path, draft, f"unbuilt-{backend}")
    validation = validate_task(f"unbuilt-{backend}", task.root, draft.blueprint.rubric, backend=backend,
                               blueprint=draft.blueprint)  # fmt: skip
    statuses = {o.gate: o.status.value for o in validation.outcomes}
    assert statuses == {Gate.oracle: "failed", Gate.nop: "skipped", Gate.partial: "skipped", Gate.leak: "passed",
                        Gate.judge: "skipped", Gate.hack_probe: "skipped"}  # fmt: skip
    oracle = validation.outcomes[0]
    assert oracle.evidence.startswith("the task's environment does not build: ")
    assert "installing declared packages failed" in oracle.evidence and "skill2env-no-such-package" in oracle.evidence
    assert not validation.accepted and validation.probes == ()


def test_declarations_are_checked_against_the_indexes_before_any_build() -> None:
    problems = unresolved(["tree", "skill2env-no-such-package"], ["tomli-w==1.0.0", "tomli-w==99.0.0"],
                          [NPM, "semver@99.0.0", "skill2env-no-such-package"])  # fmt: skip
    assert len(problems) == 4, problems
    assert problems[0].startswith("apt package skill2env-no-such-package does not resolve")
    assert problems[1].startswith("pip package tomli-w==99.0.0 does not resolve: version 99.0.0 is not on the index")
    assert problems[2].startswith("npm package semver@99.0.0 does not resolve: version 99.0.0 is not on the registry")
    assert problems[3] == "npm package skill2env-no-such-package does not resolve: the registry answered 404 Not Found"


def test_declared_npm_packages_are_installed_with_npm_at_build_time(tmp_path: Path) -> None:
    require_backend("docker")
    task = _task(tmp_path, _with_packages([], [], [NPM]), "npm")
    with make_sandbox("docker") as sandbox:
        sandbox.start(task)
        ran = sandbox.exec(["semver", "--range", ">=7 <8", "7.6.0", "8.0.0"])
    assert ran.ok and ran.stdout.split() == ["7.6.0"], ran.stderr


PROBE = "command -v tree; python3 -c 'import tomli_w, sys; print(tomli_w.__name__, sys.version_info[:2])'"


@pytest.mark.bwrap
def test_both_backends_run_the_task_over_the_same_file_system(tmp_path: Path) -> None:
    """The same task on docker and bwrap: the same programs and packages, and the oracle, which needs
    them, earns full credit on both (bwrap runs over the task image's exported file system)."""
    require_backend("docker")
    require_backend("bwrap")
    draft = _with_packages([APT], [PIP])
    needy = dataclasses.replace(draft, solve_sh=draft.solve_sh.replace(
        "\n", "\ncommand -v tree >/dev/null && python3 -c 'import tomli_w' || exit 3\n", 1))  # fmt: skip
    task = _task(tmp_path, needy, "both")
    seen, modes = {}, {}
    for backend in ("docker", "bwrap"):
        with make_sandbox(backend) as sandbox:
            sandbox.start(task)
            probe = sandbox.exec(["sh", "-c", PROBE])
            seen[backend], modes[backend] = (probe.exit_code, probe.stdout), sandbox.mode
    assert seen["docker"] == seen["bwrap"] and seen["docker"][0] == 0, seen
    assert "task-image-rootfs" in modes["bwrap"]
    for backend in ("docker", "bwrap"):
        validation = validate_task(f"both-{backend}", task.root, needy.blueprint.rubric, backend=backend,
                                   blueprint=needy.blueprint)  # fmt: skip
        oracle = next(o for o in validation.outcomes if o.gate == Gate.oracle)
        assert oracle.reward is not None and oracle.reward >= 0.99, (backend, oracle.evidence)


def test_a_task_without_own_steps_runs_bwrap_over_the_base_file_system(tmp_path: Path) -> None:
    assert not needs_own_image(_task(tmp_path, billing_draft(), "plain"))
    assert needs_own_image(_task(tmp_path, _with_packages([APT], []), "own"))
