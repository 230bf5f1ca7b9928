"""The web-API world: a catalogue service, the records it holds and how it misbehaves.

A theme (job postings, product listings, weather stations) names the records; each record has an id,
a title, a category, a region, a status and a value. The task asks for every record of one category.
The base world serves them over a paginated, token-authenticated API with a record or two that is
listed but gone (a permanent 404). The patterns add conditions on the records (a time window, a
status, a tier, a watchlist of ids) and sandbox fixtures, and the service's behaviour: transient
failures and rate limits, a cap on search results, a pinned stale snapshot and short-lived tokens,
overlapping pages, a metered quota, a size limit on filters. The functions under "the truth" compute
every expected value from the world's records.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from skill2env.kits.spec import seeded

THEMES = (
    (
        "job postings",
        "posting",
        "JOB",
        ("engineering", "design", "sales", "support"),
        ("berlin", "lisbon", "warsaw", "dublin", "remote"),
        ("open", "paused", "filled"),
        "salary_k_eur",
        (
            "Backend Engineer",
            "Data Analyst",
            "Product Designer",
            "Account Executive",
            "Support Specialist",
            "Site Reliability Engineer",
            "UX Researcher",
            "Sales Manager",
            "Technical Writer",
            "QA Engineer",
        ),
        (35.0, 120.0),
    ),
    (
        "product listings",
        "listing",
        "SKU",
        ("audio", "kitchen", "garden", "office"),
        ("north", "south", "east", "west", "central"),
        ("active", "backorder", "retired"),
        "price_eur",
        (
            "Wireless Speaker",
            "Chef Knife",
            "Garden Hose",
            "Desk Lamp",
            "Noise Headphones",
            "Stand Mixer",
            "Pruning Shears",
            "Office Chair",
            "Soundbar",
            "Kettle",
        ),
        (9.0, 480.0),
    ),
    (
        "weather stations",
        "station",
        "WX",
        ("coastal", "alpine", "urban", "rural"),
        ("nordland", "vestland", "innlandet", "agder", "troms"),
        ("reporting", "degraded", "offline"),
        "rainfall_mm",
        (
            "Harbour Mast",
            "Ridge Post",
            "Airport Field",
            "Valley Farm",
            "Lighthouse",
            "City Roof",
            "Pass Summit",
            "River Gauge",
            "Forest Clearing",
            "Fjord Buoy",
        ),
        (0.5, 320.0),
    ),
)
PAGE_MAX = 20
"""Items per listing page at most (documented)."""
BATCH_MAX = 10
"""Ids per batch read at most (documented)."""
RETRY_AFTER = 0.05
"""Seconds a 429 asks the client to wait (fractional, as the docs say)."""


@dataclass
class Record:
    id: str
    title: str
    category: str
    region: str
    status: str
    value: float
    updated: str
    """When the record last changed: `YYYY-MM-DDTHH:MM` (UTC)."""
    tier: str | None = None
    """The publishing tier; records created before tiers existed have none (the field is absent)."""
    live: bool = True
    """False for a sandbox fixture that the listing serves beside the catalogue's records."""
    feed: str = ""


@dataclass
class World:
    seed: int
    rng: random.Random
    theme: str
    noun: str
    prefix: str
    categories: tuple[str, ...]
    regions: tuple[str, ...]
    statuses: tuple[str, ...]
    field_name: str
    """The name of the value field (salary_k_eur, price_eur, rainfall_mm)."""
    value_range: tuple[float, float]
    category: str
    """The category the task asks for."""
    records: list[Record] = field(default_factory=list)
    gone: set[str] = field(default_factory=set)
    """Ids the listing shows whose record reads answer 404 on every request."""
    api_key: str = ""
    token_uses: int = 1000
    """Authorized requests a token serves before it expires."""
    search_cap: int = 0
    """The most matches a listing query returns (0: no cap)."""
    cap_warning: bool = False
    resend: int = 0
    """Items of a page re-sent at the start of the next page."""
    overlap_documented: bool = False
    """True when the docs warn that pages may overlap (the overlap itself may be zero)."""
    quota: int = 0
    """Metered record reads the key may make (0: unmetered)."""
    stale: dict[str, Record] | None = None
    """The pinned snapshot a request without `snapshot` reads, when it differs from the latest."""
    snapshot: str = ""
    pinned: str = ""
    faults: dict[str, list[int]] = field(default_factory=dict)
    """Request key (`record:<id>`, `page:<category>:<offset>`) → statuses its first attempts answer."""
    persistent_fault: bool = False
    """True when one record read fails for longer than a three-retry loop waits."""
    tags: dict[str, set[str]] = field(default_factory=dict)
    """Pattern → the ids of the asked category whose rows its trap changes."""
    summary_level: int = 0
    """cross_deliverable_agreement's level: how much the summary breaks down."""
    window: tuple[str, str] | None = None
    """The request's condition on `updated`: first and last day, both included (None: no condition)."""
    status_wanted: str = ""
    """The request's status, in any letter case ('' : any status)."""
    tier_excluded: str = ""
    """The request excludes this tier; records without a tier count ('' : no tier condition)."""
    scope_level: int = 0
    """How a record shows it is a sandbox fixture: 1 `source: sandbox`, 2 `source: live-staging`, 3 only
    through its feed's environment in config/feeds.json (0: no fixtures)."""
    feeds: dict[str, str] = field(default_factory=dict)
    """Feed id → environment (`live` or `staging`), at scope level 3."""
    watchlist: list[str] = field(default_factory=list)
    """The ids the request is limited to ([] : no such limit)."""
    filter_max: int = 0
    """The most bytes a URL-encoded filter may have (0: no limit)."""
    filter_max_said: bool = False
    """True when the 413 answer names the limit."""

    def listed(self) -> list[Record]:
        """What the service lists for the request's category and conditions, by id (fixtures included)."""
        return sorted((r for r in self.records if r.category == self.category and self.wanted(r)), key=lambda r: r.id)

    def asked(self) -> list[Record]:
        """The records the task asks for: the listed ones that belong to the catalogue."""
        return [r for r in self.listed() if r.live]

    def wanted(self, record: Record) -> bool:
        """Whether a record meets the request's condition (beyond its category)."""
        if self.window and not self.window[0] <= record.updated[:10] <= self.window[1]:
            return False
        if self.status_wanted and record.status.lower() != self.status_wanted:
            return False
        if self.watchlist and record.id not in self.watchlist:
            return False
        return not (self.tier_excluded and record.tier == self.tier_excluded)

    def others(self) -> list[Record]:
        return [r for r in self.records if r.category != self.category]

    def tag(self, pattern: str, *ids: str) -> None:
        self.tags.setdefault(pattern, set()).update(ids)

    def fresh(self, least: int = 1) -> list[Record]:
        """Records of the asked category no trap has claimed yet, gone ones aside; when fewer than `least`
        are left (the other traps claimed most rows), every such record, claimed or not."""
        claimed = set().union(*self.tags.values()) if self.tags else set()
        free = [r for r in self.asked() if r.id not in self.gone and r.id not in claimed]
        return free if len(free) >= least else [r for r in self.asked() if r.id not in self.gone]

    def value(self) -> float:
        low, high = self.value_range
        return round(self.rng.uniform(low, high), 2)


def generate(seed: int, salt: int) -> World:
    rng = seeded("webapi", seed, salt)
    theme, noun, prefix, categories, regions, statuses, field_name, titles, span = rng.choice(THEMES)
    world = World(seed, rng, theme, noun, prefix, categories, regions, statuses, field_name, span,
                  rng.choice(categories))  # fmt: skip
    numbers = rng.sample(range(10000, 99999), 120)
    for n, number in enumerate(sorted(numbers)):
        category = world.category if n % 3 == 0 or rng.random() < 0.12 else rng.choice(categories)
        world.records.append(
            Record(
                f"{prefix}-{number}",
                f"{rng.choice(titles)} {rng.choice('ABCDEFGHKLMNPRSTVW')}{rng.randint(1, 99)}",
                category,
                rng.choice(regions),
                statuses[0] if rng.random() < 0.7 else rng.choice(statuses[1:]),
                world.value(),
                f"2024-{rng.randint(1, 6):02d}-{rng.randint(1, 28):02d}"
                f"T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}",
            )
        )
    asked = world.asked()
    world.gone = {r.id for r in rng.sample(asked, rng.choice((1, 2)))}
    world.api_key = "key_" + "".join(rng.choice("abcdef0123456789") for _ in range(24))
    world.snapshot = f"snp_2024{rng.randint(1, 12):02d}{rng.randint(10, 28)}"
    return world


# -- the truth --------------------------------------------------------------------------------------


def rows(world: World) -> list[dict[str, object]]:
    """The asked category's records the service returns, one row each."""
    return [
        {"id": r.id, "title": r.title, "region": r.region, world.field_name: r.value}
        for r in world.asked()
        if r.id not in world.gone
    ]


def failed_ids(world: World) -> list[str]:
    return sorted(r.id for r in world.asked() if r.id in world.gone)


def total(world: World) -> float:
    return round(sum(r.value for r in world.asked() if r.id not in world.gone), 2)


def by_region(world: World) -> dict[str, int]:
    return dict(sorted(Counter(r.region for r in world.asked() if r.id not in world.gone).items()))


def value_by_region(world: World) -> dict[str, float]:
    sums: dict[str, float] = {}
    for r in world.asked():
        if r.id not in world.gone:
            sums[r.region] = sums.get(r.region, 0.0) + r.value
    return {k: round(v, 2) for k, v in sorted(sums.items())}


def top_region(world: World) -> str:
    counts = by_region(world)
    return min(counts, key=lambda k: (-counts[k], k))


def reads_needed(world: World) -> int:
    """Batch reads a careful client needs: every listed id once, in full batches."""
    return -(-len(world.listed()) // BATCH_MAX)
