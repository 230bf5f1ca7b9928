"""The rubric's checks of the media desk's deliverables (standard library and Pillow only).

The verifier runs this file as the inline source of a `python` check: `check(workspace, args)` with
`args["kind"]` one of

* `rendition`: the `index` (CSV) row of `id` names the file `name`, and `folder/name` is an image in
  `format` of `width` x `height` pixels (the short edge within one pixel) whose top-left holds the
  marker colour and whose centre and bottom-right hold the photo's colour (so it is upright and made
  from the right file);
* `only`: the regular files in `folder` are exactly `names`;
* `audio`: the `index` row of `id` names the file `name`, and `folder/name` is a WAV of `rate` Hz, one
  channel, 16-bit, lasting `duration` seconds (within `tolerance`) and not silent;
* `report`: the row of `report` (CSV) whose `id` is `id` holds every value of `row`
  (`duration_s` within `tolerance`; text compared trimmed, case ignored).

Every workspace file is treated as hostile: sizes are capped, links are never followed, any error is a
failed item.
"""

from __future__ import annotations

import csv
import io
import os
import stat
import wave
from pathlib import Path
from typing import Any

MAX_BYTES = 8 << 20
MAX_PIXELS = 4_000_000
MAX_FRAMES = 48000 * 30
COLOUR_TOLERANCE = 60


def _regular(workspace: Path, relative: str) -> Path | None:
    """The file at `relative` when it and every folder above it are real (no link), else None."""
    if relative.startswith("/") or ".." in relative.split("/"):
        return None
    path = workspace
    for part in [p for p in relative.split("/") if p]:
        path = path / part
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            return None
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
        return None
    return path


def _read(workspace: Path, relative: str) -> bytes | None:
    path = _regular(workspace, relative)
    if path is None:
        return None
    with open(path, "rb") as handle:  # noqa: PTH123 - one bounded read of a checked regular file
        return handle.read(MAX_BYTES + 1)[:MAX_BYTES]


def _near(pixel: Any, colour: list[int]) -> bool:
    if not isinstance(pixel, tuple) or len(pixel) < len(colour):
        return False
    return all(abs(int(a) - int(b)) <= COLOUR_TOLERANCE for a, b in zip(pixel, colour, strict=False))


def _row(workspace: Path, relative: str, item: str) -> dict[str, str] | None:
    """The one row of a CSV whose `id` is `item` (None when there is not exactly one)."""
    data = _read(workspace, relative)
    if data is None:
        return None
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig", errors="replace"))))
    mine = [row for row in rows if str(row.get("id") or "").strip() == item]
    return mine[0] if len(mine) == 1 else None


def _indexed(workspace: Path, args: dict[str, Any]) -> bytes | None:
    """The bytes of the file the index names for the item, when it names the expected one."""
    row = _row(workspace, args["index"], args["id"])
    if row is None or str(row.get("file") or "").strip() != args["name"]:
        return None
    return _read(workspace, f"{args['folder']}{args['name']}")


def rendition(workspace: Path, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    from PIL import Image

    data = _indexed(workspace, args)
    if data is None:
        return False, {"reason": "not indexed under the expected name, or no such regular file"}
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    with Image.open(io.BytesIO(data)) as image:
        if image.width * image.height > MAX_PIXELS:
            return False, {"reason": "too large"}
        fmt, size = image.format, image.size
        image.load()
        rgb = image.convert("RGB")
    width, height = size
    shape = (width, height) == (args["width"], args["height"]) or (
        abs(width - args["width"]) <= 1 and abs(height - args["height"]) <= 1 and args["width"] != args["height"]
    )
    samples = {
        "top_left": rgb.getpixel((width // 8, height // 8)),
        "centre": rgb.getpixel((width // 2, height * 3 // 5)),
        "bottom_right": rgb.getpixel((width * 7 // 8, height * 7 // 8)),
    }
    ok = (
        fmt == args["format"]
        and shape
        and _near(samples["top_left"], args["marker"])
        and _near(samples["centre"], args["base"])
        and _near(samples["bottom_right"], args["base"])
    )
    return ok, {"format": fmt, "size": [width, height], "samples": {k: str(v) for k, v in samples.items()}}


def only(workspace: Path, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    folder = _regular_dir(workspace, args["folder"])
    if folder is None:
        return False, {"reason": "no such folder"}
    found = []
    with os.scandir(folder) as entries:
        for n, entry in enumerate(entries):
            if n > 1000:
                return False, {"reason": "too many files"}
            if entry.is_file(follow_symlinks=False):
                found.append(entry.name)
    return sorted(found) == sorted(args["names"]), {"found": sorted(found)[:50]}


def _regular_dir(workspace: Path, relative: str) -> Path | None:
    path = workspace
    for part in [p for p in relative.split("/") if p]:
        if part == "..":
            return None
        path = path / part
        if stat.S_ISLNK(os.lstat(path).st_mode):
            return None
    return path if stat.S_ISDIR(os.lstat(path).st_mode) else None


def audio(workspace: Path, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    data = _indexed(workspace, args)
    if data is None:
        return False, {"reason": "not indexed under the expected name, or no such regular file"}
    with wave.open(io.BytesIO(data), "rb") as clip:
        rate, channels, width, frames = clip.getframerate(), clip.getnchannels(), clip.getsampwidth(), clip.getnframes()
        samples = clip.readframes(min(frames, MAX_FRAMES))
    got = len(samples) // max(1, channels * width)
    duration = got / rate if rate else 0.0
    loud = width == 2 and any(abs(int.from_bytes(samples[i : i + 2], "little", signed=True)) > 1000
                              for i in range(0, min(len(samples), 4000), 2))  # fmt: skip
    ok = (
        rate == args["rate"]
        and channels == 1
        and width == 2
        and got == frames
        and abs(duration - float(args["duration"])) <= float(args["tolerance"])
        and loud
    )
    return ok, {"rate": rate, "channels": channels, "width": width, "duration": round(duration, 4)}


def report(workspace: Path, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    row = _row(workspace, args["report"], args["id"])
    if row is None:
        return False, {"reason": "no report, or not one row for the id"}
    wrong = {}
    for column, expected in args["row"].items():
        got = str(row.get(column) or "").strip()
        if column == "duration_s" and expected != "":
            try:
                fine = abs(float(got) - float(expected)) <= float(args["tolerance"])
            except ValueError:
                fine = False
        else:
            fine = got.lower() == str(expected).lower()
        if not fine:
            wrong[column] = got[:80]
    return not wrong, {"wrong": wrong}


KINDS = {"rendition": rendition, "only": only, "audio": audio, "report": report}


def check(workspace: Path, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    try:
        return KINDS[args["kind"]](workspace, args)
    except Exception as error:
        return False, {"reason": f"{type(error).__name__}: {str(error)[:200]}"}
