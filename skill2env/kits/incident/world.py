"""The incident world: a morning of service logs in which one configuration change starts a cascade.

Events are the ground truth (UTC, millisecond precision); how each service writes them (offsets,
skewed clocks, rotation, archives, duplicated lines, environments) is decided by the patterns and
applied by the renderer. `expected` derives the reference timeline and report from the events.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from skill2env.kits.spec import seeded

SERVICES = ("gateway", "orders", "payments", "inventory")
ROOTS = {
    "payments": ("db.pool_size", "50", "5", "db pool exhausted: no free connection"),
    "inventory": ("db.max_connections", "40", "4", "too many clients: connection refused"),
    "orders": ("http.client_timeout_ms", "2000", "40", "upstream call aborted: deadline exceeded"),
}
KNOWN = ("cache refresh skipped", "health probe slow")
NOISE_KEYS = (
    "log.level",
    "feature.new_checkout",
    "http.max_body_kb",
    "retry.attempts",
    "metrics.interval_s",
    "tls.min_version",
    "cache.ttl_s",
    "queue.batch_size",
    "db.statement_timeout_ms",
)
AUTHORS = ("akim", "bsouza", "cmeyer", "dpatel", "eokafor", "fnguyen")


def iso(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Event:
    at: datetime
    service: str
    level: str
    msg: str
    req: str
    host: str = ""
    env: str = "prod"
    status: int | None = None
    patterns: set[str] = field(default_factory=set)


@dataclass
class Change:
    id: str
    at: datetime
    service: str
    """The service as the change log names it (an alias now and then)."""
    key: str
    old: str
    new: str
    author: str
    noop: bool = False
    op: str = "set"
    """`set`, or `rename` (the key `old` becomes `new`; values carry over)."""


@dataclass
class Style:
    """How one service writes its log."""

    stamp: str = "utc"
    """`utc` (…Z), `offset` (explicit +hh:mm) or `naive` (local wall-clock, zone in hosts/)."""
    offset_minutes: int = 0
    skew_ms: int = 0
    """Host clock error: written time = true time + skew."""
    rotation: datetime | None = None
    """Events before this go to `<svc>.log.1.gz`."""
    archive: datetime | None = None
    """Events before this go to the archive (`<svc>.log.2.gz` inside a tar.gz)."""
    overlap: int = 0
    """Events repeated at the head of the next file after a rotation."""
    overlap_style: str = "same"
    """`same` (identical lines), `spaced` (cosmetic whitespace), `zulu` (+00:00 instead of Z)."""
    crlf: bool = False
    rotated_gz: bool = False
    """The rotated part is gzip-compressed (`.log.1.gz`), else plain (`.log.1`)."""


@dataclass
class World:
    seed: int
    day: date
    root: str
    root_change: Change
    revert: Change
    first_error: datetime
    events: list[Event] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    styles: dict[str, Style] = field(default_factory=dict)
    hosts: dict[str, str] = field(default_factory=dict)
    """Service → its production host."""
    known: list[str] = field(default_factory=lambda: list(KNOWN))
    addendum: list[str] = field(default_factory=list)
    retracted: list[str] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)
    """Alias → service (config/services.yaml)."""
    baseline: dict[str, str] = field(default_factory=dict)
    """The root service's configuration before the day's changes (point-in-time replay)."""
    rotated_changes: bool = False
    env_in_lines: bool = True
    render: dict[str, Any] = field(default_factory=dict)

    def service_of(self, name: str) -> str:
        return self.aliases.get(name, name)


def _ms(rng: random.Random, start: datetime, end: datetime) -> datetime:
    span = int((end - start).total_seconds() * 1000)
    return start + timedelta(milliseconds=rng.randrange(span))


def _req(rng: random.Random) -> str:
    return f"{rng.getrandbits(48):012x}"


def generate(seed: int, salt: int) -> World:
    rng = seeded("incident", seed, salt)
    day = date(rng.choice((2023, 2024, 2025)), rng.randint(1, 12), rng.randint(1, 28))
    start = datetime(day.year, day.month, day.day, 6, 0, tzinfo=UTC)
    end = start + timedelta(hours=6)
    root = rng.choice(sorted(ROOTS))
    key, old, new, message = ROOTS[root]
    changed = _ms(rng, start + timedelta(hours=2, minutes=30), start + timedelta(hours=3, minutes=30))
    first_error = changed + timedelta(seconds=rng.randint(90, 420), milliseconds=rng.randrange(1000))
    reverted = changed + timedelta(minutes=rng.randint(40, 80))
    numbers = rng.sample(range(1000, 99999), 40)
    root_change = Change(f"CHG-{numbers.pop()}", changed, root, key, old, new, rng.choice(AUTHORS))
    revert = Change(f"CHG-{numbers.pop()}", reverted, root, key, new, old, rng.choice(AUTHORS))
    world = World(seed, day, root, root_change, revert, first_error)
    world.hosts = {s: f"{s}-{rng.randint(1, 4)}" for s in SERVICES}
    world.styles = {s: Style() for s in SERVICES}
    used: set[tuple[str, datetime]] = set()

    def emit(at: datetime, service: str, level: str, msg: str, status: int | None = None) -> Event:
        while (service, at) in used:
            at += timedelta(milliseconds=1)
        used.add((service, at))
        event = Event(at, service, level, msg, _req(rng), world.hosts[service], status=status)
        world.events.append(event)
        return event

    for service in SERVICES:
        for _ in range(90):
            emit(_ms(rng, start, end), service, "INFO", "request served", 200 if service == "gateway" else None)
        for _ in range(4):
            emit(_ms(rng, start, end), service, "WARN", "slow response", None)
    for _ in range(3):
        emit(_ms(rng, start, end), "inventory", "ERROR", KNOWN[0])
    chain = [root] + [s for s in ("orders", "gateway") if s != root]
    messages = {root: message, "orders": f"upstream {root} failed", "gateway": "upstream orders failed"}
    begin = first_error
    for depth, service in enumerate(chain):
        at = begin
        while at < reverted:
            emit(at, service, "ERROR", messages[service], 502 if service == "gateway" else None)
            at += timedelta(seconds=rng.randint(25, 140), milliseconds=rng.randrange(1000))
        begin = first_error + timedelta(seconds=20 * (depth + 1) + rng.randint(5, 40), milliseconds=rng.randrange(999))
    world.first_error = first_error
    world.changes = [root_change, revert]
    for _ in range(18):
        service = rng.choice((*SERVICES, "search", "auth"))
        at = _ms(rng, start - timedelta(hours=12), end)
        if service == root and at > changed - timedelta(minutes=10):
            at -= timedelta(hours=4)
        world.changes.append(
            Change(
                f"CHG-{numbers.pop()}",
                at,
                service,
                rng.choice(NOISE_KEYS),
                str(rng.randint(1, 9)),
                str(rng.randint(10, 99)),
                rng.choice(AUTHORS),
            )
        )
    world.events.sort(key=lambda e: (e.at, e.service))
    return world


# -- the reference result -------------------------------------------------------------------------


@dataclass
class Expected:
    timeline: dict[str, tuple[str, str, int]]
    """Service → (first error, last error, incident error count)."""
    first_service: str
    root_change: str
    start: str
    end: str
    failed_requests: int
    config_at_start: dict[str, str]


def incident_errors(world: World) -> list[Event]:
    known = (set(world.known) | set(world.addendum)) - set(world.retracted)
    return [e for e in world.events if e.level == "ERROR" and e.env == "prod" and e.msg not in known]


def config_at(world: World, moment: datetime) -> dict[str, str]:
    config = dict(world.baseline)
    for change in sorted(world.changes, key=lambda c: c.at):
        if world.service_of(change.service) != world.root or change.at > moment:
            continue
        if change.op == "rename":
            if change.old in config:
                config[change.new] = config.pop(change.old)
        else:
            config[change.key] = change.new
    return config


def expected(world: World) -> Expected:
    errors = incident_errors(world)
    timeline = {}
    for service in SERVICES:
        mine = [e.at for e in errors if e.service == service]
        if mine:
            timeline[service] = (iso(min(mine)), iso(max(mine)), len(mine))
    first = min(errors, key=lambda e: e.at)
    candidates = [
        c
        for c in world.changes
        if world.service_of(c.service) == first.service and c.at <= first.at and not c.noop and c.op == "set"
    ]
    root = max(candidates, key=lambda c: c.at)
    gateway = [e for e in errors if e.service == "gateway"]
    return Expected(
        timeline,
        first.service,
        root.id,
        iso(first.at),
        iso(max(e.at for e in errors)),
        len({e.req for e in gateway}),
        config_at(world, first.at),
    )
