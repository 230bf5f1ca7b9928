"""Kit 9: media library triage.

A media desk's library (JPEG and PNG photos with EXIF capture times, cameras and orientations, WAV
clips, XMP and JSON sidecars), its catalog with content hashes, the log and outputs of a nightly audio
batch, the ledger of published renditions, a house style guide and the house photo and audio tools,
with traps: a moved file beside look-alikes, photos stored turned, per-item sizes and formats,
truncated files the tool calls `OK~`, a batch that failed quietly, batch outputs overwritten by
same-named clips, a late clip the quick converter mangles, sequence numbers issued outside the
ledger → upright,
sized, sequentially named renditions, house-format audio clips and a per-item report, whose files'
properties (format, pixel size, which way up, sample rate, duration) the checks open and measure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from skill2env.kits.base import Kit
from skill2env.kits.mediadesk.docs import CATALOG, LEDGER, STYLE, TOOL_README, batch_dir, render_world
from skill2env.kits.mediadesk.patterns import PATTERNS, TRANSFORMERS
from skill2env.kits.mediadesk.world import AUDIO_RATE, MARKER, World, generate, renditions, status, target
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item
from skill2env.patterns.models import InformationLevel, Trait
from skill2env.rubric import CheckSpec

RENDITIONS = "output/renditions/"
AUDIO = "output/audio/"
REPORT = "output/report.csv"
RENDITION_INDEX = RENDITIONS + "index.csv"
AUDIO_INDEX = AUDIO + "index.csv"
COLUMNS = ("id", "status", "captured", "duration_s", "rating", "source", "rendition")
DURATION_TOLERANCE = 0.01
CHECK_SOURCE = (Path(__file__).parent / "mediacheck.py").read_text(encoding="utf-8")


class MediaDeskKit(Kit):
    name = "mediadesk"
    title = "Media library triage"
    formats = ("jpeg", "png", "wav", "xmp", "json", "csv", "markdown", "python")
    patterns = PATTERNS
    traits: ClassVar[Mapping[Trait, float]] = {
        Trait.MEDIA: 1.5,
        Trait.CLI_TOOLS: 0.1,
        Trait.STRUCTURED_DATA: 0.1,
    }
    requires: ClassVar[Mapping[Trait, float]] = {Trait.MEDIA: 0.4}
    """More than a mention of an image: image or audio files, or a media library, as the skill's material."""
    tool_patterns: ClassVar[Mapping[Trait, str]] = {
        Trait.MEDIA: "skill_script_gotcha",
        Trait.CLI_TOOLS: "documented_output_semantics",
        Trait.STRUCTURED_DATA: "per_item_parameterisation",
        Trait.PERSISTENT_STATE: "gapless_sequence_continuation",
        Trait.MULTI_FILE_WORKSPACE: "relocated_referenced_file",
    }
    starters = (
        "skill_script_gotcha",
        "relocated_referenced_file",
        "per_item_parameterisation",
        "silent_partial_batch_failure",
        "documented_output_semantics",
    )
    solver_module = "skill2env.kits.mediadesk.solver"
    naive_module = "skill2env.kits.mediadesk.naive"

    transformers = TRANSFORMERS

    def generate_world(self, seed: int, salt: int) -> World:
        return generate(seed, salt)

    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        world, design = self.world(seed, patterns, salt)
        composition = Composition(
            title="Triage the media library and deliver its renditions, clips and report",
            goal="Render every catalog photo and deliver every clip in the house style, with a per-item report "
            "of status, capture time, duration and source.",
            body=instruction_body(world),
            workspace=render_world(world),
            facts=[],
            challenges=[],
            deliverables=[
                (
                    REPORT,
                    "csv",
                    "one row per catalog item: status, capture time, duration, rating, source file and rendition",
                    0.35,
                ),
                (
                    RENDITION_INDEX,
                    "csv",
                    "the renditions delivered beside it (upright, sized and named by the "
                    "house style), one row per rendition",
                    0.4,
                ),
                (AUDIO_INDEX, "csv", "the clips delivered beside it in the house audio format, one row per clip", 0.25),
            ],
            items=[],
        )
        found = InformationLevel.DISCOVERABLE
        composition.fact("catalog.items", "the catalog's items and hashes", found, world.photos[0].id, location=CATALOG)
        composition.fact("style.rules", "the house style", found, "YYYYMMDD", location=STYLE)
        composition.fact("tool.readme", "the house tool's documentation", found, "OK~", location=TOOL_README)
        composition.fact("published.ledger", "the published renditions", found, world.ledger[-1][1], location=LEDGER)
        composition.fact(
            "batch.log", "the nightly batch's log", found, world.batch_day, location=f"{batch_dir(world)}convert.log"
        )
        composition.plant(design)
        for pattern_id, level in patterns.items():
            composition.challenges.append(
                ChallengeSpec(pattern_id, level, design.forms[pattern_id], design.facts_of(pattern_id))
            )
        composition.items = items(world, design, patterns)
        return composition


def instruction_body(world: World) -> str:
    return f"""The media desk's library is in `library/`, listed in `{CATALOG}` (id, kind, path, use, sha256).
`{STYLE}` is the house style; `sidecars/` holds each item's ratings and captions; `tools/mediatool.py`
is the house photo tool (see `{TOOL_README}`); `{batch_dir(world)}` is last night's audio batch run and
`{LEDGER}` lists the renditions published so far.

1. `{RENDITIONS}`: one rendition per catalog photo that can be rendered, made, sized, turned and named
   exactly as the house style says, and `{RENDITION_INDEX}` with columns `id,file` (one row per
   rendition: the photo's catalog id and the rendition's file name). Nothing else in that folder.
2. `{AUDIO}`: every catalog clip as `<id>.wav` in the house audio format, and `{AUDIO_INDEX}` with
   columns `id,file` (one row per clip).
3. `{REPORT}`: columns `{",".join(COLUMNS)}`, one row per catalog item (photos and clips):
   `status` is `ok`, `corrupt` or `duplicate`; `captured` the capture time as `YYYY-MM-DDTHH:MM:SS`
   (photos: EXIF `DateTimeOriginal`; clips: the sidecar's `recorded`), for `ok` items; `duration_s` the
   clip's duration in seconds with three decimals (clips only); `rating` the sidecar's rating; `source`
   the workspace path of the file the item was read from; `rendition` the rendition's file name (empty
   when there is none).
"""


def mediacheck(kind: str, **args: Any) -> CheckSpec:
    return CheckSpec(
        check="python", params={"source": CHECK_SOURCE, "function": "check", "args": {"kind": kind, **args}}
    )


def linked(world: World, patterns: Mapping[str, int], item_id: str) -> tuple[str, ...]:
    return tuple(p for p in patterns if item_id in world.tags.get(p, set()))


def facts_of(design: Design, pattern_ids: tuple[str, ...], default: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f for p in pattern_ids for f in design.facts_of(p)) or default


def items(world: World, design: Design, patterns: Mapping[str, int]) -> list[Item]:
    names = renditions(world)
    sequence = ("gapless_sequence_continuation",) if "gapless_sequence_continuation" in patterns else ()
    result: list[Item] = []
    for photo in world.photos:
        if photo.id not in names:
            continue
        width, height, fmt = target(photo)
        tied = linked(world, patterns, photo.id)
        result.append(
            Item(
                f"rendition.{photo.id.lower()}",
                f"The rendition of {photo.id} is an upright {fmt} of {width}x{height} made from the catalog's file.",
                RENDITION_INDEX,
                mediacheck(
                    "rendition",
                    index=RENDITION_INDEX,
                    id=photo.id,
                    folder=RENDITIONS,
                    name=names[photo.id],
                    width=width,
                    height=height,
                    format=fmt,
                    base=list(photo.base),
                    marker=list(MARKER),
                ),
                {"name": names[photo.id], "size": [width, height], "format": fmt},
                facts_of(design, tied, ("style.rules", "catalog.items")),
                "The file whose sha256 the catalog gives, orientation applied, scaled to its use's long edge, "
                "named by capture date and the next free sequence number.",
                patterns=(*tied, *sequence),
            )
        )
    withheld = tuple(p for p in ("documented_output_semantics",) if p in patterns)
    result.append(
        Item(
            "renditions.only",
            "The renditions folder holds exactly the renditions of the photos that can be rendered.",
            RENDITION_INDEX,
            mediacheck("only", folder=RENDITIONS, names=sorted([*names.values(), "index.csv"])),
            sorted(names.values()),
            ("style.rules", "tool.readme"),
            "Corrupt (unreadable or truncated) and duplicate photos get no rendition.",
            patterns=(*withheld, *sequence),
        )
    )
    for clip in world.clips:
        tied = linked(world, patterns, clip.id)
        batch = tuple(p for p in ("silent_partial_batch_failure",) if p in patterns and not tied)
        result.append(
            Item(
                f"audio.{clip.id.lower()}",
                f"{clip.id} is delivered as a {AUDIO_RATE} Hz mono 16-bit WAV of the clip's duration.",
                AUDIO_INDEX,
                mediacheck(
                    "audio",
                    index=AUDIO_INDEX,
                    id=clip.id,
                    folder=AUDIO,
                    name=f"{clip.id}.wav",
                    rate=AUDIO_RATE,
                    duration=clip.duration,
                    tolerance=DURATION_TOLERANCE,
                ),
                {"rate": AUDIO_RATE, "duration": clip.duration},
                facts_of(design, tied, ("style.rules", "batch.log")),
                "The clip converted to the house format; a batch output is reused only when it is right.",
                patterns=tied or batch,
            )
        )
    for photo in world.photos:
        state = status(photo)
        values: dict[str, Any] = {"status": state, "rendition": names.get(photo.id, "")}
        if state == "ok":
            values |= {
                "captured": f"{photo.captured:%Y-%m-%dT%H:%M:%S}",
                "rating": photo.rating,
                "source": photo.location,
                "duration_s": "",
            }
        tied = linked(world, patterns, photo.id)
        result.append(report_item(photo.id, values, design, tied, sequence))
    for clip in world.clips:
        values = {
            "status": "ok",
            "captured": f"{clip.recorded:%Y-%m-%dT%H:%M:%S}",
            "duration_s": clip.duration,
            "rating": clip.rating,
            "source": clip.path,
            "rendition": "",
        }
        result.append(report_item(clip.id, values, design, (), ()))
    checked = {p for item in result for p in item.patterns}
    quiet = tuple(p for p in patterns if p not in checked)
    return [replace(i, patterns=(*i.patterns, *quiet)) if i.id == "renditions.only" else i for i in result]


def report_item(
    item_id: str, values: dict[str, Any], design: Design, tied: tuple[str, ...], sequence: tuple[str, ...]
) -> Item:
    return Item(
        f"report.{item_id.lower()}",
        f"The report's row for {item_id} gives its status, capture time, duration, rating, source and rendition.",
        REPORT,
        mediacheck("report", report=REPORT, id=item_id, row=values, tolerance=DURATION_TOLERANCE),
        values,
        facts_of(design, tied, ("catalog.items", "style.rules")),
        "The item's file (found by its sha256), its EXIF or sidecar, and the rendition it was given.",
        patterns=(*tied, *(sequence if values.get("rendition") else ())),
    )


KIT = MediaDeskKit()
