"""Incident pattern transformers: each builds one pool pattern into the logs and records at intensity 1-3."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta

from skill2env.kits.incident.world import (
    AUTHORS,
    KNOWN,
    NOISE_KEYS,
    SERVICES,
    Change,
    Event,
    World,
    incident_errors,
)
from skill2env.kits.spec import Design

Transformer = Callable[[World, int, random.Random, Design], None]


def offset_text(minutes: int) -> str:
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


OFFSETS = {
    60: "Europe/Paris",
    120: "Europe/Helsinki",
    -300: "America/New_York",
    330: "Asia/Kolkata",
    -180: "America/Sao_Paulo",
}


def chain(world: World) -> list[str]:
    return sorted({e.service for e in incident_errors(world)})


def errors_of(world: World, service: str) -> list[Event]:
    return [e for e in incident_errors(world) if e.service == service]


def tag(events: list[Event], pattern: str) -> None:
    for event in events:
        event.patterns.add(pattern)


def new_change_id(world: World, rng: random.Random) -> str:
    used = {c.id for c in world.changes}
    return next(i for i in (f"CHG-{rng.randint(1000, 99999)}" for _ in range(1000)) if i not in used)


def rotate(world: World, service: str, at_fraction: float, *, gz: bool = True) -> None:
    """Rotate `service`'s log part-way through its incident errors (0: before the first one)."""
    style = world.styles[service]
    mine = errors_of(world, service)
    if at_fraction <= 0 or not mine:
        cut = world.first_error - timedelta(minutes=20)
    else:
        cut = mine[min(len(mine) - 1, max(1, int(len(mine) * at_fraction)))].at
    if style.rotation is None or cut > style.rotation:
        style.rotation = cut
    style.rotated_gz = style.rotated_gz or gz


def _errors_before(world: World, service: str, moment: datetime | None) -> list[Event]:
    return [e for e in errors_of(world, service) if moment is not None and e.at < moment]


# -- environment understanding ---------------------------------------------------------------------


def implicit_timezone(world: World, level: int, rng: random.Random, design: Design) -> None:
    service = rng.choice(chain(world))
    style = world.styles[service]
    offset = rng.choice(sorted(OFFSETS))
    if level == 1:
        style.stamp, style.offset_minutes = "offset", offset
        where = f"logs/{service}.log"
    else:
        style.stamp = "naive"
        style.offset_minutes = 0 if level == 2 and rng.random() < 0.5 else offset
        where = f"hosts/{world.hosts[service]}.env"
    tag(errors_of(world, service), "implicit_timezone")
    shown = f"UTC{offset_text(style.offset_minutes)}" if level >= 2 else offset_text(style.offset_minutes)
    design.plant(
        "implicit_timezone",
        "tz.offset",
        f"{service} writes local time at {shown}",
        shown,
        where if level >= 2 else "logs/",
    )
    if level == 3:
        skewed = rng.choice(chain(world))
        world.styles[skewed].skew_ms = rng.choice((-1, 1)) * rng.randint(300, 1500) * 100
        tag(errors_of(world, skewed), "implicit_timezone")
        skew = f"{world.styles[skewed].skew_ms / 1000:+.3f}"
        design.plant(
            "implicit_timezone", "tz.skew", f"{skewed}'s host clock is off by {skew} s", skew, "ops/ntp_report.txt"
        )
    design.forms["implicit_timezone"] = {
        1: "One service writes local time with an explicit UTC offset on every line.",
        2: "One service writes naive local time; its zone is only in its host's env file.",
        3: "As level 2, and one host's clock is skewed by a minute or two per the NTP report.",
    }[level]


def scope_distractor(world: World, level: int, rng: random.Random, design: Design) -> None:
    env = "staging" if level == 1 or (level == 2 and rng.random() < 0.5) else "prod-shadow"
    if level == 3:
        world.env_in_lines = False
    copies = []
    for service in chain(world):
        for source in rng.sample(errors_of(world, service), min(3, len(errors_of(world, service)))):
            shifted = source.at - timedelta(minutes=rng.randint(6, 30), milliseconds=rng.randrange(997))
            copies.append(
                Event(
                    shifted,
                    service,
                    "ERROR",
                    source.msg,
                    f"{rng.getrandbits(48):012x}",
                    f"{service}-{'stg' if env == 'staging' else 'shadow'}-1",
                    env,
                    source.status,
                )
            )
    for event in copies:
        event.patterns.add("scope_distractor")
    world.events += copies
    world.events.sort(key=lambda e: (e.at, e.service))
    world.render["distractor_env"] = env
    design.plant(
        "scope_distractor",
        "scope.env",
        f"lines of the {env} environment share the files",
        env,
        "inventory.csv" if level == 3 else "logs/",
    )
    design.forms["scope_distractor"] = {
        1: "Staging lines (env=staging) with the incident's messages sit in the production logs.",
        2: "Lines of a shadow environment whose name starts like production (prod-shadow) sit in the logs.",
        3: "No env field at all: the environment comes from joining host names to inventory.csv.",
    }[level]


def stale_derived_artifact(world: World, level: int, rng: random.Random, design: Design) -> None:
    errors = incident_errors(world)
    end = max(e.at for e in errors)
    fresh = level == 2 and rng.random() < 0.5
    generated = end + timedelta(minutes=7) if fresh else world.first_error + (end - world.first_error) * 0.55
    world.render["stale"] = (level, generated)
    design.plant(
        "stale_derived_artifact",
        "dashboard.generated",
        "the error dashboard was generated at a moment",
        generated.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "dashboards/error_summary.csv" if level == 1 else "dashboards/refresh.log",
    )
    tag(errors, "stale_derived_artifact")
    design.forms["stale_derived_artifact"] = {
        1: "A ready-made error summary carries a 'generated_at' plainly before the incident ended.",
        2: "The summary has no date; only the dashboard refresh log shows whether it predates the last errors.",
        3: "A stale summary and a fresh but partial one sit side by side.",
    }[level]


def needle_in_large_corpus(world: World, level: int, rng: random.Random, design: Design) -> None:
    total = {1: 300, 2: 2000, 3: 5000}[level]
    span_start = world.first_error - timedelta(days=20)
    used = {c.id for c in world.changes}
    others = [s for s in (*SERVICES, "search", "auth", "billing", "notifications", "payment") if s != world.root]
    while len(world.changes) < total:
        at = span_start + timedelta(seconds=rng.randrange(int(timedelta(days=21).total_seconds())))
        service = rng.choice(others)
        change_id = next(i for i in (f"CHG-{rng.randint(1000, 99999)}" for _ in range(1000)) if i not in used)
        used.add(change_id)
        world.changes.append(
            Change(
                change_id,
                at,
                service,
                rng.choice(NOISE_KEYS),
                str(rng.randint(1, 9)),
                str(rng.randint(10, 99)),
                rng.choice(AUTHORS),
            )
        )
    if level >= 2 and (level == 3 or rng.random() >= 0.5):
        alias = f"{world.root}-api"
        world.aliases[alias] = world.root
        world.root_change.service = alias
    if level == 3:
        decoy = "payment" if world.root != "payment" else "paymentz"
        world.changes.append(
            Change(
                new_change_id(world, rng),
                world.first_error - timedelta(seconds=50),
                decoy,
                world.root_change.key,
                "20",
                "2",
                rng.choice(AUTHORS),
            )
        )
    design.plant(
        "needle_in_large_corpus",
        "changes.root",
        "the root change among many change records",
        world.root_change.id,
        "config/changes.jsonl",
    )
    design.forms["needle_in_large_corpus"] = {
        1: "The root change is one of 300 change records.",
        2: "One of 2,000 records, often filed under the service's alias from config/services.yaml.",
        3: "One of 5,000 records under an alias, beside a decoy change to a look-alike service name.",
    }[level]


# -- error recovery --------------------------------------------------------------------------------


def error_cascade_root_cause(world: World, level: int, rng: random.Random, design: Design) -> None:
    downstream = [s for s in chain(world) if s != world.root] or [world.root]
    target = "gateway" if "gateway" in downstream else downstream[0]
    first_downstream = min(e.at for e in errors_of(world, target))
    world.changes.append(
        Change(
            new_change_id(world, rng),
            first_downstream - timedelta(seconds=rng.randint(5, 15)),
            target,
            rng.choice(NOISE_KEYS),
            "1",
            "2",
            rng.choice(AUTHORS),
        )
    )
    if level >= 2:
        after = level == 3 or rng.random() >= 0.5
        at = (
            world.first_error - timedelta(seconds=rng.randint(10, 60))
            if after
            else world.root_change.at - timedelta(minutes=rng.randint(3, 9))
        )
        world.changes.append(
            Change(
                new_change_id(world, rng),
                at,
                world.root_change.service,
                "log.level",
                "info",
                "debug",
                rng.choice(AUTHORS),
                noop=True,
            )
        )
    if level == 3:
        world.changes.append(
            Change(
                new_change_id(world, rng),
                world.first_error + timedelta(minutes=4),
                world.root_change.service,
                "retry.attempts",
                "3",
                "6",
                rng.choice(AUTHORS),
            )
        )
    design.plant(
        "error_cascade_root_cause",
        "cascade.root",
        "the change behind the first failing service",
        world.root_change.id,
        "config/changes.jsonl",
    )
    design.forms["error_cascade_root_cause"] = {
        1: "The cascade reaches the gateway, where a fresh unrelated change sits just before its first 5xx.",
        2: "As level 1, and a no-op change to the failing service often falls between the real change and the "
        "first error.",
        3: "As level 2, plus a mitigation change to the failing service after its first error.",
    }[level]


def misleading_tool_error(world: World, level: int, rng: random.Random, design: Design) -> None:
    world.render["tool"] = level
    service = rng.choice(chain(world))
    benign = rng.random() < {1: 0.5, 2: 0.3, 3: 0.0}[level]
    rotate(world, service, 0.0 if benign else 0.5)
    tag(_errors_before(world, service, world.styles[service].rotation), "misleading_tool_error")
    if level == 3:
        world.styles["gateway"].crlf = True
        tag(errors_of(world, "gateway"), "misleading_tool_error")
    design.plant(
        "misleading_tool_error",
        "tool.logcat",
        "the documented log reader rejects compressed logs",
        "tools/logcat.sh",
        "tools/logcat.sh",
    )
    design.forms["misleading_tool_error"] = {
        1: "The documented log reader calls a rotated gzip log 'corrupt', naming the gzip magic byte.",
        2: "The reader only says 'corrupt log file' for a rotated gzip log.",
        3: "The reader says 'corrupt log file' for a gzip log and for a log with CRLF line endings.",
    }[level]


# -- long-horizon consistency ----------------------------------------------------------------------


def nested_container_evidence(world: World, level: int, rng: random.Random, design: Design) -> None:
    services = rng.sample(chain(world), min(2, len(chain(world))))
    for service in services:
        rotate(world, service, 0.6)
        tag(_errors_before(world, service, world.styles[service].rotation), "nested_container_evidence")
    if level >= 2:
        service = services[0]
        style = world.styles[service]
        benign = level == 2 and rng.random() < 0.5
        mine = errors_of(world, service)
        style.archive = world.first_error - timedelta(minutes=30) if benign else mine[max(1, len(mine) // 4)].at
    if level == 3:
        world.render["bundle"] = services[-1]
    design.plant(
        "nested_container_evidence",
        "logs.rotated",
        "older log lines are rotated and archived",
        ", ".join(services),
        "logs/",
    )
    design.forms["nested_container_evidence"] = {
        1: "Part of the incident sits in rotated, gzip-compressed logs.",
        2: "As level 1, and older lines moved into a tar.gz archive of gzip members.",
        3: "As level 2, and one service's rotated log travels inside a ZIP incident bundle.",
    }[level]


def duplicate_claim_across_periods(world: World, level: int, rng: random.Random, design: Design) -> None:
    candidates = [s for s in chain(world) if world.styles[s].stamp == "utc"] or chain(world)
    service = rng.choice(candidates)
    benign = level == 2 and rng.random() < 0.5
    rotate(world, service, 0.0 if benign else 0.5, gz=False)
    style = world.styles[service]
    style.overlap = 4
    style.overlap_style = {1: "same", 2: "spaced", 3: "zulu"}[level]
    before = [e for e in world.events if e.service == service and style.rotation and e.at < style.rotation]
    tag([e for e in before[-style.overlap :] if e.level == "ERROR"], "duplicate_claim_across_periods")
    tag(errors_of(world, service), "duplicate_claim_across_periods")
    design.plant(
        "duplicate_claim_across_periods",
        "rotation.overlap",
        "lines repeated across a log rotation",
        style.overlap,
        f"logs/{service}.log",
    )
    design.forms["duplicate_claim_across_periods"] = {
        1: "The last lines before a rotation are repeated identically at the head of the new log.",
        2: "The repeated lines differ cosmetically (spacing) from their originals.",
        3: "The repeated lines write the same instant as +00:00 instead of Z.",
    }[level]


def cross_deliverable_agreement(world: World, level: int, rng: random.Random, design: Design) -> None:
    world.render["cross"] = level
    design.plant("cross_deliverable_agreement", "deliverables.agree", "timeline, report and postmortem agree", None, "")
    design.forms["cross_deliverable_agreement"] = {
        1: "The timeline's counts, the report and the postmortem must agree.",
        2: "A late runbook addendum declares one more error message harmless, which changes the counts.",
        3: "As level 2, and the addendum retracts an earlier harmless message, which counts again.",
    }[level]
    if level == 1:
        return
    message = "stock sync lagging behind"
    world.addendum.append(message)
    end = max(e.at for e in incident_errors(world))
    added = []
    for _ in range(4):
        at = world.first_error + (end - world.first_error) * rng.random()
        added.append(Event(at, "inventory", "ERROR", message, f"{rng.getrandbits(48):012x}", world.hosts["inventory"]))
    if level == 3:
        world.retracted.append(KNOWN[1])
        for _ in range(3):
            at = world.first_error + (end - world.first_error) * rng.random()
            added.append(
                Event(
                    at, "gateway", "ERROR", KNOWN[1], f"{rng.getrandbits(48):012x}", world.hosts["gateway"], status=503
                )
            )
    tag(added, "cross_deliverable_agreement")
    world.events += added
    world.events.sort(key=lambda e: (e.at, e.service))


def point_in_time_replay(world: World, level: int, rng: random.Random, design: Design) -> None:
    key, old = world.root_change.key, world.root_change.old
    world.baseline = {key: old, **{k: str(rng.randint(1, 50)) for k in rng.sample(NOISE_KEYS, 5)}}
    before = world.root_change.at
    for index, name in enumerate(rng.sample(sorted(k for k in world.baseline if k != key), 3)):
        at = before - timedelta(hours=2 + index, minutes=rng.randint(0, 50))
        world.changes.append(
            Change(
                new_change_id(world, rng),
                at,
                world.root,
                name,
                world.baseline[name],
                str(rng.randint(51, 99)),
                rng.choice(AUTHORS),
            )
        )
    if level >= 2 and (level == 3 or rng.random() >= 0.5):
        legacy = key.split(".")[0] + ".legacy_" + key.split(".")[-1]
        world.baseline[legacy] = world.baseline.pop(key)
        world.changes.append(
            Change(
                new_change_id(world, rng),
                before - timedelta(hours=1),
                world.root,
                legacy,
                legacy,
                key,
                rng.choice(AUTHORS),
                op="rename",
            )
        )
    if level == 3:
        world.rotated_changes = True
    world.render["replay"] = level
    design.plant(
        "point_in_time_replay",
        "config.baseline",
        "the failing service's configuration before the day",
        len(world.baseline),
        f"config/baseline/{world.root}.json",
    )
    design.forms["point_in_time_replay"] = {
        1: "The failing service's configuration at incident start is its baseline plus the changes before it.",
        2: "As level 1, and often a 'rename' change moves a key to a new name part-way.",
        3: "As level 2 with a rename, and the change log is split over a rotated gzip file, out of order.",
    }[level]


TRANSFORMERS: dict[str, Transformer] = {
    "point_in_time_replay": point_in_time_replay,
    "needle_in_large_corpus": needle_in_large_corpus,
    "error_cascade_root_cause": error_cascade_root_cause,
    "cross_deliverable_agreement": cross_deliverable_agreement,
    "implicit_timezone": implicit_timezone,
    "nested_container_evidence": nested_container_evidence,
    "duplicate_claim_across_periods": duplicate_claim_across_periods,
    "misleading_tool_error": misleading_tool_error,
    "scope_distractor": scope_distractor,
    "stale_derived_artifact": stale_derived_artifact,
}
PATTERNS = tuple(TRANSFORMERS)
