#!/usr/bin/env python3
"""Busy times, conflicts and shared free slots from iCalendar (.ics) files, with the `icalendar` library.

Recurring events are expanded (RRULE, EXDATE, RECURRENCE-ID overrides), cancelled events and
transparent ("free") events do not block time, and every time is shown in one time zone.

Exit codes: 0 done, 1 no free slot of the asked length, 2 usage or input error, 3 icalendar missing.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

try:
    import icalendar
    from dateutil.rrule import rrulestr
except ImportError:  # reported by main with exit code 3
    icalendar = None

MAX_OCCURRENCES = 5000


class InputError(Exception):
    """A problem with the input: exit code 2."""


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise InputError(f"unknown time zone: {name}") from exc


def as_datetime(value: date | datetime, floating: ZoneInfo) -> datetime:
    """An aware datetime: dates start at midnight and floating times are read in `floating`."""
    if not isinstance(value, datetime):
        return datetime.combine(value, time(), floating)
    return value if value.tzinfo is not None else value.replace(tzinfo=floating)


def load_events(path: Path, floating: ZoneInfo, start: datetime, end: datetime) -> list[dict[str, Any]]:
    """The occurrences of `path`'s events that overlap [start, end), recurring ones expanded."""
    if not path.is_file():
        raise InputError(f"calendar not found: {path}")
    try:
        calendar = icalendar.Calendar.from_ical(path.read_bytes())
    except ValueError as exc:
        raise InputError(f"{path}: not an iCalendar file ({exc})") from exc
    masters, overrides = [], {}
    for event in calendar.walk("VEVENT"):
        if event.get("RECURRENCE-ID") is not None:
            moved = as_datetime(event.decoded("RECURRENCE-ID"), floating).astimezone(timezone.utc)
            overrides[(str(event.get("UID")), moved)] = event
        else:
            masters.append(event)
    occurrences = []
    for event in masters:
        uid = str(event.get("UID"))
        for begin in _starts(event, floating, start):
            override = overrides.pop((uid, begin.astimezone(timezone.utc)), None)
            occurrences.append(_occurrence(override if override is not None else event, path, floating, begin))
    for event in overrides.values():  # an override whose original instance is outside the rule
        occurrences.append(_occurrence(event, path, floating, None))
    return [o for o in occurrences if o["start"] < end and o["end"] > start and not o["cancelled"]]


def _starts(event: Any, floating: ZoneInfo, window_start: datetime) -> list[datetime]:
    if event.get("DTSTART") is None:
        raise InputError(f"event {event.get('UID')} has no DTSTART")
    first = as_datetime(event.decoded("DTSTART"), floating)
    if event.get("RRULE") is None:
        return [first]
    rule = rrulestr(event["RRULE"].to_ical().decode(), dtstart=first, forceset=True)
    exdates = event.get("EXDATE", [])
    for group in exdates if isinstance(exdates, list) else [exdates]:
        for excluded in group.dts:
            rule.exdate(as_datetime(excluded.dt, floating))
    starts = []
    for begin in rule:
        starts.append(begin)
        if len(starts) >= MAX_OCCURRENCES or begin > window_start + timedelta(days=3660):
            break
    return starts


def _occurrence(event: Any, path: Path, floating: ZoneInfo, begin: datetime | None) -> dict[str, Any]:
    first = as_datetime(event.decoded("DTSTART"), floating)
    if event.get("DTEND") is not None:
        length = as_datetime(event.decoded("DTEND"), floating) - first
    elif event.get("DURATION") is not None:
        length = event.decoded("DURATION")
    else:
        all_day = not isinstance(event.decoded("DTSTART"), datetime)
        length = timedelta(days=1) if all_day else timedelta(0)
    if event.get("RECURRENCE-ID") is not None or begin is None:
        begin = first
    return {
        "calendar": path.name,
        "uid": str(event.get("UID")),
        "summary": str(event.get("SUMMARY", "")),
        "start": begin,
        "end": begin + length,
        "busy": str(event.get("TRANSP", "OPAQUE")).upper() != "TRANSPARENT",
        "cancelled": str(event.get("STATUS", "")).upper() == "CANCELLED",
    }


def conflicts(events: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Pairs of busy events that overlap, in start order."""
    busy = sorted((e for e in events if e["busy"]), key=lambda e: (e["start"], e["end"]))
    pairs = []
    for index, first in enumerate(busy):
        for second in busy[index + 1 :]:
            if second["start"] >= first["end"]:
                break
            pairs.append((first, second))
    return pairs


def free_slots(events: list[dict[str, Any]], days: list[date], hours: tuple[time, time], tz: ZoneInfo,
               minutes: int) -> list[tuple[datetime, datetime]]:
    """Gaps of at least `minutes` between busy events, inside working hours on `days`."""
    busy = sorted((e["start"], e["end"]) for e in events if e["busy"])
    slots = []
    for day in days:
        cursor, close = datetime.combine(day, hours[0], tz), datetime.combine(day, hours[1], tz)
        for begin, finish in busy + [(close, close)]:
            if finish <= cursor:
                continue
            gap_end = min(begin, close)
            if gap_end - cursor >= timedelta(minutes=minutes):
                slots.append((cursor, gap_end))
            cursor = max(cursor, finish)
            if cursor >= close:
                break
    return slots


def parse_hours(text: str) -> tuple[time, time]:
    try:
        opening, closing = (time.fromisoformat(part) for part in text.split("-", 1))
    except ValueError as exc:
        raise InputError(f"working hours must look like 09:00-17:00, got {text!r}") from exc
    if closing <= opening:
        raise InputError(f"working hours end before they start: {text}")
    return opening, closing


def parse_day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise InputError(f"bad date {text!r} (YYYY-MM-DD)") from exc


def run(args: argparse.Namespace) -> tuple[dict[str, Any], int]:
    tz = zone(args.tz)
    floating = zone(args.floating_tz) if args.floating_tz else tz
    first, last = parse_day(args.start), parse_day(args.end)
    if last < first:
        raise InputError("--end is before --start")
    window = (datetime.combine(first, time(), tz), datetime.combine(last + timedelta(days=1), time(), tz))
    events = [e for path in args.calendars for e in load_events(path, floating, *window)]
    events.sort(key=lambda e: (e["start"], e["end"], e["calendar"]))
    days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    days = [d for d in days if args.weekends or d.weekday() < 5]

    def local(moment: datetime) -> str:
        return moment.astimezone(tz).isoformat(timespec="minutes")

    summary: dict[str, Any] = {
        "timezone": args.tz,
        "events": [{"calendar": e["calendar"], "summary": e["summary"], "start": local(e["start"]),
                    "end": local(e["end"]), "busy": e["busy"]} for e in events],
        "conflicts": [[f"{a['calendar']}: {a['summary']} @ {local(a['start'])}",
                       f"{b['calendar']}: {b['summary']} @ {local(b['start'])}"] for a, b in conflicts(events)],
    }
    if args.free is None:
        return summary, 0
    slots = free_slots(events, days, parse_hours(args.hours), tz, args.free)
    summary["free"] = [{"start": local(a), "end": local(b), "minutes": int((b - a).total_seconds() // 60)}
                       for a, b in slots]
    return summary, 0 if slots else 1


def print_text(summary: dict[str, Any]) -> None:
    print(f"times in {summary['timezone']}")
    for event in summary["events"]:
        mark = "" if event["busy"] else "  (free)"
        print(f"{event['start']} - {event['end']}  {event['calendar']}: {event['summary']}{mark}")
    for first, second in summary["conflicts"]:
        print(f"CONFLICT {first} <> {second}")
    for slot in summary.get("free", []):
        print(f"FREE {slot['start']} - {slot['end']} ({slot['minutes']} min)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Expand .ics calendars over a date range: events, conflicts and shared free slots.",
        epilog="Exit codes: 0 done, 1 no free slot of the asked length, 2 usage or input error, "
        "3 the icalendar library is not installed (pip install icalendar).",
    )
    parser.add_argument("calendars", nargs="+", type=Path, help=".ics files; free slots are free in all of them")
    parser.add_argument("--start", required=True, help="first day, YYYY-MM-DD (in --tz)")
    parser.add_argument("--end", required=True, help="last day, YYYY-MM-DD, included")
    parser.add_argument("--tz", default="UTC", help="time zone for the range, the hours and the output")
    parser.add_argument("--floating-tz", help="zone of times without one (default: --tz)")
    parser.add_argument("--free", type=int, metavar="MINUTES", help="list free slots of at least this length")
    parser.add_argument("--hours", default="09:00-17:00", help="working hours for --free (default 09:00-17:00)")
    parser.add_argument("--weekends", action="store_true", help="look for free slots on weekends too")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    if icalendar is None:
        print("error: the icalendar library is not installed (pip install icalendar)", file=sys.stderr)
        return 3
    try:
        summary, code = run(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print_text(summary)
    return code


if __name__ == "__main__":
    sys.exit(main())
