"""Naive baseline for the media desk kit: it runs the house tool the obvious way. Each catalog photo is
looked for at its catalog path, else by its file name anywhere in the library (the first match, or
the first file starting with its name), probed with the tool (only `ERR` counts as corrupt), compared
with earlier files for duplicates, and rendered with the tool at the default use's size without
`--auto-orient`, numbered after the ledger's last number. The clips are the batch's outputs (by source
file name), copied as they are; a clip the batch has no output for goes through the audio tool's `quick` converter."""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import io
import json
import re
import shutil
import wave

from skill2env.kits.runtime import rt  # kit-runtime


def stem_of(path: str) -> str:
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[0]


def main() -> None:
    root = rt.workspace()
    spec = importlib.util.spec_from_file_location("mediatool", root / "tools" / "mediatool.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    audio_spec = importlib.util.spec_from_file_location("audiotool", root / "tools" / "audiotool.py")
    assert audio_spec is not None and audio_spec.loader is not None
    audio_tool = importlib.util.module_from_spec(audio_spec)
    audio_spec.loader.exec_module(audio_tool)
    catalog = list(csv.DictReader(io.StringIO(rt.read_text(root / "catalog.csv"))))
    style = rt.read_text(root / "HOUSE_STYLE.md")
    default = re.search(r"default use is\s+`(\w+)`", style)
    use = default.group(1) if default else "web"
    row = re.search(rf"^\| {use} \| (\d+) \| (JPEG|PNG) \| (\w+) \|", style, re.M)
    edge, fmt, ext = (int(row.group(1)), row.group(2), row.group(3)) if row else (160, "JPEG", "jpg")
    ledger = csv.DictReader(io.StringIO(rt.read_text(root / "published" / "ledger.csv")))
    number = max(int(r["number"]) for r in ledger) + 1
    library = rt.files("library/**/*")
    rows, seen, rendered = {}, set(), []
    for entry in catalog:
        if entry["kind"] != "photo":
            continue
        name = entry["path"].rsplit("/", 1)[-1]
        stem = name.rsplit(".", 1)[0]
        if (root / entry["path"]).is_file():
            path = root / entry["path"]
        else:
            path = next((p for p in library if p.name == name), None) or next(
                (p for p in library if p.name.startswith(stem)), root / entry["path"])  # fmt: skip
        rating = re.search(r'xmp:Rating="(-?\d+)"', rt.read_text(root / "sidecars" / f"{entry['id']}.xmp"))
        probe = tool.probe(path)
        data = path.read_bytes() if path.is_file() else b""
        digest = hashlib.sha256(data).hexdigest()
        status = "corrupt" if probe["status"] == "ERR" else "duplicate" if digest in seen else "ok"
        seen.add(digest)
        captured = re.sub(r"^(\d{4}):(\d{2}):(\d{2}) ", r"\1-\2-\3T", probe["captured"]) if status == "ok" else ""
        rows[entry["id"]] = {"id": entry["id"], "status": status, "captured": captured, "duration_s": "",
                             "rating": rating.group(1) if rating else "", "source": rt.rel(path) if path.is_file()
                             else entry["path"], "rendition": ""}  # fmt: skip
        if status == "ok":
            rendered.append((captured, entry["id"], path))
    index: list[list[str]] = []
    for captured, item, path in sorted(rendered, key=lambda r: (r[0], r[1])):
        name = f"{captured[:10].replace('-', '')}-{number:04d}.{ext}"
        tool.rendition(path, rt.out(f"renditions/{name}"), edge, fmt=fmt)
        rows[item]["rendition"] = name
        index.append([item, name])
        number += 1
    rt.write_csv("renditions/index.csv", ["id", "file"], index)
    clips: list[list[str]] = []
    for entry in catalog:
        if entry["kind"] != "audio":
            continue
        batch = next((p for p in rt.files("batch/*/out/*.wav") if p.stem == stem_of(entry["path"])), None)
        if batch is not None:
            shutil.copyfile(batch, rt.out(f"audio/{entry['id']}.wav"))
        else:
            audio_tool.quick(root / entry["path"], rt.out(f"audio/{entry['id']}.wav"))
        clips.append([entry["id"], f"{entry['id']}.wav"])
        with wave.open(str(root / entry["path"]), "rb") as clip:
            duration = clip.getnframes() / clip.getframerate()
        side = json.loads(rt.read_text(root / "sidecars" / f"{entry['id']}.json"))
        rows[entry["id"]] = {"id": entry["id"], "status": "ok", "captured": side.get("recorded", ""),
                             "duration_s": f"{duration:.3f}", "rating": side.get("rating", ""),
                             "source": entry["path"], "rendition": ""}  # fmt: skip
    rt.write_csv("audio/index.csv", ["id", "file"], clips)
    header = ["id", "status", "captured", "duration_s", "rating", "source", "rendition"]
    rt.write_csv("report.csv", header, [[r[c] for c in header] for r in rows.values()])


if __name__ == "__main__":
    main()
