"""Render the incident world: plain, rotated and archived service logs, change records as JSON lines,
host settings, an NTP report, a runbook, a dashboard export and the documented log reader."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from skill2env.kits import render as r
from skill2env.kits.incident.patterns import OFFSETS, offset_text
from skill2env.kits.incident.world import SERVICES, Change, Event, Style, World, incident_errors
from skill2env.kits.spec import Workspace, seeded

TOOL = """#!/usr/bin/env bash
# Print a service log, one event per line. Usage: tools/logcat.sh FILE
set -u
f="$1"
if {crlf}! LC_ALL=C grep -Iq . "$f"; then
  echo "logcat: $f: corrupt log file{detail}" >&2
  exit 3
fi
cat "$f"
"""


def stamp(event: Event, style: Style, variant: str = "same") -> str:
    written = event.at + timedelta(minutes=style.offset_minutes, milliseconds=style.skew_ms)
    clock = written.strftime("%Y-%m-%dT%H:%M:%S") + f".{written.microsecond // 1000:03d}"
    if style.stamp == "utc":
        return clock + ("+00:00" if variant == "zulu" else "Z")
    if style.stamp == "offset":
        return clock + offset_text(style.offset_minutes)
    return clock.replace("T", " ")


def line(world: World, event: Event, style: Style, variant: str = "same") -> str:
    fields = [stamp(event, style, variant), f"level={event.level}"]
    if world.env_in_lines:
        fields.append(f"env={event.env}")
    fields += [f"service={event.service}", f"host={event.host}", f"req={event.req}"]
    if event.status is not None:
        fields.append(f"status={event.status}")
    fields.append(f'msg="{event.msg}"')
    return ("  " if variant == "spaced" else " ").join(fields)


def log_parts(world: World, service: str) -> dict[str, list[str]]:
    """Part name (`archive`, `rotated`, `current`) → its lines."""
    style = world.styles[service]
    events = [e for e in world.events if e.service == service]
    parts: dict[str, list[str]] = {"archive": [], "rotated": [], "current": []}
    rotated: list[Event] = []
    for event in events:
        if style.archive is not None and event.at < style.archive:
            parts["archive"].append(line(world, event, style))
        elif style.rotation is not None and event.at < style.rotation:
            parts["rotated"].append(line(world, event, style))
            rotated.append(event)
        else:
            parts["current"].append(line(world, event, style))
    if style.overlap and rotated:
        repeated = [line(world, e, style, style.overlap_style) for e in rotated[-style.overlap :]]
        parts["current"] = repeated + parts["current"]
    return parts


def render_world(world: World) -> Workspace:
    ws = Workspace()
    archive: dict[str, bytes] = {}
    bundle: dict[str, bytes] = {}
    archive_text, bundle_text = [], []
    for service in SERVICES:
        style = world.styles[service]
        ending = "\r\n" if style.crlf else "\n"
        parts = log_parts(world, service)
        data = {k: (ending.join(v) + ending).encode() if v else b"" for k, v in parts.items()}
        ws.add(f"logs/{service}.log", data["current"], "\n".join(parts["current"]))
        if parts["rotated"]:
            if world.render.get("bundle") == service:
                bundle[f"{service}.log.1"] = data["rotated"]
                bundle_text += parts["rotated"]
            elif style.rotated_gz:
                ws.add(f"logs/{service}.log.1.gz", r.gzip_bytes(data["rotated"]), "\n".join(parts["rotated"]))
            else:
                ws.add(f"logs/{service}.log.1", data["rotated"], "\n".join(parts["rotated"]))
        if parts["archive"]:
            archive[f"{service}.log.2.gz"] = r.gzip_bytes(data["archive"])
            archive_text += parts["archive"]
    if archive:
        ws.add(f"archive/logs-{world.day.isoformat()}.tar.gz", r.tar_gz_bytes(archive), "\n".join(archive_text))
    if bundle:
        ws.add("archive/incident_bundle.zip", r.zip_bytes(bundle), "\n".join(bundle_text))
    hosts(world, ws)
    changes(world, ws)
    runbook(world, ws)
    dashboard(world, ws)
    level = world.render.get("tool")
    if level:
        detail = " (line 1: unexpected byte 0x1f)" if level == 1 else ""
        crlf = "LC_ALL=C grep -q $'\\r' \"$f\" || " if level == 3 else ""
        ws.add_text("tools/logcat.sh", TOOL.format(crlf=crlf, detail=detail))
    ws.add_text("README.md", readme(world, ws))
    return ws


def hosts(world: World, ws: Workspace) -> None:
    rows = []
    for service in SERVICES:
        host, style = world.hosts[service], world.styles[service]
        text = f"HOSTNAME={host}\n"
        if style.stamp == "utc":
            text += "TZ=UTC\n"
        else:
            zone = OFFSETS.get(style.offset_minutes, "Europe/Lisbon")
            text += f"TZ={zone}\n"
            if style.stamp == "naive":
                text += (
                    f"# {service} writes local wall-clock time without a zone: UTC{offset_text(style.offset_minutes)}"
                    f" on {world.day.isoformat()}\n"
                )
        ws.add_text(f"hosts/{host}.env", text)
        rows.append([host, "prod"])
    for event in world.events:
        if event.env != "prod" and [event.host, event.env] not in rows:
            rows.append([event.host, event.env])
    ws.add("inventory.csv", r.csv_bytes(["host", "environment"], sorted(rows)))
    report = [f"NTP check {world.day.isoformat()} 05:55 UTC", "", "host              clock offset"]
    report += [f"{world.hosts[s]:<18}{world.styles[s].skew_ms / 1000:+.3f} s" for s in SERVICES]
    ws.add_text("ops/ntp_report.txt", "\n".join(report) + "\n")


def _change_line(c: Change) -> str:
    record: dict[str, object] = {
        "id": c.id,
        "time": c.at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{c.at.microsecond // 1000:03d}Z",
        "service": c.service,
        "key": c.key,
        "old": c.old,
        "new": c.new,
        "author": c.author,
        "noop": c.noop,
    }
    if c.op != "set":
        record["op"] = c.op
    return json.dumps(record)


def changes(world: World, ws: Workspace) -> None:
    ordered = sorted(world.changes, key=lambda c: c.at)
    if world.rotated_changes:
        cut = world.root_change.at - timedelta(hours=1, minutes=30)
        old = [c for c in ordered if c.at < cut]
        new = [c for c in ordered if c.at >= cut]
        rng = seeded("changes", world.seed)
        rng.shuffle(old)
        rng.shuffle(new)
        text = "\n".join(_change_line(c) for c in old) + "\n"
        ws.add("config/changes.jsonl.1.gz", r.gzip_bytes(text.encode()), text)
        ordered = new
    ws.add_text("config/changes.jsonl", "\n".join(_change_line(c) for c in ordered) + "\n")
    names = sorted({*SERVICES, *(world.service_of(c.service) for c in world.changes)})
    lines = ["services:"]
    for name in names:
        aliases = sorted(a for a, s in world.aliases.items() if s == name)
        lines.append(f"  - name: {name}")
        lines.append(f"    aliases: [{', '.join(aliases)}]")
    ws.add_text("config/services.yaml", "\n".join(lines) + "\n")
    if world.baseline:
        ws.add("config/baseline/" + world.root + ".json", r.json_bytes(dict(sorted(world.baseline.items()))))


def runbook(world: World, ws: Workspace) -> None:
    text = (
        "# Known harmless errors\n\nThese ERROR messages are expected and are not part of any incident:\n\n"
        + "".join(f"- `{m}`\n" for m in world.known)
    )
    ws.add_text("runbook/known_errors.md", text)
    if world.addendum or world.retracted:
        lines = [f"# Addendum ({(world.day + timedelta(days=1)).isoformat()})", ""]
        lines += [f"- `{m}` is harmless too." for m in world.addendum]
        lines += [f"- `{m}` is no longer harmless: it now signals failed requests." for m in world.retracted]
        ws.add_text("runbook/known_errors_addendum.md", "\n".join(lines) + "\n")


def dashboard(world: World, ws: Workspace) -> None:
    stale = world.render.get("stale")
    if not stale:
        return
    level, generated = stale
    errors = incident_errors(world)

    def counts(moment: datetime, services: tuple[str, ...] = SERVICES) -> list[list[object]]:
        return [
            [s, sum(1 for e in errors if e.service == s and e.at <= moment)]
            for s in services
            if any(e.service == s for e in errors)
        ]

    header = f"# generated_at: {generated.strftime('%Y-%m-%dT%H:%M:%SZ')}\n" if level == 1 else ""
    ws.add_text("dashboards/error_summary.csv", header + r.csv_bytes(["service", "errors"], counts(generated)).decode())
    if level >= 2:
        ws.add_text("dashboards/refresh.log", f"{generated.strftime('%Y-%m-%dT%H:%M:%SZ')} error_summary refreshed\n")
    if level == 3:
        end = max(e.at for e in errors) + timedelta(minutes=5)
        partial = tuple(sorted({e.service for e in errors}))[:2]
        ws.add_text(
            "dashboards/error_summary_v2.csv", r.csv_bytes(["service", "errors"], counts(end, partial)).decode()
        )


def readme(world: World, ws: Workspace) -> str:
    lines = [
        f"# Incident review: checkout failures on {world.day.isoformat()}",
        "",
        "- `logs/`: one log per service; rotated files sit beside the current one (`.log.1`, `.log.1.gz`).",
        "- `config/changes.jsonl`: configuration change records (JSON lines, times in UTC).",
        "- `config/services.yaml`: the services and the other names they go by.",
        "- `hosts/`: host settings; `ops/ntp_report.txt`: clock offsets measured that morning.",
        "- `inventory.csv`: which host belongs to which environment.",
        "- `runbook/`: known harmless errors.",
    ]
    if any(p.startswith("archive/") for p in ws.files):
        lines.append("- `archive/`: older and bundled log files.")
    if any(p.startswith("config/baseline/") for p in ws.files):
        lines.append("- `config/baseline/`: service configurations before the day's changes.")
    lines += [
        "",
        "Change records: `noop: true` marks a change that does not alter behaviour; a record with `op: rename` renames "
        "the key named in `old` to the name in `new`, keeping its value.",
    ]
    if world.render.get("tool"):
        lines += ["", "Read a log with `tools/logcat.sh FILE`: it prints one event per line."]
    return "\n".join(lines) + "\n"
