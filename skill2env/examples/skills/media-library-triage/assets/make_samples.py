#!/usr/bin/env python3
"""Rebuild the sample inbox used by SKILL.md (deterministic bytes, standard library only).

inbox/IMG_20240501_101500.png   4x3 photo, date only in the camera-style file name
inbox/beach.png                 8x6 photo with a PNG tIME chunk (2024-05-02 09:30:00)
inbox/old/beach copy.png        byte-identical copy of beach.png
inbox/broken.png                beach.png cut short (no IEND)
inbox/interview.wav             0.25 s mono 8 kHz clip with an ICRD date (2024-05-03 14:00:00)
inbox/voice memo.wav            clip whose data chunk is shorter than declared
inbox/clip_0042.wav             0.5 s stereo clip with no date anywhere
inbox/notes.txt                 not media
"""

import struct
import zlib
from pathlib import Path

INBOX = Path(__file__).resolve().parent / "inbox"


def chunk(ctype: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + ctype + body + struct.pack(">I", zlib.crc32(ctype + body))


def png(width: int, height: int, shade: int, stamp: tuple[int, ...] | None = None) -> bytes:
    rows = b"".join(b"\x00" + bytes((shade + 7 * x + 11 * y) % 256 for x in range(width * 3)) for y in range(height))
    parts = [b"\x89PNG\r\n\x1a\n", chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))]
    if stamp:
        parts.append(chunk(b"tIME", struct.pack(">HBBBBB", *stamp)))
    parts += [chunk(b"IDAT", zlib.compress(rows, 9)), chunk(b"IEND", b"")]
    return b"".join(parts)


def wav(rate: int, channels: int, frames: int, date: str | None = None, short_by: int = 0) -> bytes:
    samples = bytes((128 + (i * 13) % 64) for i in range(frames * channels))
    fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * channels, channels, 8)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    if date:
        text = date.encode() + b"\x00"
        text += b"\x00" * (len(text) & 1)
        info = b"INFO" + b"ICRD" + struct.pack("<I", len(text)) + text
        body += b"LIST" + struct.pack("<I", len(info)) + info
    body += b"data" + struct.pack("<I", len(samples)) + samples[: len(samples) - short_by]
    return b"RIFF" + struct.pack("<I", len(body)) + body


def main() -> None:
    (INBOX / "old").mkdir(parents=True, exist_ok=True)
    beach = png(8, 6, 90, (2024, 5, 2, 9, 30, 0))
    files = {
        "IMG_20240501_101500.png": png(4, 3, 30),
        "beach.png": beach,
        "old/beach copy.png": beach,
        "broken.png": beach[:-30],
        "interview.wav": wav(8000, 1, 2000, "2024-05-03 14:00:00"),
        "voice memo.wav": wav(8000, 1, 2000, short_by=700),
        "clip_0042.wav": wav(8000, 2, 4000),
        "notes.txt": b"Shot list for the May shoot: beach, interview, b-roll.\n",
    }
    for name, data in files.items():
        (INBOX / name).write_bytes(data)


if __name__ == "__main__":
    main()
