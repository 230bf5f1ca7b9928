"""Pattern transformers of the media desk kit: each plants one designed trap at intensity 1-3.

Every transformer first draws whether its trap is benign this time (the trap's material is there but
touches nothing the deliverables depend on, so the obvious reading happens to be right): likely at
intensity 1, less so at 2, never at 3.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta

from skill2env.kits.mediadesk.world import CLIP_CAPTIONS, Clip, Photo, World
from skill2env.kits.spec import Design

Transformer = Callable[[World, int, random.Random, Design], None]
BENIGN = {1: 0.8, 2: 0.55, 3: 0.0}
STYLE = "HOUSE_STYLE.md"
TOOL_README = "tools/README.md"
MOVED = "library/_moved/2024-cleanup/"


def harmful(level: int, rng: random.Random) -> bool:
    return rng.random() >= BENIGN[level]


def chosen(world: World, rng: random.Random, count: int, pattern: str) -> list[Photo]:
    pool = world.plain()
    picked = rng.sample(pool, min(count, len(pool)))
    for photo in picked:
        world.tag(pattern, photo.id)
    return picked


def _name(photo: Photo) -> tuple[str, str]:
    base = photo.path.rsplit("/", 1)[1]
    stem, extension = base.rsplit(".", 1)
    return stem, extension


def relocated_referenced_file(world: World, level: int, rng: random.Random, design: Design) -> None:
    pattern = "relocated_referenced_file"
    if not harmful(level, rng):
        photo = rng.choice(world.plain())
        stem, extension = _name(photo)
        draft = f"library/_drafts/{stem}_draft.{extension}"
        photo.lookalikes.append((draft, world.colour(world.colours())))
        design.plant(pattern, f"draft.{photo.id}", "an earlier draft of a catalog photo", None, draft)
    else:
        forms = {1: ["same-name"], 2: ["renamed"], 3: ["same-name", "renamed"]}[level]
        for photo, form in zip(chosen(world, rng, len(forms), pattern), forms, strict=False):
            stem, extension = _name(photo)
            if form == "same-name":
                photo.stored = f"{MOVED}{stem}.{extension}"
                photo.lookalikes.append((f"library/_archive/{stem}.{extension}", world.colour(world.colours())))
            else:
                photo.stored = f"{MOVED}{stem}_final.{extension}"
                photo.lookalikes.append((f"{MOVED}{stem}_draft.{extension}", world.colour(world.colours())))
            design.plant(pattern, f"moved.{photo.id}", "a catalog photo is no longer at its catalog path",
                         None, photo.stored)  # fmt: skip
    design.forms[pattern] = {
        1: "A catalog photo was moved to a cleanup folder under its own name; an older edit with the same "
        "name sits in another folder. Only the catalog's sha256 tells them apart.",
        2: "A catalog photo was moved and renamed (…_final); a draft with a different picture sits beside it.",
        3: "Two catalog photos moved, one under its own name beside a same-named old edit, one renamed beside a draft.",
    }[level]


def skill_script_gotcha(world: World, level: int, rng: random.Random, design: Design) -> None:
    pattern = "skill_script_gotcha"
    if harmful(level, rng):
        turns = {1: [rng.choice((6, 8))], 2: [3], 3: [6, 8]}[level]
        for photo, turn in zip(chosen(world, rng, len(turns), pattern), turns, strict=False):
            photo.orientation = turn
            design.plant(pattern, f"orientation.{photo.id}", "a photo is stored turned (EXIF orientation)",
                         None, photo.location)  # fmt: skip
    design.plant(pattern, "tool.caveat", "the house tool applies no EXIF orientation unless asked", "--auto-orient",
                 TOOL_README)  # fmt: skip
    design.forms[pattern] = {
        1: "A photo was taken with the camera turned (EXIF orientation 6 or 8); the house tool renders it on "
        "its side unless told to auto-orient (a caveat in its README).",
        2: "A photo is stored upside down (EXIF orientation 3): its size looks right either way.",
        3: "Two photos are stored turned, one each way (orientations 6 and 8).",
    }[level]


def per_item_parameterisation(world: World, level: int, rng: random.Random, design: Design) -> None:
    pattern = "per_item_parameterisation"
    uses = {1: ["thumb"], 2: ["archive"], 3: ["square", "archive"]}[level]
    if harmful(level, rng):
        for photo, use in zip(chosen(world, rng, len(uses), pattern), uses, strict=False):
            photo.use = use
            design.plant(
                pattern, f"use.{photo.id}", "a photo's use asks for another size or format", use, "catalog.csv"
            )
    else:
        idle = [p for p in world.photos if p.state != "ok" or p.duplicate_of]
        rng.choice(idle).use = uses[0]
    design.plant(pattern, "style.uses", "the house style sizes renditions by use", "use", STYLE)
    design.forms[pattern] = {
        1: "One photo's catalog use is `thumb` (a smaller long edge than the default).",
        2: "One photo's use is `archive`: another size and PNG, so another extension too.",
        3: "Two photos have non-default uses (`square` and `archive`).",
    }[level]


def documented_output_semantics(world: World, level: int, rng: random.Random, design: Design) -> None:
    pattern = "documented_output_semantics"
    if harmful(level, rng):
        for _ in range({1: 1, 2: 1, 3: 2}[level]):
            photo = world.new_photo("PH", state="truncated")
            photo.fmt = "JPEG"
            photo.path = photo.path.rsplit(".", 1)[0] + ".jpg"
            world.photos.insert(rng.randint(0, len(world.photos)), photo)
            world.tag(pattern, photo.id)
            design.plant(pattern, f"truncated.{photo.id}", "a catalog photo's data ends early", None, photo.path)
    else:
        stray = world.new_photo("PH", state="truncated")
        stray.fmt = "JPEG"
        stray.path = f"library/_incoming/{stray.path.rsplit('/', 1)[1].rsplit('.', 1)[0]}.jpg"
        world.strays.append(stray)
    design.plant(pattern, "tool.statuses", "the house tool's probe statuses", "OK~", TOOL_README)
    design.forms[pattern] = {
        1: "A catalog photo is truncated: the house tool's probe says `OK~` (defined in its README as an "
        "incomplete picture), which reads like OK.",
        2: "As level 1, the truncated photo somewhere in the middle of the capture order.",
        3: "Two catalog photos are truncated.",
    }[level]


def silent_partial_batch_failure(world: World, level: int, rng: random.Random, design: Design) -> None:
    pattern = "silent_partial_batch_failure"
    clips = list(world.clips)
    rng.shuffle(clips)
    if harmful(level, rng):
        failures = {1: ["empty"], 2: ["short"], 3: ["short", "rate"]}[level]
        for clip, failure in zip(clips, failures, strict=False):
            if failure == "rate" and clip.rate == 16000:
                clip.rate, clip.frames = 22050, int(22050 * clip.frames / 16000)
            clip.batch = failure
            world.tag(pattern, clip.id)
            design.plant(pattern, f"batch.{clip.id}", "the nightly batch failed on a clip and said so only in "
                         "a WARN line", clip.id, f"batch/{world.batch_day}/convert.log")  # fmt: skip
    else:
        world.batch_notes.append((clips[0].id, "sidecar has no caption; tags not written"))
        design.plant(pattern, "batch.notes", "the batch log has a harmless warning", clips[0].id,
                     f"batch/{world.batch_day}/convert.log")  # fmt: skip
    design.forms[pattern] = {
        1: "The nightly batch logged a WARN for one clip and left an empty output, yet ends 'Done: N files processed'.",
        2: "One batch output is a valid WAV of half the clip's length (a read error logged as a WARN).",
        3: "Two batch outputs are wrong: one short, one copied at its original sample rate.",
    }[level]


def gapless_sequence_continuation(world: World, level: int, rng: random.Random, design: Design) -> None:
    pattern = "gapless_sequence_continuation"
    last = max(n for n, _, _ in world.ledger)
    if harmful(level, rng):
        world.pending = {1: [last + 1, last + 2], 2: [], 3: [last + 1]}[level]
        world.retired = {1: [], 2: [last + 1, last + 2], 3: [rng.randint(3, last - 2), last + 2, last + 3]}[level]
        world.tag(pattern, "sequence")
    else:
        world.pending = [last]
        world.retired = [rng.randint(3, last - 2)]
    where = "published/pending/" if world.pending else "published/RETIRED.md"
    design.plant(pattern, "sequence.issued", "numbers issued outside the ledger", None, where)  # fmt: skip
    design.forms[pattern] = {
        1: "Two renditions waiting in published/pending/ already hold the numbers after the ledger's last.",
        2: "The two numbers after the ledger's last were retired (published/RETIRED.md): never reuse them.",
        3: "One pending rendition and retired numbers above the ledger's last; the next number is above them all.",
    }[level]


def output_overwrite_hazard(world: World, level: int, rng: random.Random, design: Design) -> None:
    pattern = "output_overwrite_hazard"
    folders = ("broll", "interviews", "field")
    batched = [clip for clip in world.clips if clip.in_batch]
    victims = rng.sample(batched, {1: 1, 2: 1, 3: 2}[level]) if harmful(level, rng) else []
    for n, victim in enumerate(victims or [rng.choice(batched)]):
        stem = victim.stem if victims else f"{victim.stem}b"
        while True:
            frames = int(victim.rate * rng.uniform(0.6, 1.6))
            if abs(frames / victim.rate - victim.duration) > 0.15:
                break
        number = len(world.clips)
        clip = Clip(f"AU-{rng.randint(100, 999)}{number}", f"library/audio/{folders[n]}/{stem}.wav", victim.rate,
                    rng.choice((1, 2)), frames, rng.choice((330, 550)), victim.recorded + timedelta(minutes=17 + n),
                    rng.randint(1, 5), rng.choice(CLIP_CAPTIONS))  # fmt: skip
        world.clips.append(clip)
        if victims:
            world.tag(pattern, victim.id)
            if level >= 2:
                world.clips.remove(clip)
                world.clips.insert(world.clips.index(victim) + 1, clip)
        design.plant(pattern, f"same-name.{clip.id}", "two clips share a file name in different folders", stem,
                     "catalog.csv")  # fmt: skip
    design.plant(pattern, "batch.names", "the batch names its outputs after the source file", "out/", STYLE)
    design.forms[pattern] = {
        1: "Two clips in different folders share a file name; the batch wrote both to the same output, the "
        "later overwriting the earlier (its log shows both written there).",
        2: "As level 1, the two clips listed next to each other.",
        3: "Two clips were overwritten that way.",
    }[level]


def choose_between_documented_tools(world: World, level: int, rng: random.Random, design: Design) -> None:
    pattern = "choose_between_documented_tools"
    if harmful(level, rng):
        rates = {1: [(22050, 1)], 2: [(11025, 2)], 3: [(22050, 2), (11025, 1)]}[level]
    else:
        rates = [(rng.choice((8000, 16000)), rng.choice((1, 2)))]
    for rate, channels in rates:
        number = len(world.clips)
        clip = Clip(f"AU-{rng.randint(100, 999)}{number}", f"library/audio/late/take-{rng.randint(10, 99)}{number}.wav",
                    rate, channels, int(rate * rng.uniform(0.6, 1.4)), rng.choice((220, 440, 660)),
                    max(c.recorded for c in world.clips) + timedelta(hours=rng.randint(2, 30)), rng.randint(1, 5),
                    rng.choice(CLIP_CAPTIONS), in_batch=False)  # fmt: skip
        world.clips.append(clip)
        if rate % 16000 and 16000 % rate:
            world.tag(pattern, clip.id)
        design.plant(pattern, f"late.{clip.id}", "a clip recorded after the nightly batch ran", clip.id, "catalog.csv")
    design.plant(pattern, "tool.converters", "the audio tool's two converters and when each fits", "quick",
                 TOOL_README)  # fmt: skip
    design.forms[pattern] = {
        1: "A clip recorded after the batch (22.05 kHz) must be converted by hand; the audio tool's `quick` "
        "converter runs without error but is exact only for whole-ratio rates, `convert` fits.",
        2: "As level 1, the late clip 11.025 kHz stereo.",
        3: "Two late clips at rates `quick` cannot handle.",
    }[level]


TRANSFORMERS: dict[str, Transformer] = {
    "relocated_referenced_file": relocated_referenced_file,
    "skill_script_gotcha": skill_script_gotcha,
    "per_item_parameterisation": per_item_parameterisation,
    "documented_output_semantics": documented_output_semantics,
    "silent_partial_batch_failure": silent_partial_batch_failure,
    "gapless_sequence_continuation": gapless_sequence_continuation,
    "choose_between_documented_tools": choose_between_documented_tools,
    "output_overwrite_hazard": output_overwrite_hazard,
}
PATTERNS = tuple(TRANSFORMERS)
