#!/usr/bin/env python3
"""Triage a folder of photos and audio clips: inspect, find damage and duplicates, propose names.

For every file under the folder (sorted, recursively):

  - type by magic bytes, not by extension: PNG, JPEG, WAV (others: "unsupported")
  - PNG: width/height from IHDR, capture time from the tIME chunk, chunk CRCs and IEND
  - JPEG: width/height from the SOF marker, EOI marker at the end
  - WAV: channels, sample rate, duration; data chunk shorter than declared = truncated;
         recording date from the LIST/INFO ICRD chunk
  - capture time falls back to a camera-style file name (IMG_20240501_101500,
    2024-05-01 10.15.00); otherwise the file is "undated" (file mtimes are not trusted)
  - sha256 of the bytes; later copies (in path order) are duplicates of the first

Proposed name: YYYYMMDD_HHMMSS_<photo|audio>.<ext> (lower-case extension, jpeg -> jpg),
with _2, _3 ... when two files share a second; undated files keep their name under
undated/. Standard library only.

Exit codes: 0 nothing damaged, 1 corrupt files found, 2 usage or input error.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import struct
import sys
import wave
import zlib
from datetime import datetime
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_CORRUPT, EXIT_USAGE = 0, 1, 2
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
NAME_DATE = re.compile(r"(20\d\d|19\d\d)[-_.]?([01]\d)[-_.]?([0-3]\d)[ _T-]?([0-2]\d)[-_.:]?([0-5]\d)[-_.:]?([0-5]\d)")
EXT_OF = {"png": "png", "jpeg": "jpg", "wav": "wav"}
KIND_OF = {"png": "photo", "jpeg": "photo", "wav": "audio"}


class InputError(Exception):
    """The input folder is missing or unusable."""


class Damaged(Exception):
    """The file is truncated or corrupt."""


def sniff(head: bytes) -> str | None:
    if head.startswith(PNG_MAGIC):
        return "png"
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "wav"
    return None


def inspect_png(data: bytes) -> dict[str, Any]:
    pos, info, seen_end = 8, {}, False
    while pos < len(data):
        if pos + 8 > len(data):
            raise Damaged(f"truncated chunk header at byte {pos}")
        length, ctype = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        crc = data[pos + 8 + length : pos + 12 + length]
        if len(body) < length or len(crc) < 4:
            raise Damaged(f"chunk {ctype.decode('latin-1')} truncated at byte {pos}")
        if zlib.crc32(ctype + body) != struct.unpack(">I", crc)[0]:
            raise Damaged(f"chunk {ctype.decode('latin-1')} fails its CRC")
        if ctype == b"IHDR":
            info["width"], info["height"] = struct.unpack(">II", body[:8])
        elif ctype == b"tIME" and length == 7:
            y, mo, d, h, mi, s = struct.unpack(">HBBBBB", body)
            info["captured"], info["date_source"] = datetime(y, mo, d, h, mi, s), "png tIME"
        elif ctype == b"IEND":
            seen_end = True
            break
        pos += 12 + length
    if "width" not in info:
        raise Damaged("no IHDR chunk")
    if not seen_end:
        raise Damaged("no IEND chunk (file truncated)")
    return info


def inspect_jpeg(data: bytes) -> dict[str, Any]:
    pos, info = 2, {}
    while pos + 4 <= len(data) and "width" not in info:
        if data[pos] != 0xFF:
            raise Damaged(f"bad marker at byte {pos}")
        marker = data[pos + 1]
        length = struct.unpack(">H", data[pos + 2 : pos + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            info["height"], info["width"] = struct.unpack(">HH", data[pos + 5 : pos + 9])
        pos += 2 + length
    if "width" not in info:
        raise Damaged("no frame header (SOF) found")
    if not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
        raise Damaged("no end-of-image marker (file truncated)")
    return info


def riff_chunks(data: bytes) -> dict[bytes, bytes]:
    chunks, pos = {}, 12
    while pos + 8 <= len(data):
        cid, size = struct.unpack("<4sI", data[pos : pos + 8])
        chunks.setdefault(cid, data[pos + 8 : pos + 8 + size])
        if cid == b"data" and pos + 8 + size > len(data):
            raise Damaged(f"data chunk declares {size} bytes, {len(data) - pos - 8} present (file truncated)")
        pos += 8 + size + (size & 1)
    return chunks


def inspect_wav(path: Path, data: bytes) -> dict[str, Any]:
    chunks = riff_chunks(data)
    try:
        with wave.open(str(path), "rb") as wav:
            frames, rate = wav.getnframes(), wav.getframerate()
            info: dict[str, Any] = {"channels": wav.getnchannels(), "sample_rate": rate}
    except (wave.Error, EOFError) as exc:
        raise Damaged(f"unreadable WAV: {exc}") from exc
    info["duration_s"] = round(frames / rate, 3) if rate else 0.0
    listing = chunks.get(b"LIST", b"")
    if listing[:4] == b"INFO":
        pos = 4
        while pos + 8 <= len(listing):
            sid, size = struct.unpack("<4sI", listing[pos : pos + 8])
            if sid == b"ICRD":
                raw = listing[pos + 8 : pos + 8 + size].rstrip(b"\x00").decode("ascii", "replace")
                try:
                    info["captured"] = datetime.fromisoformat(raw.strip())
                    info["date_source"] = "wav ICRD"
                except ValueError:
                    pass
            pos += 8 + size + (size & 1)
    return info


def date_from_name(name: str) -> datetime | None:
    match = NAME_DATE.search(name)
    if not match:
        return None
    try:
        return datetime(*(int(g) for g in match.groups()))  # type: ignore[arg-type]
    except ValueError:
        return None


def triage(folder: Path) -> dict[str, Any]:
    files, first_of_hash = [], {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")):
        rel = path.relative_to(folder).as_posix()
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        entry: dict[str, Any] = {"path": rel, "size": len(data), "sha256": digest, "type": sniff(data[:16])}
        if entry["type"] is None:
            entry["status"] = "unsupported"
            files.append(entry)
            continue
        try:
            if entry["type"] == "png":
                entry.update(inspect_png(data))
            elif entry["type"] == "jpeg":
                entry.update(inspect_jpeg(data))
            else:
                entry.update(inspect_wav(path, data))
            entry["status"] = "ok"
        except Damaged as exc:
            entry["status"], entry["problem"] = "corrupt", str(exc)
        if "captured" not in entry and (named := date_from_name(path.stem)):
            entry["captured"], entry["date_source"] = named, "file name"
        if entry["status"] == "ok" and digest in first_of_hash:
            entry["status"], entry["duplicate_of"] = "duplicate", first_of_hash[digest]
        elif entry["status"] == "ok":
            first_of_hash[digest] = rel
        files.append(entry)
    taken: set[str] = set()
    for entry in files:
        if entry["status"] != "ok":
            continue
        captured = entry.get("captured")
        if captured is None:
            entry["proposed_name"] = f"undated/{Path(entry['path']).name}"
            continue
        base = f"{captured:%Y%m%d_%H%M%S}_{KIND_OF[entry['type']]}"
        name, n = f"{base}.{EXT_OF[entry['type']]}", 1
        while name in taken:
            n += 1
            name = f"{base}_{n}.{EXT_OF[entry['type']]}"
        taken.add(name)
        entry["proposed_name"] = name
    for entry in files:
        if "captured" in entry:
            entry["captured"] = entry["captured"].isoformat()
    statuses = [e["status"] for e in files]
    return {
        "folder": str(folder),
        "files": files,
        "summary": {s: statuses.count(s) for s in ("ok", "duplicate", "corrupt", "unsupported")},
    }


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Inspect a folder of photos (PNG, JPEG) and audio clips (WAV): damage, duplicates, names.",
        epilog="Exit codes: 0 nothing damaged, 1 corrupt files found, 2 usage or input error.",
    )
    parser.add_argument("folder", type=Path, help="folder to triage (read only)")
    parser.add_argument("--report", type=Path, help="write the JSON report here (default: stdout)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if not args.folder.is_dir():
            raise InputError(f"media folder not found: {args.folder}")
        report = triage(args.folder)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    text = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(text, encoding="utf-8")
        s = report["summary"]
        print(f"{len(report['files'])} files: {s['ok']} ok, {s['duplicate']} duplicate, "
              f"{s['corrupt']} corrupt, {s['unsupported']} unsupported -> {args.report}")  # fmt: skip
    else:
        sys.stdout.write(text)
    return EXIT_CORRUPT if report["summary"]["corrupt"] else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
