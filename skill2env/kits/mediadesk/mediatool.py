"""mediatool: the media desk's house tool for photos (shipped into the workspace as tools/mediatool.py).

    python3 tools/mediatool.py probe FILE...
    python3 tools/mediatool.py rendition SRC DEST --long-edge N [--format JPEG|PNG] [--auto-orient]

`probe` prints one tab-separated line per file: path, status, stored size, orientation, capture time.
`rendition` scales a photo so its long edge is N pixels and saves it. See tools/README.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

EXIF_IFD = 0x8769
DATE_TIME_ORIGINAL = 0x9003
ORIENTATION = 0x0112


def probe(path: Path) -> dict[str, Any]:
    """What the tool reports about one file (see README for the statuses)."""
    from PIL import Image, ImageFile

    result: dict[str, Any] = {"path": str(path), "status": "ERR", "size": "", "orientation": "", "captured": ""}
    try:
        with Image.open(path) as image:
            exif = image.getexif()
            result["size"] = f"{image.width}x{image.height}"
            result["orientation"] = str(exif.get(ORIENTATION, 1))
            taken = exif.get_ifd(EXIF_IFD).get(DATE_TIME_ORIGINAL, "")
            result["captured"] = str(taken)
            try:
                image.load()
                result["status"] = "OK"
            except OSError:
                ImageFile.LOAD_TRUNCATED_IMAGES = True
                try:
                    with Image.open(path) as again:
                        again.load()
                    result["status"] = "OK~"
                finally:
                    ImageFile.LOAD_TRUNCATED_IMAGES = False
    except Exception:
        result["status"] = "ERR"
    return result


def rendition(src: Path, dest: Path, long_edge: int, *, fmt: str = "JPEG", auto_orient: bool = False) -> None:
    """Scale `src` so its long edge is `long_edge` pixels and save it to `dest` as `fmt`."""
    from PIL import Image, ImageFile, ImageOps

    ImageFile.LOAD_TRUNCATED_IMAGES = True
    with Image.open(src) as opened:
        image = ImageOps.exif_transpose(opened) if auto_orient else opened.copy()
    width, height = image.size
    if width >= height:
        size = (long_edge, round(height * long_edge / width))
    else:
        size = (round(width * long_edge / height), long_edge)
    image = image.convert("RGB").resize(size, Image.Resampling.LANCZOS)
    dest.parent.mkdir(parents=True, exist_ok=True)
    image.save(dest, format=fmt)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="mediatool")
    commands = parser.add_subparsers(dest="command", required=True)
    probing = commands.add_parser("probe")
    probing.add_argument("files", nargs="+", type=Path)
    making = commands.add_parser("rendition")
    making.add_argument("src", type=Path)
    making.add_argument("dest", type=Path)
    making.add_argument("--long-edge", type=int, required=True)
    making.add_argument("--format", default="JPEG", choices=("JPEG", "PNG"))
    making.add_argument("--auto-orient", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "probe":
        for path in args.files:
            found = probe(path)
            print("\t".join(str(found[k]) for k in ("path", "status", "size", "orientation", "captured")))
        return 0
    rendition(args.src, args.dest, args.long_edge, fmt=args.format, auto_orient=args.auto_orient)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
