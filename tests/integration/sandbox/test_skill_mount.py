"""The skill folder is available, read-only, where the instruction says (bwrap: a copy, bound at the mount)."""

from __future__ import annotations

from pathlib import Path

import pytest
from task_samples import billing_draft, make_skill_dir

from skill2env.sandbox.backends import make_sandbox
from skill2env.sandbox.task import TaskDir
from skill2env.tasks.harbor import write_task_dir

pytestmark = [pytest.mark.integration, pytest.mark.bwrap]


def test_the_skill_is_readable_at_its_mount_and_not_writable(tmp_path: Path) -> None:
    draft = billing_draft()
    write_task_dir(draft, tmp_path / "task", skill_dir=make_skill_dir(tmp_path / "skills"))
    task = TaskDir(tmp_path / "task")
    mount = task.skill_mount
    assert mount == draft.blueprint.skill.mount
    with make_sandbox("bwrap") as sandbox:
        sandbox.start(task)
        listed = sandbox.exec(["ls", mount])
        written = sandbox.exec(["touch", f"{mount}/planted"])
    assert listed.ok and "SKILL.md" in listed.stdout
    assert not written.ok and "Read-only" in written.stderr
