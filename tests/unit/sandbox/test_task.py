"""Reading a Harbor task directory: config, paths, workdir, the environment digest."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from harbor_tasks import CSV_AGGREGATION, HARBOR_FIXTURES, LOG_TRIAGE, fixture_task

from skill2env.sandbox.task import DEFAULT_WORKDIR, TaskDir, TaskFormatError, workdir_of


def test_the_fixture_config_is_read_with_its_limits_and_timeouts() -> None:
    config = fixture_task(CSV_AGGREGATION).config

    assert config.environment.cpus == 1 and config.environment.memory_mb == 512
    assert config.environment.storage_mb == 256 and config.environment.build_timeout_sec == 300
    assert config.agent.timeout_sec == 120 and config.verifier.timeout_sec == 60
    assert not config.network_enabled


def test_missing_sections_take_harbor_defaults_and_only_public_opens_the_network(tmp_path: Path) -> None:
    (tmp_path / "task.toml").write_text('[environment]\nnetwork_mode = "public"\n[metadata]\nanything = 1\n')

    config = TaskDir(tmp_path).config

    assert config.environment.memory_mb == 2048 and config.environment.cpus == 1
    assert config.network_enabled


def test_allow_internet_alone_does_not_open_the_network(tmp_path: Path) -> None:
    (tmp_path / "task.toml").write_text("[environment]\nallow_internet = true\n")

    assert not TaskDir(tmp_path).config.network_enabled


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
