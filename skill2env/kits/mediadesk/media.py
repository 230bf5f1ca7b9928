"""Media bytes for the library: photos drawn with Pillow (EXIF written by hand-picked tags, no clock
involved) and audio clips written with the standard library's `wave`, byte-for-byte deterministic."""

from __future__ import annotations

import io
import math
import wave
from array import array
from functools import cache

from skill2env.kits.mediadesk.world import MARKER, Clip, Photo

EXIF_IFD = 0x8769
DATE_TIME_ORIGINAL = 0x9003
MAKE, MODEL, ORIENTATION = 0x010F, 0x0110, 0x0112
STORED = {1: None, 3: "ROTATE_180", 6: "ROTATE_90", 8: "ROTATE_270"}
"""EXIF orientation → the transpose that turns the upright picture into the stored pixels (the
inverse of what a viewer applies)."""
AMPLITUDE = 8000


def upright(size: tuple[int, int], base: tuple[int, int, int]) -> object:
    """The picture as it should be seen: a flat colour, a light block in the top-left third and a
    faint diagonal band (so the encoder has some detail to store)."""
    from PIL import Image, ImageDraw

    width, height = size
    image = Image.new("RGB", size, base)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width // 3, height // 3), fill=MARKER)
    shade = tuple(max(0, c - 25) for c in base)
    for step in range(0, width + height, 9):
        draw.line((step, height, step + height // 2, height // 2), fill=shade, width=2)
    return image


def photo_bytes(photo: Photo, base: tuple[int, int, int] | None = None) -> bytes:
    """The file as the camera stored it: pixels rotated by the orientation, EXIF with camera and time."""
    from PIL import Image

    image = upright(photo.size, base or photo.base)
    turn = STORED[photo.orientation]
    if turn:
        image = image.transpose(getattr(Image.Transpose, turn))  # type: ignore[attr-defined]
    exif = Image.Exif()
    exif[MAKE], exif[MODEL] = photo.camera[0], photo.camera[1]
    exif[ORIENTATION] = photo.orientation
    exif.get_ifd(EXIF_IFD)[DATE_TIME_ORIGINAL] = f"{photo.captured:%Y:%m:%d %H:%M:%S}"
    buffer = io.BytesIO()
    if photo.fmt == "PNG":
        image.save(buffer, format="PNG", exif=exif.tobytes(), optimize=False)  # type: ignore[attr-defined]
    else:
        image.save(buffer, format="JPEG", quality=88, exif=exif.tobytes())  # type: ignore[attr-defined]
    data = buffer.getvalue()
    if photo.state == "truncated":
        return data[: len(data) * 3 // 5]
    return data


def rendition_bytes(size: tuple[int, int], base: tuple[int, int, int]) -> bytes:
    """A published rendition (already upright, no EXIF)."""
    buffer = io.BytesIO()
    upright(size, base).save(buffer, format="JPEG", quality=80)  # type: ignore[attr-defined]
    return buffer.getvalue()


@cache
def _tone(rate: int, channels: int, frames: int, tone: int) -> bytes:
    samples = array("h")
    for n in range(frames):
        value = int(AMPLITUDE * math.sin(2 * math.pi * tone * n / rate))
        samples.extend([value] * channels)
    if samples.itemsize != 2:  # pragma: no cover - array('h') is 16-bit on every platform Python supports
        raise ValueError("16-bit samples expected")
    return samples.tobytes()


def wav_bytes(rate: int, channels: int, frames: int, tone: int) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(_tone(rate, channels, frames, tone))
    return buffer.getvalue()


def clip_bytes(clip: Clip) -> bytes:
    return wav_bytes(clip.rate, clip.channels, clip.frames, clip.tone)


def converted_bytes(clip: Clip) -> bytes:
    """What the nightly batch wrote for a clip (16 kHz mono, or its failure)."""
    frames = round(clip.frames * 16000 / clip.rate)
    if clip.batch == "empty":
        return b""
    if clip.batch == "short":
        return wav_bytes(16000, 1, frames // 2, clip.tone)
    if clip.batch == "rate":
        return clip_bytes(clip)
    return wav_bytes(16000, 1, frames, clip.tone)
