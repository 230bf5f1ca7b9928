"""Which leftovers are orphans, and reaping bwrap rollout directories."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from skill2env.sandbox.base import owner_token
from skill2env.sandbox.labels import DEADLINE_LABEL, OWNER_LABEL
from skill2env.sandbox.reaper import OWNER_FILE, is_orphan, reap_bwrap, remove_rollout_dir

DEAD_OWNER = "another-boot:1:1"


def test_a_live_owner_within_its_deadline_is_not_an_orphan() -> None:
    assert not is_orphan({OWNER_LABEL: owner_token(), DEADLINE_LABEL: str(int(time.time()) + 60)})


def test_a_dead_owner_or_a_long_past_deadline_makes_an_orphan() -> None:
    assert is_orphan({OWNER_LABEL: DEAD_OWNER, DEADLINE_LABEL: str(int(time.time()) + 60)})
    assert is_orphan({OWNER_LABEL: owner_token(), DEADLINE_LABEL: str(int(time.time()) - 3600)})
    assert is_orphan({})


def test_reap_bwrap_removes_dead_owners_and_keeps_live_and_fresh_ones(tmp_path: Path) -> None:
    for name, owner in {"live": owner_token(), "dead": DEAD_OWNER}.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / OWNER_FILE).write_text(owner)
        (tmp_path / name / "fs").mkdir()
    (tmp_path / "fresh-unowned").mkdir()
    stale = tmp_path / "stale-unowned"
    stale.mkdir()
    os.utime(stale, (time.time() - 3600, time.time() - 3600))

    report = reap_bwrap(tmp_path)

    assert sorted(report.workspaces) == ["dead", "stale-unowned"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh-unowned", "live"]


def test_reap_bwrap_on_a_missing_root_does_nothing(tmp_path: Path) -> None:
    assert reap_bwrap(tmp_path / "absent").workspaces == []


def test_a_rollout_directory_deeper_than_pythons_recursion_limit_is_removed(tmp_path: Path) -> None:
    rollout = tmp_path / "rollout"
    subprocess.run(["mkdir", "-p", str(rollout / "/".join(["d"] * 1400))], check=True)

    remove_rollout_dir(rollout)

    assert not rollout.exists()
