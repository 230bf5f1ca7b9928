#!/usr/bin/env python3
"""Summarise service logs: errors per service and per time window, the first
failure, and how errors line up with deploys.

Reads plain and gzip-rotated files (gzip is detected by content, not by name)
in three line formats:

  2024-05-01T10:01:05.120Z ERROR [api] message          (bracketed service)
  2024-05-01 10:01:05,120 ERROR api: message             (service before colon)
  ts=2024-05-01T12:02:13+02:00 level=error service=worker msg="..."   (key=value)
  {"ts": "...", "level": "error", "service": "worker", "msg": "..."}  (JSON lines)

Lines that do not start a record (stack traces, wrapped messages) are attached
to the previous record. Timestamps are normalised to UTC; timestamps without an
offset are taken as UTC. Standard library only.

Exit codes: 0 summary produced, 2 usage or input error.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shlex
import sys
import zlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_USAGE = 0, 2
UTC = timezone.utc  # noqa: UP017 - datetime.UTC needs Python 3.11; this script supports 3.10
ERROR_LEVELS = {"ERROR", "FATAL"}
LEVEL_ALIASES = {"WARNING": "WARN", "ERR": "ERROR", "CRITICAL": "FATAL", "CRIT": "FATAL",
                 "EMERG": "FATAL", "ALERT": "FATAL", "PANIC": "FATAL", "NOTICE": "INFO", "TRACE": "DEBUG"}
LEVELS = r"(?i:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|CRIT|ALERT|EMERG|PANIC)"
TS = r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?"
PLAIN = re.compile(
    rf"^(?P<ts>{TS})\s+\[?(?P<level>{LEVELS})\]?\s+(?:\[(?P<svc>[\w.-]+)\]\s*|(?P<svc2>[\w.-]+):\s+)?(?P<msg>.*)$"
)
KV_START = re.compile(rf"^(?:ts|time|timestamp)=(?:{TS}|\"{TS}\")\s")


class InputError(Exception):
    """Input files or options cannot be used."""


@dataclass
class Record:
    ts: datetime
    level: str
    service: str
    message: str
    source: str
    line: int
    continuation: list[str] = field(default_factory=list)


def parse_ts(text: str) -> datetime:
    s = text.strip().replace(",", ".").replace(" ", "T", 1)
    if s.endswith("Z"):
        s = s[:-1] + "+00:00"
    s = re.sub(r"([+-]\d{2})(\d{2})$", r"\1:\2", s)
    s = re.sub(r"\.(\d+)", lambda m: "." + m.group(1)[:6].ljust(6, "0"), s)  # ns -> us; 3.10 needs 3 or 6 digits
    value = datetime.fromisoformat(s)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def norm_level(level: str) -> str:
    up = level.upper()
    return LEVEL_ALIASES.get(up, up)


def service_from_name(path: Path) -> str:
    name = re.sub(r"\.gz$", "", path.name)
    name = re.sub(r"\.\d+$", "", name)
    name = re.sub(r"\.log$", "", name)
    name = re.sub(r"[-_.]?\d{8}$", "", name)
    return name or path.name


def parse_line(line: str, default_service: str) -> tuple[datetime, str, str, str] | None:
    stripped = line.strip()
    if stripped.startswith("{"):
        try:
            obj = json.loads(stripped)
        except json.JSONDecodeError:
            return None
        if not isinstance(obj, dict):
            return None
        ts = next((obj[k] for k in ("ts", "time", "timestamp", "@timestamp") if k in obj), None)
        if not isinstance(ts, str):
            return None
        level = next((str(obj[k]) for k in ("level", "severity", "lvl") if k in obj), "INFO")
        svc = next((str(obj[k]) for k in ("service", "svc", "app") if k in obj), default_service)
        msg = next((str(obj[k]) for k in ("msg", "message") if k in obj), "")
        try:
            return parse_ts(ts), norm_level(level), svc, msg
        except ValueError:
            return None
    if KV_START.match(stripped):
        try:
            parts = shlex.split(stripped)
        except ValueError:
            return None
        kv = dict(p.split("=", 1) for p in parts if "=" in p)
        ts = next(kv[k] for k in ("ts", "time", "timestamp") if k in kv)
        try:
            stamp = parse_ts(ts)
        except ValueError:
            return None
        msg = kv.get("msg", kv.get("message", ""))
        extras = " ".join(f"{k}={v}" for k, v in kv.items()
                          if k not in {"ts", "time", "timestamp", "level", "service", "msg", "message"})
        return (stamp, norm_level(kv.get("level", "INFO")), kv.get("service", default_service),
                f"{msg} {extras}".strip())
    m = PLAIN.match(stripped)
    if not m:
        return None
    try:
        stamp = parse_ts(m.group("ts"))
    except ValueError:
        return None
    svc = m.group("svc") or m.group("svc2") or default_service
    return stamp, norm_level(m.group("level")), svc, m.group("msg")


def read_gzip(path: Path) -> tuple[bytes, str | None]:
    """Decompress a (possibly multi-member) gzip file, keeping what precedes any damage.

    gzip.open would raise on a truncated file (rotated while being written) and lose
    the buffered data; feeding zlib directly keeps every byte that could be decoded.
    """
    out = bytearray()
    decoder, fed = zlib.decompressobj(16 + zlib.MAX_WBITS), False
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            while chunk:
                fed = True
                try:
                    out += decoder.decompress(chunk)
                except zlib.error as exc:
                    return bytes(out), f"{path}: corrupt gzip data ({exc}); kept the lines before it"
                chunk = b""
                if decoder.eof:  # next member, if any (skip zero padding)
                    chunk = decoder.unused_data.lstrip(b"\x00")
                    decoder, fed = zlib.decompressobj(16 + zlib.MAX_WBITS), False
    if fed and not decoder.eof:
        out += decoder.flush()
        return bytes(out), f"{path}: gzip stream truncated; kept the lines read before the break"
    return bytes(out), None


def read_lines(path: Path) -> tuple[list[str], str | None]:
    """Return the decoded lines of a plain or gzip file and a warning, if any."""
    with path.open("rb") as fh:
        magic = fh.read(2)
    warning = None
    if magic == b"\x1f\x8b":
        data, warning = read_gzip(path)
    else:
        data = path.read_bytes()
    return data.decode("utf-8", errors="replace").splitlines(), warning


def collect_files(inputs: list[str]) -> list[Path]:
    files: list[Path] = []
    for item in inputs:
        path = Path(item)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.is_file() and (".log" in p.name or p.suffix == ".gz")))
        elif path.is_file():
            files.append(path)
        else:
            raise InputError(f"log path not found: {path}")
    if not files:
        raise InputError("no log files found (expected names containing '.log' or ending in '.gz')")
    return files


def parse_duration(text: str) -> timedelta:
    m = re.fullmatch(r"(\d+)\s*([smhd])", text.strip().lower())
    if not m or int(m.group(1)) == 0:
        raise ValueError(f"invalid duration {text!r}; use e.g. 30s, 5m, 1h")
    unit = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}[m.group(2)]
    return timedelta(**{unit: int(m.group(1))})


def parse_when(text: str) -> datetime:
    try:
        return parse_ts(text if "T" in text or " " in text else text + "T00:00:00")
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid timestamp {text!r}") from None


def load_deploys(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise InputError(f"deploys file not found: {path}")
    deploys = []
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or not {"timestamp", "service"} <= set(reader.fieldnames):
            raise InputError(f"{path}: deploys CSV needs 'timestamp' and 'service' columns")
        for row in reader:
            try:
                ts = parse_ts(row["timestamp"])
            except ValueError:
                raise InputError(f"{path} line {reader.line_num}: bad timestamp {row['timestamp']!r}") from None
            deploys.append({"ts": ts, "service": row["service"].strip(), "version": (row.get("version") or "").strip()})
    return sorted(deploys, key=lambda d: d["ts"])


def iso(ts: datetime) -> str:
    return ts.strftime("%Y-%m-%dT%H:%M:%S") + (f".{ts.microsecond // 1000:03d}" if ts.microsecond else "") + "Z"


def summarise(args: argparse.Namespace) -> dict[str, Any]:
    files = collect_files(args.paths)
    deploys = load_deploys(Path(args.deploys)) if args.deploys else []
    records: list[Record] = []
    unparsed: list[str] = []
    warnings: list[str] = []
    continuation_lines = 0
    for path in files:
        lines, warning = read_lines(path)
        if warning:
            warnings.append(warning)
        default_service = service_from_name(path)
        current: Record | None = None
        for number, text in enumerate(lines, start=1):
            if not text.strip():
                continue
            parsed = parse_line(text, default_service)
            if parsed is None:
                if current is not None:
                    current.continuation.append(text)
                    continuation_lines += 1
                else:
                    unparsed.append(f"{path}:{number}: {text[:120]}")
                continue
            current = Record(*parsed, source=str(path), line=number)
            records.append(current)
    if args.since:
        records = [r for r in records if r.ts >= args.since]
    if args.until:
        records = [r for r in records if r.ts < args.until]
    records.sort(key=lambda r: r.ts)  # stable: ties keep file order
    errors = [r for r in records if r.level in ERROR_LEVELS]

    by_service: dict[str, Counter[str]] = defaultdict(Counter)
    for r in records:
        by_service[r.service][r.level] += 1
    window_s = int(parse_duration(args.window).total_seconds())
    windows: dict[datetime, Counter[str]] = defaultdict(Counter)
    for r in errors:
        start = datetime.fromtimestamp(int(r.ts.timestamp()) // window_s * window_s, UTC)
        windows[start][r.service] += 1
    top_messages = Counter((r.service, re.sub(r"\d+", "N", r.message)[:160]) for r in errors)

    def describe(r: Record) -> dict[str, Any]:
        return {"ts": iso(r.ts), "service": r.service, "level": r.level, "message": r.message,
                "source": r.source, "line": r.line, "continuation": r.continuation[:20]}

    first_failure = describe(errors[0]) if errors else None
    if errors and deploys:
        before = [d for d in deploys if d["ts"] <= errors[0].ts]
        if before:
            d = before[-1]
            first_failure["preceding_deploy"] = {
                "service": d["service"], "version": d["version"], "ts": iso(d["ts"]),
                "seconds_before_failure": int((errors[0].ts - d["ts"]).total_seconds()),
            }
    first_per_service = {}
    for r in errors:
        first_per_service.setdefault(r.service, iso(r.ts))

    span = parse_duration(args.correlate_window)
    correlation = []
    for d in deploys:
        same = [r for r in errors if r.service == d["service"]]
        after = [r for r in same if d["ts"] <= r.ts < d["ts"] + span]
        correlation.append({
            "service": d["service"], "version": d["version"], "ts": iso(d["ts"]),
            "errors_before": sum(1 for r in same if d["ts"] - span <= r.ts < d["ts"]),
            "errors_after": len(after),
            "all_services_errors_after": sum(1 for r in errors if d["ts"] <= r.ts < d["ts"] + span),
            "first_error_after": iso(after[0].ts) if after else None,
        })

    return {
        "files": [str(p) for p in files],
        "records": len(records),
        "continuation_lines": continuation_lines,
        "unparsed_lines": len(unparsed),
        "unparsed_examples": unparsed[:5],
        "warnings": warnings,
        "time_range": [iso(records[0].ts), iso(records[-1].ts)] if records else None,
        "total_errors": len(errors),
        "services": {s: {"errors": c["ERROR"] + c["FATAL"], "fatal": c["FATAL"], "warnings": c["WARN"],
                         "records": sum(c.values()), "first_error": first_per_service.get(s)}
                     for s, c in sorted(by_service.items())},
        "window": args.window,
        "error_windows": [{"start": iso(w), "total": sum(c.values()), "by_service": dict(sorted(c.items()))}
                          for w, c in sorted(windows.items())],
        "top_error_messages": [{"service": s, "pattern": m, "count": n} for (s, m), n in top_messages.most_common(5)],
        "first_failure": first_failure,
        "deploys": correlation,
    }


def to_markdown(s: dict[str, Any]) -> str:
    out = ["# Log summary", ""]
    rng = s["time_range"]
    out.append(f"- Files: {len(s['files'])}; records: {s['records']} ({s['continuation_lines']} continuation lines); "
               f"unparsed lines: {s['unparsed_lines']}")
    if rng:
        out.append(f"- Time range (UTC): {rng[0]} .. {rng[1]}")
    out.append(f"- Errors (ERROR+FATAL): {s['total_errors']}")
    out += [f"- Warning: {w}" for w in s["warnings"]]
    out += ["", "## Per service", "", "| service | errors | fatal | warnings | records | first error |",
            "|---|---:|---:|---:|---:|---|"]
    for name, v in s["services"].items():
        cells = [name, v["errors"], v["fatal"], v["warnings"], v["records"], v["first_error"] or ""]
        out.append("| " + " | ".join(map(str, cells)) + " |")
    out += ["", f"## Errors per {s['window']} window", "", "| window start | total | by service |", "|---|---:|---|"]
    for w in s["error_windows"]:
        by_service = ", ".join(f"{k}={v}" for k, v in w["by_service"].items())
        out.append(f"| {w['start']} | {w['total']} | {by_service} |")
    ff = s["first_failure"]
    out += ["", "## First failure", ""]
    if ff:
        out.append(f"{ff['ts']} {ff['service']} {ff['level']}: {ff['message']} ({ff['source']}:{ff['line']})")
        if "preceding_deploy" in ff:
            d = ff["preceding_deploy"]
            out.append(f"Preceded by deploy {d['service']} {d['version']} at {d['ts']} "
                       f"({d['seconds_before_failure']}s earlier).")
    else:
        out.append("No ERROR or FATAL records.")
    if s["deploys"]:
        out += ["", "## Deploys", "",
                "| deploy | at | errors before | errors after | all services after | first error after |",
                "|---|---|---:|---:|---:|---|"]
        for d in s["deploys"]:
            out.append(f"| {d['service']} {d['version']} | {d['ts']} | {d['errors_before']} | {d['errors_after']} | "
                       f"{d['all_services_errors_after']} | {d['first_error_after'] or ''} |")
    return "\n".join(out) + "\n"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Summarise plain and gzip-rotated service logs: errors per service and window, "
                    "first failure, deploy correlation.",
        epilog="Exit codes: 0 summary produced, 2 usage/input error.",
    )
    parser.add_argument("paths", nargs="+", help="log files or directories (recursive; *.log*, *.gz)")
    parser.add_argument("--deploys", help="CSV with columns timestamp,service[,version]")
    parser.add_argument("--window", default="5m", help="bucket size for error counts (default 5m)")
    parser.add_argument("--correlate-window", default="15m",
                        help="compare errors this long before/after each deploy (default 15m)")
    parser.add_argument("--since", type=parse_when, help="ignore records before this UTC timestamp")
    parser.add_argument("--until", type=parse_when, help="ignore records at or after this UTC timestamp")
    parser.add_argument("--format", choices=["markdown", "json"], default="markdown")
    parser.add_argument("--output", help="write the report here instead of stdout")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for option in ("window", "correlate_window"):
        try:
            parse_duration(getattr(args, option))
        except ValueError as exc:
            parser.error(f"--{option.replace('_', '-')}: {exc}")
    try:
        summary = summarise(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    text = json.dumps(summary, indent=2) + "\n" if args.format == "json" else to_markdown(summary)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
