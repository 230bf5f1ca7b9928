"""bwrap never reads the host's `/`: it runs over the unpacked base image, or refuses to start."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from harbor_tasks import CSV_AGGREGATION, fixture_task, require_backend

from skill2env.sandbox.base import SandboxLimits
from skill2env.sandbox.bwrap_backend import BwrapSandbox
from skill2env.sandbox.errors import SandboxUnavailable
from skill2env.sandbox.rootfs import image_rootfs

pytestmark = [pytest.mark.integration, pytest.mark.bwrap]

LIMITS = SandboxLimits(storage_mb=64)


@pytest.fixture
def host_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A file made on the host under /usr (a directory every sandbox binds from its system root)
    at a path only the host has; removed afterwards."""
    monkeypatch.delenv("SKILL2ENV_BWRAP_SYSTEM", raising=False)
    require_backend("bwrap")
    image = image_rootfs()
    assert image is not None, "the unpacked base image is missing: run `make sandbox`"
    path = Path("/usr/local/lib") / f"skill2env-host-only-{uuid.uuid4().hex}"
    assert not (image / path.relative_to("/")).exists()
    path.write_text("the host's own\n")
    try:
        yield str(path)
    finally:
        path.unlink()


def test_a_file_only_the_host_has_is_not_visible_inside_the_sandbox(host_only: str) -> None:
    sandbox = BwrapSandbox(LIMITS)
    sandbox.start(fixture_task(CSV_AGGREGATION))
    try:
        seen = sandbox.exec(f"test -e {host_only} && echo visible || echo absent")
        seen_by_root = sandbox.exec(f"test -e {host_only} && echo visible || echo absent", user="root")
        debian = sandbox.exec("cat /etc/debian_version")
    finally:
        sandbox.stop()

    assert sandbox.mode == "bwrap:image-rootfs"
    assert (seen.stdout, seen_by_root.stdout) == ("absent\n", "absent\n")
    assert debian.stdout == (image_rootfs() / "etc" / "debian_version").read_text()  # type: ignore[operator]


def test_over_the_hosts_root_given_explicitly_the_same_file_is_visible_and_the_mode_says_so(
    host_only: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The control: the check above would see the file if the sandbox ran over the host's `/`."""
    sandbox = BwrapSandbox(LIMITS, system=Path("/"))
    with caplog.at_level(logging.WARNING, logger="skill2env.sandbox.bwrap_backend"):
        sandbox.start(fixture_task(CSV_AGGREGATION))
    try:
        seen = sandbox.exec(f"cat {host_only}")
    finally:
        sandbox.stop()

    assert seen.stdout == "the host's own\n"
    assert sandbox.mode == "bwrap:host-root"
    assert any("runs over the host's /" in record.getMessage() for record in caplog.records)


def test_without_the_unpacked_image_a_forced_bwrap_sandbox_fails_saying_what_to_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_backend("bwrap")
    monkeypatch.setenv("SKILL2ENV_ROOTFS_DIR", str(tmp_path / "nothing-unpacked"))
    monkeypatch.delenv("SKILL2ENV_BWRAP_SYSTEM", raising=False)
    sandbox = BwrapSandbox(LIMITS, root=tmp_path / "rollouts")

    with pytest.raises(SandboxUnavailable) as raised:
        sandbox.start(fixture_task(CSV_AGGREGATION))

    assert "make sandbox" in str(raised.value) and "skill2env sandbox build-base" in str(raised.value)
    assert str(tmp_path / "nothing-unpacked") in str(raised.value)
    assert sandbox.mode is None and not (tmp_path / "rollouts").exists()
