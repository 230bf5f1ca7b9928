"""Reference solver for the media desk kit.

It reads the catalog, the house style (sizes and formats by use, the numbering rule), every number
issued so far (the ledger, the pending renditions' names, the retired numbers) and every library file
by its sha256; for each catalog photo it opens the file the hash names (wherever it is now), decodes it
completely or calls it corrupt, marks repeated bytes as duplicates, applies the EXIF orientation and
scales it to its use's long edge in its use's format, numbering the renditions in capture order after
the highest issued number. Each clip's batch output is checked (rate, channels, length, not silent)
and converted anew when it is wrong. The report gives every item's status, time, duration and source.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import wave
from array import array
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime

RATE = 16000


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def house_uses(style: str) -> dict[str, tuple[int, str, str]]:
    rows = re.findall(r"^\| (\w+) \| (\d+) \| (JPEG|PNG) \| (\w+) \|", style, re.M)
    return {use: (int(edge), fmt, ext) for use, edge, fmt, ext in rows}


def issued_numbers() -> list[int]:
    root = rt.workspace()
    numbers = [int(row["number"]) for row in csv.DictReader(io.StringIO(rt.read_text(root / "published/ledger.csv")))]
    numbers += [int(m.group(1)) for p in rt.files("published/pending/*") if (m := re.search(r"-(\d{4})\.", p.name))]
    retired = root / "published" / "RETIRED.md"
    if retired.exists():
        numbers += [int(n) for n in re.findall(r"^- (\d+)", rt.read_text(retired), re.M)]
    return numbers


def decode_photo(data: bytes) -> tuple[Any, str] | None:
    """The upright picture and its capture time, or None when the file does not decode completely."""
    from PIL import Image, ImageOps

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            taken = str(image.getexif().get_ifd(0x8769).get(0x9003, ""))
            upright = ImageOps.exif_transpose(image)
    except Exception:
        return None
    captured = re.sub(r"^(\d{4}):(\d{2}):(\d{2}) ", r"\1-\2-\3T", taken)
    return upright, captured


def scaled(image: Any, edge: int) -> Any:
    from PIL import Image

    width, height = image.size
    size = (edge, round(height * edge / width)) if width >= height else (round(width * edge / height), edge)
    return image.convert("RGB").resize(size, Image.Resampling.LANCZOS)


def wav_info(data: bytes) -> tuple[int, int, int, bytes]:
    with wave.open(io.BytesIO(data), "rb") as clip:
        return clip.getframerate(), clip.getnchannels(), clip.getnframes(), clip.readframes(clip.getnframes())


def converted(data: bytes) -> bytes:
    """The clip as 16 kHz mono 16-bit: channels averaged, linear interpolation."""
    rate, channels, frames, raw = wav_info(data)
    samples = array("h")
    samples.frombytes(raw)
    mono = [sum(samples[i * channels : (i + 1) * channels]) / channels for i in range(frames)]
    count = round(frames * RATE / rate)
    out = array("h")
    for i in range(count):
        t = i * rate / RATE
        j = min(int(t), frames - 1)
        k = min(j + 1, frames - 1)
        out.append(round(mono[j] + (mono[k] - mono[j]) * (t - j)))
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as target:
        target.setnchannels(1)
        target.setsampwidth(2)
        target.setframerate(RATE)
        target.writeframes(out.tobytes())
    return buffer.getvalue()


def batch_output_fits(data: bytes, source: bytes) -> bool:
    try:
        rate, channels, frames, raw = wav_info(data)
        src_rate, _, src_frames, _ = wav_info(source)
    except Exception:
        return False
    expected = round(src_frames * RATE / src_rate)
    loud = any(abs(int.from_bytes(raw[i : i + 2], "little", signed=True)) > 1000 for i in range(0, 4000, 2))
    return rate == RATE and channels == 1 and abs(frames - expected) <= 1 and len(raw) == frames * 2 and loud


def main() -> None:
    root = rt.workspace()
    catalog = list(csv.DictReader(io.StringIO(rt.read_text(root / "catalog.csv"))))
    style = rt.read_text(root / "HOUSE_STYLE.md")
    uses = house_uses(style)
    default = re.search(r"default use is\s+`(\w+)`", style)
    by_hash: dict[str, str] = {}
    for path in rt.files("library/**/*"):
        by_hash.setdefault(sha(path.read_bytes()), rt.rel(path))
    rows: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    rendered: list[tuple[str, str, Any, str]] = []
    for entry in catalog:
        if entry["kind"] != "photo":
            continue
        here = root / entry["path"]
        source = entry["path"] if here.is_file() and sha(here.read_bytes()) == entry["sha256"] else by_hash.get(
            entry["sha256"], entry["path"])  # fmt: skip
        data = (root / source).read_bytes()
        xmp = rt.read_text(root / "sidecars" / f"{entry['id']}.xmp")
        rating = re.search(r'xmp:Rating="(-?\d+)"', xmp)
        row = {"id": entry["id"], "status": "ok", "captured": "", "duration_s": "",
               "rating": rating.group(1) if rating else "", "source": source, "rendition": ""}  # fmt: skip
        rows[entry["id"]] = row
        decoded = decode_photo(data)
        if decoded is None:
            row["status"] = "corrupt"
        elif sha(data) in seen:
            row["status"] = "duplicate"
        else:
            row["captured"] = decoded[1]
            rendered.append(
                (decoded[1], entry["id"], decoded[0], entry["use"] or (default.group(1) if default else ""))
            )
        seen.add(sha(data))
    number = max(issued_numbers()) + 1
    for captured, item, image, use in sorted(rendered, key=lambda r: (r[0], r[1])):
        rows[item]["rendition"] = f"{captured[:10].replace('-', '')}-{number:04d}.{uses[use][2]}"
        rows[item]["image"], rows[item]["use"] = image, use
        number += 1
    clips: list[tuple[str, str, bytes]] = []
    batches = sorted(rt.files("batch/*/out/*.wav"), key=lambda p: rt.rel(p), reverse=True)
    for entry in catalog:
        if entry["kind"] != "audio":
            continue
        source = (root / entry["path"]).read_bytes()
        rate, _, frames, _ = wav_info(source)
        stem = entry["path"].rsplit("/", 1)[-1].rsplit(".", 1)[0]
        done = next((p.read_bytes() for p in batches if p.stem == stem), b"")
        clips.append(
            (entry["id"], f"{entry['id']}.wav", done if batch_output_fits(done, source) else converted(source))
        )
        side = json.loads(rt.read_text(root / "sidecars" / f"{entry['id']}.json"))
        rows[entry["id"]] = {"id": entry["id"], "status": "ok", "captured": side.get("recorded", ""),
                             "duration_s": f"{frames / rate:.3f}", "rating": side.get("rating", ""),
                             "source": entry["path"], "rendition": ""}  # fmt: skip
    header = ["id", "status", "captured", "duration_s", "rating", "source", "rendition"]
    rt.write_csv("report.csv", header, [[row[c] for c in header] for row in rows.values()])
    if rt.partial_mode():
        return
    index = []
    for item, row in rows.items():
        if row["rendition"]:
            edge, fmt, _ = uses[row["use"]]
            scaled(row["image"], edge).save(rt.out(f"renditions/{row['rendition']}"), format=fmt)
            index.append([item, row["rendition"]])
    rt.write_csv("renditions/index.csv", ["id", "file"], index)
    for _, name, data in clips:
        rt.out(f"audio/{name}").write_bytes(data)
    rt.write_csv("audio/index.csv", ["id", "file"], [[item, name] for item, name, _ in clips])


if __name__ == "__main__":
    main()
