"""World-kit tasks exported for Harbor, built without a lake: a kit's draft put into a task store
(`TaskStore.put_draft`), then exported by the exporter itself (`export_tasks`, one folder per version)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skill2env.kits import KITS
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.export import by_task_version, export_tasks
from skill2env.tasks.store import TaskStore

EXPORTED_KITS = tuple(KITS)
"""Every world kit: an export any kit writes must score in Harbor itself."""
SEED = 1


def export_kit_task(kit_name: str, root: Path) -> Path:
    """Kit `kit_name` at SEED with every pattern once, stored then exported; the export's directory."""
    kit = KITS[kit_name]
    draft = kit.build(SEED, SkillRef(skill_id="s", name="demo", path="demo"), "office-documents",
                      dict.fromkeys(kit.patterns, 1))  # fmt: skip
    skill = root / "skill"
    if not skill.is_dir():
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text("---\nname: demo\ndescription: A demo skill.\n---\n# Demo\n")
    store = TaskStore(root / "home")
    stored = store.put_draft(draft, skill_dir=skill)
    row = {"task_id": f"{draft.blueprint.task_name}-i0", "task_name": draft.blueprint.task_name, "iteration": 0,
           "task_digest": stored.digest, "store_path": stored.relative_path}  # fmt: skip
    [exported] = export_tasks([row], store, root / "export", folder=by_task_version)
    return exported.path


@pytest.fixture(scope="session")
def kit_exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The exported task directory of each kit in EXPORTED_KITS, by kit name."""
    root = tmp_path_factory.mktemp("harbor-exports")
    return {name: export_kit_task(name, root) for name in EXPORTED_KITS}
