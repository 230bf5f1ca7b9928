"""Reading a Harbor task directory: config, paths, workdir, the environment digest."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from harbor_tasks import CSV_AGGREGATION, HARBOR_FIXTURES, LOG_TRIAGE, fixture_task

from skill2env.sandbox.base import TASK_DEFAULT_CPUS, TASK_DEFAULT_MEMORY_MB, TASK_DEFAULT_STORAGE_MB, SandboxLimits
from skill2env.sandbox.task import DEFAULT_AGENT_TIMEOUT_SEC, DEFAULT_WORKDIR, TaskDir, TaskFormatError, workdir_of


def test_the_fixture_config_is_read_with_its_limits_and_timeouts() -> None:
    task = fixture_task(CSV_AGGREGATION)
    config = task.config

    assert config.environment.cpus == 1 and config.environment.memory_mb == 512
    assert config.environment.storage_mb == 256 and config.environment.build_timeout_sec == 300
    assert config.agent.timeout_sec == 120 and config.verifier.timeout_sec == 60
    assert task.agent_timeout_sec == 120 and task.verifier_timeout_sec == 60
    assert not task.network_enabled
    limits = SandboxLimits.for_task(task)
    assert (limits.cpus, limits.memory_mb, limits.storage_mb) == (1, 512, 256)


def test_missing_sections_take_harbor_defaults_and_only_public_opens_the_network(tmp_path: Path) -> None:
    (tmp_path / "task.toml").write_text('[environment]\nnetwork_mode = "public"\n[metadata]\nanything = 1\n')

    task = TaskDir(tmp_path)

    # Harbor leaves resources and the agent's timeout unset; the sandbox's own defaults apply at use.
    assert task.config.environment.memory_mb is None and task.config.environment.cpus is None
    assert task.config.agent.timeout_sec is None and task.agent_timeout_sec == DEFAULT_AGENT_TIMEOUT_SEC
    limits = SandboxLimits.for_task(task)
    assert (limits.cpus, limits.memory_mb, limits.storage_mb) == (
        TASK_DEFAULT_CPUS, TASK_DEFAULT_MEMORY_MB, TASK_DEFAULT_STORAGE_MB)  # fmt: skip
    assert task.network_enabled and limits.network
    assert task.skill_mount == "/skills" and task.author is None


def test_fractional_cpus_reach_the_limits(tmp_path: Path) -> None:
    (tmp_path / "task.toml").write_text("[environment]\ncpus = 0.5\nmemory_mb = 768\n")

    limits = SandboxLimits.for_task(TaskDir(tmp_path))

    assert (limits.cpus, limits.memory_mb) == (0.5, 768) and not limits.network


@pytest.mark.parametrize("toml", ["", "[environment]\nallow_internet = true\n", '[agent]\nnetwork_mode = "public"\n'])
def test_harbors_default_or_allow_internet_alone_does_not_open_the_network(tmp_path: Path, toml: str) -> None:
    (tmp_path / "task.toml").write_text(toml)

    task = TaskDir(tmp_path)

    assert task.config.environment.network_mode == "public"  # Harbor's reading
    assert not task.network_enabled


def test_a_multi_step_task_runs_its_first_step(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "task.toml").write_text(
        '[[steps]]\nname = "one"\n[steps.agent]\ntimeout_sec = 30.0\n[[steps]]\nname = "two"\n'
    )
    for step in ("one", "two"):
        (tmp_path / "steps" / step / "tests").mkdir(parents=True)
        (tmp_path / "steps" / step / "instruction.md").write_text(step)
        (tmp_path / "steps" / step / "tests" / "test.sh").write_text("exit 0\n")
    (tmp_path / "steps" / "one" / "solution").mkdir()
    (tmp_path / "steps" / "one" / "solution" / "solve.sh").write_text("true\n")
    (tmp_path / "environment").mkdir()
    (tmp_path / "environment" / "Dockerfile").write_text("FROM x\n")

    task = TaskDir(tmp_path)

    with caplog.at_level("WARNING"):
        assert task.run_step == "one"
    assert "only its first step, 'one', is run" in caplog.text
    assert task.instruction.read_text() == "one" and task.test_script == tmp_path / "steps/one/tests/test.sh"
    assert task.solution_dir == tmp_path / "steps/one/solution"
    assert task.agent_timeout_sec == 30.0 and task.is_valid()


def test_a_malformed_task_toml_raises_a_format_error(tmp_path: Path) -> None:
    (tmp_path / "task.toml").write_text("[environment\n")

    with pytest.raises(TaskFormatError):
        _ = TaskDir(tmp_path).config
    assert not TaskDir(tmp_path).is_valid()


def test_paths_and_validity() -> None:
    task = fixture_task(LOG_TRIAGE)

    assert task.is_valid() and task.missing_files() == []
    assert task.solve_script.is_file() and task.test_script.is_file() and task.workspace_dir.is_dir()
    assert task.name == LOG_TRIAGE


def test_a_task_without_tests_or_dockerfile_is_invalid(tmp_path: Path) -> None:
    (tmp_path / "task.toml").write_text("")
    (tmp_path / "instruction.md").write_text("do it")

    assert TaskDir(tmp_path).missing_files() == ["tests/test.sh", "environment/Dockerfile"]


@pytest.mark.parametrize(
    ("dockerfile", "workdir"),
    [
        ("FROM skill2env-base\n", DEFAULT_WORKDIR),
        ("FROM x\nWORKDIR /app\n", "/app"),
        ("FROM x\nWORKDIR /srv\nworkdir data\n", "/srv/data"),
        ('FROM x\nWORKDIR "/quoted/"\n', "/quoted"),
    ],
)
def test_the_workdir_is_the_dockerfiles_last(dockerfile: str, workdir: str) -> None:
    assert workdir_of(dockerfile) == workdir


def test_the_fixtures_workdirs() -> None:
    assert fixture_task(CSV_AGGREGATION).workdir == "/workspace"
    assert fixture_task(LOG_TRIAGE).workdir == "/app"


def test_the_environment_digest_follows_content_names_and_the_executable_bit(tmp_path: Path) -> None:
    copy = tmp_path / "task"
    shutil.copytree(HARBOR_FIXTURES / CSV_AGGREGATION, copy)
    original = TaskDir(copy).environment_digest
    assert original == fixture_task(CSV_AGGREGATION).environment_digest

    (copy / "tests" / "test.sh").write_text("changed outside environment/")
    assert TaskDir(copy).environment_digest == original

    data = copy / "environment" / "workspace" / "sales.csv"
    data.chmod(0o755)
    assert TaskDir(copy).environment_digest != original
    data.chmod(0o644)
    data.write_text(data.read_text() + "west,widget,1,1.00\n")
    assert TaskDir(copy).environment_digest != original
