"""Render the media library: the catalog, the photos and clips, their sidecars, the nightly audio
batch (outputs and log), the published sequence (ledger, pending renditions, retired numbers), the
house style guide and the house tool with its README."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from xml.sax.saxutils import escape

from skill2env.kits import render as r
from skill2env.kits.mediadesk.media import clip_bytes, converted_bytes, photo_bytes, rendition_bytes
from skill2env.kits.mediadesk.world import AUDIO_RATE, DEFAULT_USE, USES, Photo, World
from skill2env.kits.spec import Workspace

CATALOG = "catalog.csv"
STYLE = "HOUSE_STYLE.md"
TOOL = "tools/mediatool.py"
AUDIO_TOOL = "tools/audiotool.py"
TOOL_README = "tools/README.md"
LEDGER = "published/ledger.csv"
PENDING = "published/pending/"
RETIRED = "published/RETIRED.md"
TOOL_SOURCE = (Path(__file__).parent / "mediatool.py").read_text(encoding="utf-8")
AUDIO_TOOL_SOURCE = (Path(__file__).parent / "audiotool.py").read_text(encoding="utf-8")


def batch_dir(world: World) -> str:
    return f"batch/{world.batch_day}/"


def sidecar_xmp(photo: Photo) -> str:
    return (
        '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>\n'
        '<x:xmpmeta xmlns:x="adobe:ns:meta/">\n'
        ' <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n'
        '  <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"\n'
        f'    xmlns:dc="http://purl.org/dc/elements/1.1/" xmp:Rating="{photo.rating}">\n'
        f'   <dc:description><rdf:Alt><rdf:li xml:lang="x-default">{escape(photo.caption)}</rdf:li></rdf:Alt>'
        "</dc:description>\n"
        "  </rdf:Description>\n"
        " </rdf:RDF>\n"
        "</x:xmpmeta>\n"
        '<?xpacket end="w"?>\n'
    )


def photo_files(world: World) -> dict[str, bytes]:
    """Every photo file of the library by path: catalog files where they are now, duplicates as
    copies of their originals' bytes, look-alikes and strays."""
    files: dict[str, bytes] = {}
    by_id = {p.id: p for p in world.photos}
    for photo in world.photos:
        if photo.state == "broken":
            noise = photo.id.encode() * 40
            files[photo.location] = b"\x00\x17" + hashlib.sha256(noise).digest() * 60
        elif photo.duplicate_of:
            files[photo.location] = photo_bytes(by_id[photo.duplicate_of])
        else:
            files[photo.location] = photo_bytes(photo)
        for path, colour in photo.lookalikes:
            files[path] = photo_bytes(photo, colour)
    for stray in world.strays:
        files[stray.location] = photo_bytes(stray)
    return files


def catalog(world: World, files: dict[str, bytes]) -> bytes:
    rows: list[list[object]] = []
    for photo in world.photos:
        digest = hashlib.sha256(files[photo.location]).hexdigest()
        rows.append([photo.id, "photo", photo.path, photo.use, digest])
    for clip in world.clips:
        rows.append([clip.id, "audio", clip.path, "", hashlib.sha256(clip_bytes(clip)).hexdigest()])
    return r.csv_bytes(["id", "kind", "path", "use", "sha256"], rows)


def batch_log(world: World) -> str:
    day = world.batch_day
    batched = [clip for clip in world.clips if clip.in_batch]
    lines = [f"{day} 02:00:01 INFO start: {len(batched)} clips -> {AUDIO_RATE} Hz mono s16le"]
    notes = dict(world.batch_notes)
    for n, clip in enumerate(batched):
        stamp = f"{day} 02:00:{n * 2 + 3:02d}"
        out = f"out/{clip.stem}.wav"
        if clip.batch == "empty":
            lines.append(f"{stamp} WARN {clip.id} resampler error (unsupported input layout); skipped")
        elif clip.batch == "short":
            lines.append(f"{stamp} WARN {clip.id} read error at input offset; output may be incomplete")
        elif clip.batch == "rate":
            lines.append(f"{stamp} WARN {clip.id} {clip.rate} Hz input not in the resampler table; copied as is")
        if clip.id in notes:
            lines.append(f"{stamp} WARN {clip.id} {notes[clip.id]}")
        lines.append(f"{stamp} INFO {clip.id} {clip.path} -> {out}")
    lines.append(f"{day} 02:00:{len(batched) * 2 + 4:02d} INFO Done: {len(batched)} files processed")
    return "\n".join(lines) + "\n"


def style_guide(world: World) -> str:
    uses = r.markdown_table(
        ["use", "long edge (px)", "format", "extension"],
        [[use, edge, fmt, "png" if fmt == "PNG" else "jpg"] for use, (edge, fmt) in USES.items()],
    )
    return f"""# Media desk house style

## Photo renditions

Every catalog photo gets one rendition in `output/renditions/`, made from the file whose bytes the
catalog's `sha256` names.

- **Upright.** The rendition's pixels are the picture as it is meant to be seen: any EXIF orientation of
  the original is applied to the pixels (a rendition carries no rotation for a viewer to apply).
- **Size and format by use.** The catalog's `use` column says what a photo is for; the default use is
  `{DEFAULT_USE}`. The long edge is scaled to exactly the size below, the short edge in proportion
  (rounded to the nearest pixel); never crop.

{uses}
- **Name.** `<YYYYMMDD>-<NNNN>.<extension>`: the capture date (EXIF `DateTimeOriginal`) and a four-digit
  sequence number.
- **Numbering.** Rendition numbers are one sequence that never restarts, repeats or skips. New renditions
  take consecutive numbers after the highest number ever issued, in order of capture time (earliest
  first; equal times by catalog id). Issued numbers are recorded in `{LEDGER}` (published renditions),
  in the file names under `{PENDING}` (renditions waiting for upload) and in `{RETIRED}` (numbers that
  were withdrawn; they are never issued again).

## What is not rendered

- A file that does not decode completely (unreadable, or its data ends early) is `corrupt`.
- A file whose bytes repeat those of a photo listed earlier in the catalog is a `duplicate`.

Neither gets a rendition.

## Audio

Delivered clips are WAV, {AUDIO_RATE} Hz, mono, 16-bit PCM, with the original's duration, named
`output/audio/<id>.wav`. The nightly batch (`batch/<date>/`, see its `convert.log`) converts the clips
in this format, each to `out/<source file name>.wav`; its outputs may be reused where they are right. A
clip the batch has no output for is converted with the house audio tool (`{AUDIO_TOOL}`, see `{TOOL_README}`).

## Sidecars

`sidecars/<id>.xmp` (photos: `xmp:Rating`, `dc:description`) and `sidecars/<id>.json` (clips:
`recorded`, `rating`, `caption`) hold what the desk knows about an item.
"""


def tool_readme() -> str:
    return f"""# House tools

- `{TOOL}`: photos (probe, renditions).
- `{AUDIO_TOOL}`: clips (conversion to the house audio format).

# mediatool

The desk's house tool for photos (`{TOOL}`, Python 3 with Pillow). Import it or run it.

## probe

    python3 {TOOL} probe FILE...

One tab-separated line per file: path, status, stored size (`WxH`, as the pixels are stored), EXIF
orientation, EXIF capture time (`DateTimeOriginal`).

Statuses:

| status | meaning |
|---|---|
| `OK` | the file decodes completely |
| `OK~` | decodes only with the truncation workaround: the data ends early, the rest is filled grey |
| `ERR` | the file cannot be decoded |

## rendition

    python3 {TOOL} rendition SRC DEST --long-edge N [--format JPEG|PNG] [--auto-orient]

Scales the photo so its long edge is N pixels (the short edge in proportion) and saves it as JPEG (or
PNG).

### Caveats

- Without `--auto-orient` the pixels are used as stored: the EXIF orientation is **not** applied, and the
  output carries no orientation tag, so a photo taken with the camera turned comes out on its side.
- Truncated files are rendered with the missing part grey (the tool does not refuse them).

# audiotool

    python3 {AUDIO_TOOL} convert SRC DEST
    python3 {AUDIO_TOOL} quick SRC DEST

Both write DEST as {AUDIO_RATE} Hz mono 16-bit PCM (channels averaged); import the module to call
`convert(src, dest)` or `quick(src, dest)`.

- `convert` resamples by interpolation: any input rate, the duration kept. Slower.
- `quick` keeps every n-th sample (or repeats each sample n times), n the whole-number ratio of the two
  rates. Use it only when the input rate is a whole multiple or fraction of {AUDIO_RATE} Hz (8000, 16000,
  32000, 48000 Hz); for any other rate it changes the clip's length. For every other input use `convert`.
"""


def render_world(world: World) -> Workspace:
    ws = Workspace()
    files = photo_files(world)
    ws.add_text(CATALOG, catalog(world, files).decode())
    for path, data in sorted(files.items()):
        ws.add(path, data, "")
    for photo in world.photos:
        ws.add_text(f"sidecars/{photo.id}.xmp", sidecar_xmp(photo))
    outputs: dict[str, bytes] = {}
    for clip in world.clips:
        ws.add(clip.path, clip_bytes(clip), "")
        record = {"recorded": f"{clip.recorded:%Y-%m-%dT%H:%M:%S}", "rating": clip.rating, "caption": clip.caption}
        ws.add_text(f"sidecars/{clip.id}.json", json.dumps(record, indent=2) + "\n")
        if clip.in_batch:
            outputs[f"{batch_dir(world)}out/{clip.stem}.wav"] = converted_bytes(clip)  # a later clip's overwrites
    for path, data in outputs.items():
        ws.add(path, data, "")
    ws.add_text(f"{batch_dir(world)}convert.log", batch_log(world))
    ws.add_text(LEDGER, r.csv_bytes(["number", "file", "published_on"], world.ledger).decode())
    for number in world.pending:
        day = world.ledger[-1][2].replace("-", "")
        ws.add(f"{PENDING}{day}-{number:04d}.jpg", rendition_bytes((120, 90), (90, 90, 90)), "")
    if world.retired:
        lines = [f"- {number:04d}: withdrawn before upload" for number in world.retired]
        ws.add_text(RETIRED, "# Retired rendition numbers\n\nNever issue these again.\n\n" + "\n".join(lines) + "\n")
    ws.add_text(STYLE, style_guide(world))
    ws.add_text(TOOL, TOOL_SOURCE)
    ws.add_text(AUDIO_TOOL, AUDIO_TOOL_SOURCE)
    ws.add_text(TOOL_README, tool_readme())
    return ws
