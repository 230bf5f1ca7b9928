"""Naive baseline for the incident kit: grep the logs, take the obvious reading.

It reads `logs/` (through the documented log reader when there is one, skipping what it rejects),
takes a timestamp without a zone as UTC and ignores clock offsets, keeps environments starting with
`prod`, drops byte-identical repeated lines, treats every runbook message as harmless, reuses the
dashboard export unless it is visibly dated before the last log line, and picks the latest change
filed under the failing service's exact name.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime


def read_log(path: Path) -> str:
    tool = rt.workspace() / "tools" / "logcat.sh"
    if tool.exists():
        done = subprocess.run(
            ["bash", str(tool), rt.rel(path)], capture_output=True, text=True, check=False, cwd=rt.workspace()
        )
        return done.stdout if done.returncode == 0 else ""
    data = path.read_bytes()
    return rt.decode(gzip.decompress(data) if path.name.endswith(".gz") else data)


def when(stamp: str) -> datetime:
    moment = datetime.fromisoformat(stamp.replace(" ", "T").replace("Z", "+00:00"))
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def main() -> None:
    known = set()
    for path in rt.files("runbook/*.md"):
        known |= set(re.findall(r"`([^`]+)`", rt.read_text(path)))
    seen, errors, latest = set(), [], None
    for path in rt.files("logs/*"):
        for raw in read_log(path).splitlines():
            if raw in seen or not raw.strip():
                continue
            seen.add(raw)
            fields = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', raw))
            head = re.match(r"^(\d{4}-\d{2}-\d{2}[T ]\S+)", raw)
            if not head:
                continue
            at = when(head.group(1))
            latest = max(latest, at) if latest else at
            message = fields.get("msg", "").strip('"')
            env = fields.get("env", "prod")
            if fields.get("level") == "ERROR" and env.startswith("prod") and message not in known:
                errors.append({"at": at, "service": fields["service"], "req": fields.get("req")})
    services = sorted({e["service"] for e in errors})
    timeline = {s: [e["at"] for e in errors if e["service"] == s] for s in services}
    counts = {s: len(t) for s, t in timeline.items()}
    dashboard = rt.workspace() / "dashboards" / "error_summary.csv"
    if dashboard.exists():
        text = rt.read_text(dashboard)
        dated = re.search(r"generated_at: (\S+)", text)
        if not dated or when(dated.group(1)) >= latest:  # type: ignore[operator]
            body = "\n".join(x for x in text.splitlines() if not x.startswith("#"))
            counts = {row["service"]: int(row["errors"]) for row in csv.DictReader(io.StringIO(body))}

    def stamp(moment: datetime) -> str:
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")

    rt.write_csv(
        "timeline.csv",
        ["service", "first_error_utc", "last_error_utc", "errors"],
        [[s, stamp(min(t)), stamp(max(t)), counts.get(s, len(t))] for s, t in timeline.items()],
    )
    first = min(errors, key=lambda e: e["at"])
    records: list[dict[str, Any]] = [
        json.loads(x) for x in rt.read_text(rt.workspace() / "config" / "changes.jsonl").splitlines() if x.strip()
    ]
    before = [r for r in records if r["service"] == first["service"] and when(r["time"]) <= first["at"]]
    root = max(before, key=lambda r: when(r["time"]))["id"] if before else ""
    failed = len({e["req"] for e in errors if e["service"] == "gateway"})
    report: dict[str, Any] = {
        "root_cause_change": root,
        "first_failing_service": first["service"],
        "incident_start_utc": stamp(first["at"]),
        "incident_end_utc": stamp(max(e["at"] for e in errors)),
        "failed_requests": failed,
        "errors_by_service": counts,
    }
    baseline = rt.workspace() / "config" / "baseline" / f"{first['service']}.json"
    if baseline.exists():
        config = json.loads(baseline.read_text(encoding="utf-8"))
        for record in sorted(records, key=lambda r: r["time"]):
            if record["service"] == first["service"] and when(record["time"]) <= first["at"]:
                config[record["key"]] = record["new"]
        report["config_at_start"] = config
    rt.write_json("report.json", report)
    rt.write_text(
        "postmortem.md", f"Root cause: {root}\nFirst failing service: {first['service']}\nFailed requests: {failed}\n"
    )


if __name__ == "__main__":
    main()
