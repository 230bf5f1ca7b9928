"""Workspace generators: what is collected from them, and (in bwrap) that they run offline and bounded."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from harbor_tasks import require_backend

from skill2env.tasks.generator import GeneratorError, GeneratorLimits, SandboxGeneratorRunner, collect_files


def test_regular_files_are_collected_by_relative_path(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "a.log").write_text("one\n")
    (tmp_path / "b.csv").write_bytes(b"x,y\n")
    assert collect_files(tmp_path, GeneratorLimits()) == {"b.csv": b"x,y\n", "logs/a.log": b"one\n"}


@pytest.mark.parametrize(
    ("make", "limits", "message"),
    [
        (lambda root: (root / "link").symlink_to("/etc/passwd"), GeneratorLimits(), "wrote a link (link)"),
        (lambda root: (root / "big").write_bytes(b"x" * 11), GeneratorLimits(max_file_bytes=10), "big is 11 bytes"),
        (lambda root: [(root / f"f{i}").write_text("x") for i in range(3)], GeneratorLimits(max_files=2),
         "more than 2 files"),
        (lambda root: [(root / f"f{i}").write_text("xxxx") for i in range(3)], GeneratorLimits(max_total_bytes=10),
         "more than 10 bytes"),
    ],
    ids=["link", "file-size", "file-count", "total-size"],
)  # fmt: skip
def test_what_the_limits_refuse_fails_the_run(
    tmp_path: Path, make: Callable[[Path], object], limits: GeneratorLimits, message: str
) -> None:
    make(tmp_path)
    with pytest.raises(GeneratorError, match=message.replace("(", r"\(").replace(")", r"\)")):
        collect_files(tmp_path, limits)


@pytest.mark.bwrap
def test_in_bwrap_a_generator_writes_its_workspace_offline() -> None:
    require_backend("bwrap")
    script = (
        "import pathlib, socket\n"
        "try:\n    socket.create_connection(('1.1.1.1', 80), timeout=2); net = 'online'\n"
        "except OSError:\n    net = 'offline'\n"
        "pathlib.Path('data').mkdir()\n"
        "pathlib.Path('data/state.txt').write_text(net + ' in ' + str(pathlib.Path.cwd()))\n"
    )
    assert SandboxGeneratorRunner().run(script) == {"data/state.txt": b"offline in /workspace"}


@pytest.mark.bwrap
@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("import time\ntime.sleep(30)\n", "ran past its 1 s limit"),
        ("import os\nos.symlink('/etc/shadow', 'shadow')\n", "wrote a link"),
        ("open('/etc/planted', 'w')\n", "(?s)exited with 1: .*Read-only file system"),
    ],
    ids=["timeout", "link", "outside-the-workspace"],
)
def test_in_bwrap_a_misbehaving_generator_fails(script: str, message: str) -> None:
    require_backend("bwrap")
    with pytest.raises(GeneratorError, match=message):
        SandboxGeneratorRunner(limits=GeneratorLimits(timeout_s=1)).run(script)
