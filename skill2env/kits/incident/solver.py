"""Reference solver for the incident kit.

It reads every log the workspace holds (current, rotated, gzip, tar.gz and ZIP archives), normalises
each timestamp to UTC with the host settings and the NTP report, keeps production events once, drops
the runbook's harmless errors, and derives the timeline, the root cause and the counts from that.
"""

from __future__ import annotations

import gzip
import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime

LINE = re.compile(
    r"^(?P<stamp>\d{4}-\d{2}-\d{2}[T ][\d:.]+(?:Z|[+-]\d{2}:\d{2})?)\s+level=(?P<level>\w+)"
    r"(?:\s+env=(?P<env>\S+))?\s+service=(?P<service>\S+)\s+host=(?P<host>\S+)\s+req=(?P<req>\S+)"
    r"(?:\s+status=(?P<status>\d+))?\s+msg=\"(?P<msg>.*)\"\s*$"
)


def text_of(relpath: str) -> str:
    path = rt.workspace() / relpath
    return rt.read_text(path) if path.exists() else ""


def log_texts() -> list[str]:
    texts = []
    for path in rt.files("logs/*") + rt.files("archive/*"):
        for _, data in rt.members(rt.rel(path), path.read_bytes()):
            texts.append(rt.decode(data))
    return texts


def host_offsets() -> dict[str, timedelta]:
    offsets = {}
    for path in rt.files("hosts/*.env"):
        text = rt.read_text(path)
        host = re.search(r"HOSTNAME=(\S+)", text)
        local = re.search(r"UTC([+-])(\d{2}):(\d{2})", text)
        if host and local:
            sign = 1 if local.group(1) == "+" else -1
            offsets[host.group(1)] = sign * timedelta(hours=int(local.group(2)), minutes=int(local.group(3)))
    return offsets


def skews() -> dict[str, timedelta]:
    found = re.findall(r"^(\S+)\s+([+-][\d.]+) s$", text_of("ops/ntp_report.txt"), re.M)
    return {host: timedelta(seconds=float(value)) for host, value in found}


def utc(stamp: str, host: str, offsets: dict[str, timedelta], skew: dict[str, timedelta]) -> datetime:
    moment = datetime.fromisoformat(stamp.replace(" ", "T").replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = (moment - offsets.get(host, timedelta(0))).replace(tzinfo=UTC)
    return moment.astimezone(UTC) - skew.get(host, timedelta(0))


def known_errors() -> set[str]:
    known: set[str] = set()
    retracted: set[str] = set()
    for path in rt.files("runbook/*.md"):
        for line in rt.read_text(path).splitlines():
            for message in re.findall(r"`([^`]+)`", line):
                (retracted if "no longer harmless" in line else known).add(message)
    return known - retracted


def changes() -> list[dict[str, Any]]:
    records = []
    for path in rt.files("config/changes.jsonl*"):
        data = path.read_bytes()
        text = rt.decode(gzip.decompress(data) if path.name.endswith(".gz") else data)
        records += [json.loads(line) for line in text.splitlines() if line.strip()]
    for record in records:
        record["at"] = datetime.fromisoformat(record["time"].replace("Z", "+00:00"))
    return sorted(records, key=lambda r: r["at"])


def aliases() -> dict[str, str]:
    names: dict[str, str] = {}
    current = ""
    for line in text_of("config/services.yaml").splitlines():
        name = re.match(r"\s*- name: (\S+)", line)
        if name:
            current = name.group(1)
            names[current] = current
        listed = re.match(r"\s*aliases: \[(.*)\]", line)
        if listed and current:
            for alias in filter(None, (a.strip() for a in listed.group(1).split(","))):
                names[alias] = current
    return names


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def main() -> None:
    offsets, skew = host_offsets(), skews()
    environments = {}
    for line in text_of("inventory.csv").splitlines()[1:]:
        host, _, env = line.partition(",")
        environments[host] = env.strip()
    known = known_errors()
    seen: set[tuple[Any, ...]] = set()
    errors: list[dict[str, Any]] = []
    for text in log_texts():
        for raw in text.splitlines():
            match = LINE.match(raw.strip())
            if not match:
                continue
            event = match.groupdict()
            event["at"] = utc(event["stamp"], event["host"], offsets, skew)
            identity = (event["at"], event["service"], event["host"], event["req"], event["msg"])
            if identity in seen:
                continue
            seen.add(identity)
            env = event["env"] or environments.get(event["host"], "")
            if event["level"] == "ERROR" and env == "prod" and event["msg"] not in known:
                errors.append(event)
    services = sorted({e["service"] for e in errors})
    timeline = {s: [e["at"] for e in errors if e["service"] == s] for s in services}
    rt.write_csv(
        "timeline.csv",
        ["service", "first_error_utc", "last_error_utc", "errors"],
        [[s, stamp(min(t)), stamp(max(t)), len(t)] for s, t in timeline.items()],
    )
    if rt.partial_mode():
        return
    first = min(errors, key=lambda e: e["at"])
    names = aliases()
    records = changes()
    root = max(
        (
            c
            for c in records
            if names.get(c["service"], c["service"]) == first["service"]
            and c["at"] <= first["at"]
            and not c.get("noop")
            and c.get("op", "set") == "set"
        ),
        key=lambda c: c["at"],
    )
    gateway = {e["req"] for e in errors if e["service"] == "gateway"}
    report: dict[str, Any] = {
        "root_cause_change": root["id"],
        "first_failing_service": first["service"],
        "incident_start_utc": stamp(first["at"]),
        "incident_end_utc": stamp(max(e["at"] for e in errors)),
        "failed_requests": len(gateway),
        "errors_by_service": {s: len(t) for s, t in timeline.items()},
    }
    baseline = rt.workspace() / "config" / "baseline" / f"{first['service']}.json"
    if baseline.exists():
        config = json.loads(baseline.read_text(encoding="utf-8"))
        for change in records:
            if names.get(change["service"], change["service"]) != first["service"] or change["at"] > first["at"]:
                continue
            if change.get("op") == "rename":
                if change["old"] in config:
                    config[change["new"]] = config.pop(change["old"])
            else:
                config[change["key"]] = change["new"]
        report["config_at_start"] = config
    rt.write_json("report.json", report)
    rt.write_text(
        "postmortem.md",
        f"# Postmortem\n\nRoot cause: {root['id']}\n"
        f"First failing service: {first['service']}\nFailed requests: {len(gateway)}\n\n"
        f"Change {root['id']} set `{root['key']}` from {root['old']} to {root['new']} on "
        f"{first['service']}; its first error followed at {stamp(first['at'])} and the incident lasted "
        f"until {report['incident_end_utc']}.\n",
    )


if __name__ == "__main__":
    main()
