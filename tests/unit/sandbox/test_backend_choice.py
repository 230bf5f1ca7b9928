"""No silent fallbacks: bwrap runs over the base image's file system or not at all, `auto` says
which backend it picks and why, and `sandbox doctor` shows it."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from harbor_tasks import CSV_AGGREGATION, fixture_task

from skill2env.sandbox import bwrap_backend, engine
from skill2env.sandbox.backends import choose_backend, make_sandbox, resolve_backend
from skill2env.sandbox.bwrap_backend import BwrapSandbox
from skill2env.sandbox.errors import SandboxNotRunning, SandboxUnavailable
from skill2env.sandbox.rootfs import COMPLETE_MARKER, CURRENT_LINK, image_rootfs, system_root
from skill2env.sandbox.task import TaskDir


@pytest.fixture
def no_rootfs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty rootfs cache (the setting the code reads), no configured root, bwrap installed."""
    cache = tmp_path / "rootfs-cache"
    monkeypatch.setenv("SKILL2ENV_ROOTFS_DIR", str(cache))
    monkeypatch.delenv("SKILL2ENV_BWRAP_SYSTEM", raising=False)
    monkeypatch.setattr(bwrap_backend, "bwrap_installed", lambda: True)
    return cache


def unpacked(cache: Path) -> Path:
    """A complete (if tiny) unpacked image under `cache`, made current as `export_base_rootfs` does."""
    image = cache / "0123456789abcdef"
    (image / "usr" / "bin").mkdir(parents=True)
    (image / COMPLETE_MARKER).write_text("skill2env-base:test\n")
    (cache / CURRENT_LINK).symlink_to(image.name)
    return image


def test_without_the_unpacked_image_there_is_no_system_root_and_the_error_says_what_to_run(no_rootfs: Path) -> None:
    assert image_rootfs() is None
    with pytest.raises(SandboxUnavailable) as raised:
        system_root()

    message = str(raised.value)
    assert str(no_rootfs / CURRENT_LINK / COMPLETE_MARKER) in message
    assert "make sandbox" in message and "skill2env sandbox build-base" in message
    assert not bwrap_backend.bwrap_available()


def test_a_forced_bwrap_sandbox_fails_to_start_without_it_and_never_runs_over_the_hosts_root(
    no_rootfs: Path, tmp_path: Path
) -> None:
    root = tmp_path / "rollouts"
    sandbox = make_sandbox("bwrap", root=root)

    with pytest.raises(SandboxUnavailable, match="make sandbox"):
        sandbox.start(fixture_task(CSV_AGGREGATION))

    assert sandbox.mode is None
    assert not root.exists()  # it stopped before making anything
    with pytest.raises(SandboxNotRunning):
        sandbox.exec("true")
    with pytest.raises(SandboxNotRunning):
        _ = sandbox.system  # type: ignore[attr-defined]


def test_the_unpacked_image_is_the_system_root_once_it_is_complete(no_rootfs: Path, tmp_path: Path) -> None:
    image = unpacked(no_rootfs)
    plain = tmp_path / "task"  # a task that only copies its files over the base image
    (plain / "environment").mkdir(parents=True)
    dockerfile = "FROM skill2env-base\nWORKDIR /workspace\nCOPY workspace/ /workspace/\n"
    (plain / "environment" / "Dockerfile").write_text(dockerfile)

    assert image_rootfs() == image.resolve() == system_root()
    assert bwrap_backend.bwrap_available()
    assert BwrapSandbox()._choose_system(TaskDir(plain)) == (image.resolve(), "image-rootfs")


def test_auto_without_a_rootfs_picks_docker_and_says_why(
    no_rootfs: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(engine, "engine_reachable", lambda: True)

    choice = choose_backend("auto")
    with caplog.at_level(logging.WARNING, logger="skill2env.sandbox.backends"):
        resolved = resolve_backend("auto")

    assert (choice.name, choice.fallback, resolved) == ("docker", True, "docker")
    assert str(no_rootfs / CURRENT_LINK / COMPLETE_MARKER) in choice.reason
    (record,) = [r for r in caplog.records if r.name == "skill2env.sandbox.backends"]
    assert record.levelno == logging.WARNING
    assert "docker" in record.getMessage() and "make sandbox" in record.getMessage()


def test_auto_with_a_rootfs_picks_bwrap_and_a_forced_backend_is_kept(
    no_rootfs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "engine_reachable", lambda: True)
    image = unpacked(no_rootfs)

    choice = choose_backend("auto")

    assert (choice.name, choice.fallback) == ("bwrap", False)
    assert str(image.resolve()) in choice.reason
    assert choose_backend("docker").name == "docker" and choose_backend("bwrap").name == "bwrap"
    with pytest.raises(ValueError, match="unknown sandbox backend"):
        choose_backend("podman")


def test_auto_with_neither_backend_fails_naming_both(no_rootfs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "engine_reachable", lambda: False)

    with pytest.raises(SandboxUnavailable) as raised:
        resolve_backend("auto")

    assert "Docker engine does not answer" in str(raised.value) and "make sandbox" in str(raised.value)


def test_doctor_says_which_backend_auto_runs_and_why(no_rootfs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_engine(**_: object) -> None:
        raise SandboxUnavailable("the Docker engine is not reachable (test); do something")

    monkeypatch.setattr(engine, "docker_client", no_engine)
    monkeypatch.setattr(engine, "engine_reachable", lambda: True)
    monkeypatch.setattr(engine, "_bwrap_runs", lambda: True)

    checks = {check.name: check for check in engine.doctor()}

    rootfs, auto = checks["bwrap file system"], checks["--backend auto"]
    assert not rootfs.ok and "skill2env sandbox build-base" in rootfs.fix
    assert auto.ok and auto.detail.startswith("runs docker (a fallback") and "is missing" in auto.detail

    unpacked(no_rootfs)
    checks = {check.name: check for check in engine.doctor()}
    assert checks["bwrap file system"].ok
    assert checks["--backend auto"].detail.startswith("runs bwrap: ")
