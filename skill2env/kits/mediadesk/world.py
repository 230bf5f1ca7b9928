"""The media library world: a catalog of photos and audio clips, the files themselves, their
sidecars, the nightly audio batch that converted the clips, and the published rendition sequence.

Each photo is an upright picture (a flat colour with a light marker block in its top-left third) that
is stored as the camera wrote it: rotated by its EXIF orientation, in JPEG or PNG. The base world is
clean apart from one undecodable file and one duplicate; the patterns add the traps (a moved file
beside look-alikes, a rotated photo, per-item targets, truncated files, a batch that failed quietly or
overwrote an output, a late clip to convert by hand, numbers already issued outside the ledger).
`status`, `target` and `renditions` compute every expected result from these records (never from
rendered text).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from skill2env.kits.spec import seeded

CAMERAS = (
    ("FUJIFILM", "X-T30", "DSCF"),
    ("Canon", "EOS R6", "IMG_"),
    ("SONY", "ILCE-7M3", "DSC0"),
    ("OLYMPUS CORPORATION", "E-M10MarkIII", "P"),
)
SIZES = ((240, 180), (180, 240), (240, 160), (200, 200), (160, 240), (216, 180))
PALETTE = (
    (200, 40, 40),
    (40, 150, 60),
    (40, 70, 190),
    (210, 140, 20),
    (130, 40, 160),
    (20, 150, 150),
    (170, 90, 40),
    (90, 90, 90),
    (200, 60, 130),
    (60, 120, 30),
    (30, 40, 110),
    (150, 150, 20),
)
MARKER = (245, 245, 235)
USES = {"web": (160, "JPEG"), "thumb": (64, "JPEG"), "archive": (200, "PNG"), "square": (96, "JPEG")}
"""Use → (long edge in pixels, format) of its rendition; `web` is the house default."""
DEFAULT_USE = "web"
AUDIO_RATE = 16000
RATES = (8000, 11025, 16000, 22050)
CAPTIONS = (
    "harbour at dusk",
    "market stalls",
    "bridge from the east bank",
    "workshop bench",
    "garden wall",
    "station concourse",
    "orchard in bloom",
    "ferry deck",
    "reading room",
    "hillside path",
    "kitchen window",
    "warehouse doors",
)
CLIP_CAPTIONS = ("room tone, studio B", "interview intro", "street ambience", "narration take 2", "bell chime")
OK_PHOTOS = 6


@dataclass
class Photo:
    id: str
    path: str
    """The path the catalog gives."""
    fmt: str
    """'JPEG' or 'PNG' (how the camera or scanner stored it)."""
    size: tuple[int, int]
    """The upright picture's (width, height)."""
    base: tuple[int, int, int]
    captured: datetime
    camera: tuple[str, str, str]
    rating: int
    caption: str
    orientation: int = 1
    use: str = DEFAULT_USE
    state: str = "ok"
    """'ok', 'broken' (does not decode) or 'truncated' (its data ends early)."""
    duplicate_of: str = ""
    """The id of the earlier catalog photo whose bytes this file repeats."""
    stored: str = ""
    """Where the file is now when it is not at `path` (moved)."""
    lookalikes: list[tuple[str, tuple[int, int, int]]] = field(default_factory=list)
    """(path, colour) of other versions of the picture (drafts, edits) that are not this file."""

    @property
    def location(self) -> str:
        return self.stored or self.path


@dataclass
class Clip:
    id: str
    path: str
    rate: int
    channels: int
    frames: int
    tone: int
    """The tone's frequency in Hz."""
    recorded: datetime
    rating: int
    caption: str
    batch: str = "ok"
    """How the nightly batch left its output: 'ok', 'empty', 'short' or 'rate' (copied unconverted)."""
    in_batch: bool = True
    """False for a clip recorded after the nightly batch ran (no output of it)."""

    @property
    def duration(self) -> float:
        return round(self.frames / self.rate, 3)

    @property
    def stem(self) -> str:
        """The batch names its output after the source file's name."""
        return self.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]


@dataclass
class World:
    seed: int
    rng: random.Random
    photos: list[Photo]
    clips: list[Clip]
    ledger: list[tuple[int, str, str]]
    """(number, file name, publication date) of the published renditions."""
    batch_day: str
    pending: list[int] = field(default_factory=list)
    """Numbers of renditions waiting in published/pending/ (issued, not in the ledger yet)."""
    retired: list[int] = field(default_factory=list)
    """Numbers issued and withdrawn: never reused."""
    batch_notes: list[tuple[str, str]] = field(default_factory=list)
    """(clip id, harmless warning) lines of the batch log."""
    strays: list[Photo] = field(default_factory=list)
    """Files in the library the catalog does not list (not part of the work)."""
    tags: dict[str, set[str]] = field(default_factory=dict)
    """Pattern → ids of the items its trap changes."""

    def tag(self, pattern: str, item: str) -> None:
        self.tags.setdefault(pattern, set()).add(item)

    def photo(self, item: str) -> Photo:
        return next(p for p in self.photos if p.id == item)

    def plain(self) -> list[Photo]:
        """The catalog photos that render and carry no trap yet (a trap lands on one of these)."""
        taken = {i for ids in self.tags.values() for i in ids}
        ready = [p for p in self.photos if p.state == "ok" and not p.duplicate_of and not self.copied(p)]
        return [p for p in ready if p.id not in taken] or ready

    def copied(self, photo: Photo) -> bool:
        return any(p.duplicate_of == photo.id for p in self.photos)

    def colour(self, avoid: list[tuple[int, int, int]]) -> tuple[int, int, int]:
        free = [c for c in PALETTE if c not in avoid]
        return self.rng.choice(free or list(PALETTE))

    def colours(self) -> list[tuple[int, int, int]]:
        return [p.base for p in self.photos] + [c for p in self.photos for _, c in p.lookalikes]

    def moment(self) -> datetime:
        """A capture time no other item has."""
        while True:
            when = datetime(2024, 3, 1, 7) + timedelta(minutes=self.rng.randint(0, 200 * 24 * 60 // 7) * 7,
                                                       seconds=self.rng.randint(0, 59))  # fmt: skip
            if all(p.captured != when for p in self.photos):
                return when

    def new_photo(self, prefix: str, state: str = "ok") -> Photo:
        number = self.rng.randint(1000, 9899)
        while any(f"{prefix}-{number}" == p.id for p in self.photos):
            number += 1
        camera = self.rng.choice(CAMERAS)
        when = self.moment()
        stem = f"{camera[2]}{self.rng.randint(1000, 9999):04d}"
        fmt = "PNG" if self.rng.random() < 0.2 else "JPEG"
        path = f"library/photos/{when:%Y-%m}/{stem}.{'png' if fmt == 'PNG' else 'jpg'}"
        while any(p.path == path for p in self.photos):
            path = path.replace(".", "a.", 1)
        return Photo(f"{prefix}-{number}", path, fmt, self.rng.choice(SIZES), self.colour(self.colours()), when,
                     camera, self.rng.randint(1, 5), self.rng.choice(CAPTIONS), state=state)  # fmt: skip


def generate(seed: int, salt: int) -> World:
    rng = seeded("mediadesk", seed, salt)
    last = rng.randint(18, 64)
    start = datetime(2023, 9, 1)
    ledger = []
    for number in range(1, last + 1):
        day = start + timedelta(days=number * 3 + rng.randint(0, 2))
        ledger.append((number, f"{day:%Y%m%d}-{number:04d}.jpg", f"{day:%Y-%m-%d}"))
    world = World(seed, rng, [], [], ledger, f"2024-{rng.randint(9, 10):02d}-{rng.randint(10, 28):02d}")
    for _ in range(OK_PHOTOS):
        world.photos.append(world.new_photo("PH"))
    original = rng.choice(world.photos)
    copy = world.new_photo("PH")
    copy.duplicate_of = original.id
    copy.path = f"library/imports/{copy.path.rsplit('/', 1)[1].split('.')[0]}.{original.path.rsplit('.', 1)[1]}"
    world.photos.append(copy)
    world.photos.append(world.new_photo("PH", state="broken"))
    rng.shuffle(world.photos)
    first = min(world.photos.index(original), world.photos.index(copy))
    world.photos.remove(original)
    world.photos.insert(first, original)
    for n in range(3):
        rate, channels = rng.choice(RATES), rng.choice((1, 2))
        frames = int(rate * rng.uniform(0.6, 1.6))
        world.clips.append(Clip(f"AU-{rng.randint(100, 999)}{n}", f"library/audio/take-{rng.randint(10, 99)}{n}.wav",
                                rate, channels, frames, rng.choice((220, 330, 440, 550, 660)),
                                datetime(2024, 6, 1, 9) + timedelta(minutes=rng.randint(0, 60 * 24 * 60)),
                                rng.randint(1, 5), rng.choice(CLIP_CAPTIONS)))  # fmt: skip
    return world


# -- the truth --------------------------------------------------------------------------------------


def status(photo: Photo) -> str:
    if photo.state != "ok":
        return "corrupt"
    return "duplicate" if photo.duplicate_of else "ok"


def target(photo: Photo) -> tuple[int, int, str]:
    """The rendition's (width, height, format): the upright picture scaled to its use's long edge."""
    edge, fmt = USES[photo.use]
    width, height = photo.size
    if width >= height:
        return edge, round(height * edge / width), fmt
    return round(width * edge / height), edge, fmt


def next_number(world: World) -> int:
    return max([n for n, _, _ in world.ledger] + world.pending + world.retired) + 1


def renditions(world: World) -> dict[str, str]:
    """Rendered photo id → its rendition's file name: capture order, numbers after the highest issued."""
    rendered = sorted((p for p in world.photos if status(p) == "ok"), key=lambda p: (p.captured, p.id))
    first = next_number(world)
    names = {}
    for offset, photo in enumerate(rendered):
        extension = "png" if target(photo)[2] == "PNG" else "jpg"
        names[photo.id] = f"{photo.captured:%Y%m%d}-{first + offset:04d}.{extension}"
    return names
