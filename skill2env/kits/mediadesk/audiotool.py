"""audiotool: the media desk's house tool for clips (shipped into the workspace as tools/audiotool.py).

    python3 tools/audiotool.py convert SRC DEST
    python3 tools/audiotool.py quick SRC DEST

Both write DEST as 16 kHz mono 16-bit PCM WAV. See tools/README.md for when to use which.
"""

from __future__ import annotations

import sys
import wave
from array import array
from pathlib import Path

RATE = 16000


def _read(src: Path) -> tuple[int, list[float]]:
    with wave.open(str(src), "rb") as clip:
        rate, channels, frames = clip.getframerate(), clip.getnchannels(), clip.getnframes()
        samples = array("h")
        samples.frombytes(clip.readframes(frames))
    return rate, [sum(samples[i * channels : (i + 1) * channels]) / channels for i in range(frames)]


def _write(dest: Path, mono: list[float]) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(dest), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(array("h", (round(v) for v in mono)).tobytes())


def convert(src: Path, dest: Path) -> None:
    """Resample by linear interpolation: any input rate, the duration kept."""
    rate, mono = _read(src)
    count = round(len(mono) * RATE / rate)
    last = len(mono) - 1
    out = []
    for i in range(count):
        t = i * rate / RATE
        j = min(int(t), last)
        k = min(j + 1, last)
        out.append(mono[j] + (mono[k] - mono[j]) * (t - j))
    _write(dest, out)


def quick(src: Path, dest: Path) -> None:
    """Keep every n-th sample (or repeat each n times), n the whole ratio of the rates."""
    rate, mono = _read(src)
    if rate >= RATE:
        step = max(1, round(rate / RATE))
        _write(dest, mono[::step])
    else:
        times = max(1, round(RATE / rate))
        _write(dest, [v for v in mono for _ in range(times)])


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[0] not in ("convert", "quick"):
        print(__doc__)
        return 2
    (convert if argv[0] == "convert" else quick)(Path(argv[1]), Path(argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
