"""World-kit tasks exported for Harbor, built without a lake: a kit's draft written as a stored task
(`write_task_dir`), then rewritten by the exporter's own `harbor_task_files` into its export folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from skill2env.kits import KITS
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.harbor import task_digest, write_task_dir
from skill2env.tasks.harbor_export import ExportIdentity, export_folder, harbor_task_files, read_files

EXPORTED_KITS = ("billing", "cleanroom", "incident", "configaudit")
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
    stored = root / "stored" / kit_name
    write_task_dir(draft, stored, skill_dir=skill)
    identity = ExportIdentity(task_name=draft.blueprint.task_name, task_digest=task_digest(stored))
    files = harbor_task_files(read_files(stored), identity)
    target = root / "export" / export_folder(files, identity)
    for name, data in sorted(files.items()):
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        executable = name.endswith(".sh") or bool((stored / name).exists() and (stored / name).stat().st_mode & 0o111)
        path.chmod(0o755 if executable else 0o644)
    return target


@pytest.fixture(scope="session")
def kit_exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The exported task directory of each kit in EXPORTED_KITS, by kit name."""
    root = tmp_path_factory.mktemp("harbor-exports")
    return {name: export_kit_task(name, root) for name in EXPORTED_KITS}
