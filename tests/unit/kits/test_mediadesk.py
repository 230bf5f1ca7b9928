"""The media desk kit: its solver earns full credit at every intensity, the naive baseline does not once
the traps are harmful, no expected answer shows in the workspace, and deliverables whose properties
are wrong (a rendition on its side, a short clip, a wrong status) lose credit."""

from __future__ import annotations

import csv
import io
import tempfile
from pathlib import Path

from kit_runs import materialize, python_shim, rollout, run_script, score

from skill2env.kits import KITS, kit_matches
from skill2env.kits.base import FULL_CREDIT
from skill2env.kits.mediadesk import AUDIO, KIT, RENDITION_INDEX, RENDITIONS, REPORT
from skill2env.kits.mediadesk.world import renditions
from skill2env.patterns.traits import SkillProfile
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.checks import check_draft
from skill2env.tasks.draft import TaskDraft

SKILL = SkillRef(skill_id="s-media", name="photo-batch", path="photo-batch")


def build(seed: int, patterns: dict[str, int]) -> TaskDraft:
    return KIT.build(seed, SKILL, "media", patterns)


def test_the_kit_is_registered() -> None:
    assert KITS["mediadesk"] is KIT
    assert len(KIT.patterns) >= 6


def test_the_naive_baseline_is_right_on_a_world_without_harmful_traps() -> None:
    benign = [seed for seed in range(12) if KIT.world(seed, {"gapless_sequence_continuation": 1})[0].tags == {}]
    assert benign
    reward, items, log = rollout(build(benign[0], {"gapless_sequence_continuation": 1}), KIT.naive_policy())
    assert reward >= FULL_CREDIT, (items, log)


def test_the_naive_baseline_stays_below_full_credit_with_every_pattern_on() -> None:
    for seed in (0, 1, 2):
        for level in (2, 3):
            draft = build(seed, dict.fromkeys(KIT.patterns, level))
            world, _ = KIT.world(seed, dict.fromkeys(KIT.patterns, level))
            reward, _, log = rollout(draft, KIT.naive_policy())
            assert "Traceback" not in log, log
            assert reward < FULL_CREDIT or not world.tags, (seed, level)


def test_no_expected_answer_is_readable_in_the_workspace() -> None:
    for seed in (0, 1, 2):
        draft = build(seed, dict.fromkeys(KIT.patterns, 3))
        assert check_draft(draft).leak.leaked == 0


def test_the_same_seed_gives_the_same_files() -> None:
    patterns = dict.fromkeys(KIT.patterns, 2)
    assert build(7, patterns).workspace == build(7, patterns).workspace


def _solved(draft: TaskDraft, root: Path) -> None:
    done = run_script(draft.solve_sh, root, python_shim(root.parent))
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_rendition_on_its_side_a_short_clip_or_a_wrong_status_loses_credit() -> None:
    from PIL import Image

    patterns = {"skill_script_gotcha": 3, "silent_partial_batch_failure": 3}
    draft = build(4, patterns)
    world, _ = KIT.world(4, patterns)
    names = renditions(world)
    with tempfile.TemporaryDirectory() as tmp:
        root = materialize(draft, Path(tmp) / "workspace")
        _solved(draft, root)
        reward, _ = score(draft.blueprint.rubric, root)
        assert reward >= FULL_CREDIT
        turned = sorted(world.tags["skill_script_gotcha"])[0]
        path = root / RENDITIONS / names[turned]
        with Image.open(path) as image:
            upside_down = image.transpose(Image.Transpose.ROTATE_180)
        upside_down.save(path, format="JPEG")
        clip = sorted(world.tags["silent_partial_batch_failure"])[0]
        stem = next(c.stem for c in world.clips if c.id == clip)
        batch = next((root / "batch").glob(f"*/out/{stem}.wav"))
        (root / AUDIO / f"{clip}.wav").write_bytes(batch.read_bytes())
        rows = list(csv.DictReader(io.StringIO((root / REPORT).read_text())))
        broken = next(p.id for p in world.photos if p.state == "broken")
        for row in rows:
            if row["id"] == broken:
                row["status"] = "ok"
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
        (root / REPORT).write_text(buffer.getvalue())
        reward, items = score(draft.blueprint.rubric, root)
        assert items[f"rendition.{turned.lower()}"] == 0.0
        assert items[f"audio.{clip.lower()}"] == 0.0
        assert items[f"report.{broken.lower()}"] == 0.0
        assert reward < FULL_CREDIT


def test_a_symlinked_or_unindexed_rendition_earns_nothing() -> None:
    draft = build(6, {"per_item_parameterisation": 1})
    world, _ = KIT.world(6, {"per_item_parameterisation": 1})
    item, name = next(iter(renditions(world).items()))
    with tempfile.TemporaryDirectory() as tmp:
        root = materialize(draft, Path(tmp) / "workspace")
        _solved(draft, root)
        target = root / RENDITIONS / name
        moved = Path(tmp) / "elsewhere.jpg"
        target.rename(moved)
        target.symlink_to(moved)
        _, items = score(draft.blueprint.rubric, root)
        assert items[f"rendition.{item.lower()}"] == 0.0
        target.unlink()
        moved.rename(target)
        index = (root / RENDITION_INDEX).read_text()
        (root / RENDITION_INDEX).write_text("\n".join(line for line in index.splitlines() if item not in line) + "\n")
        _, items = score(draft.blueprint.rubric, root)
        assert items[f"rendition.{item.lower()}"] == 0.0


def _skill(name: str, text: str, **fields: object) -> dict[str, object]:
    row: dict[str, object] = {"skill_id": f"sk-{name}", "path": f"skills/{name}", "domain": "media", "name": name,
                              "description": text, "skill_md_text": text, "languages": [], "programs": [],
                              "cli_tools": [], "dependency_names": [], "extensions": [], "file_kinds": []}  # fmt: skip
    return row | fields


def test_a_media_processing_skill_is_served_by_the_kit() -> None:
    photos = _skill(
        "photo-batch",
        "Batch-process a photo library with Pillow: read EXIF capture dates, fix image orientation, resize "
        "images to thumbnails, convert PNG to JPEG and check audio clips (WAV) for duration and sample rate.",
        dependency_names=["pillow"],
        extensions=["jpg", "png", "wav"],
    )
    assert kit_matches(SkillProfile.from_row(photos), KITS)[0].kit == "mediadesk"


def test_a_skill_that_only_mentions_an_image_is_not_served() -> None:
    invoices = _skill(
        "invoice-totals",
        "Reconcile invoices against the ledger in a spreadsheet and attach a screenshot image of the totals.",
        dependency_names=["openpyxl"],
        extensions=["xlsx", "csv"],
    )
    match = next(m for m in kit_matches(SkillProfile.from_row(invoices), KITS) if m.kit == "mediadesk")
    assert match.score == 0.0 and "the kit needs" in match.reason
