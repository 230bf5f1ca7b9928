"""calendar: booking without double-booking, moving, cancelling, free slots."""

from __future__ import annotations

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound
from skill2env.compoworld.services.calendars import Calendar
from skill2env.compoworld.services.tests.support import fresh, raises


def test_booking_refuses_overlaps_for_any_attendee() -> None:
    calendar, universe = fresh(Calendar)
    standup = next(e for e in calendar.state.events.values() if e.title == "Support stand-up")
    person = standup.attendees[0]
    with raises(Conflict, "Support stand-up"):
        calendar.call(
            "create_event",
            {"title": "Clash", "start": standup.start.isoformat(), "duration_minutes": 30, "attendees": [person]},
        )
    booked = calendar.call(
        "create_event",
        {
            "title": "Refund review",
            "start": "2025-03-05T11:00:00Z",
            "duration_minutes": 45,
            "attendees": [person, universe.staff[2].email],
        },
    )
    assert booked["end"] == "2025-03-05T11:45:00Z"
    with raises(InvalidArgument):
        calendar.call(
            "create_event",
            {"title": "x", "start": "2025-03-05T11:00:00Z", "duration_minutes": 5, "attendees": [person]},
        )


def test_reschedule_keeps_length_and_cancel_frees_time() -> None:
    calendar, _ = fresh(Calendar)
    event = next(iter(calendar.state.events.values()))
    length = event.end - event.start
    moved = calendar.call("reschedule_event", {"event_id": event.event_id, "start": "2025-03-06T13:00:00Z"})
    assert (
        moved["start"] == "2025-03-06T13:00:00Z"
        and calendar.state.events[event.event_id].end - calendar.state.events[event.event_id].start == length
    )
    assert calendar.call("cancel_event", {"event_id": event.event_id})["status"] == "cancelled"
    with raises(Conflict):
        calendar.call("cancel_event", {"event_id": event.event_id})
    with raises(NotFound):
        calendar.call("cancel_event", {"event_id": "EVT-9999"})


def test_attendees_and_listing() -> None:
    calendar, universe = fresh(Calendar)
    event = next(iter(calendar.state.events.values()))
    newcomer = next(s.email for s in universe.staff if s.email not in event.attendees)
    if calendar._busy([newcomer], event.start, event.end):
        return
    updated = calendar.call("add_attendee", {"event_id": event.event_id, "email": newcomer})
    assert newcomer in updated["attendees"]
    with raises(Conflict, "already invited"):
        calendar.call("add_attendee", {"event_id": event.event_id, "email": newcomer})
    week = calendar.call("list_events", {"period": {"start": "2025-03-03", "end": "2025-03-09"}, "attendee": newcomer})
    assert event.event_id in [e["event_id"] for e in week]
    with raises(InvalidArgument, "before it starts"):
        calendar.call("list_events", {"period": {"start": "2025-03-09", "end": "2025-03-03"}})


def test_free_slot_skips_busy_time() -> None:
    calendar, _ = fresh(Calendar)
    standup = next(e for e in calendar.state.events.values() if e.title == "Support stand-up")
    slot = calendar.call(
        "find_free_slot", {"attendees": standup.attendees, "day": "2025-03-03", "duration_minutes": 60}
    )
    assert slot["start"] == "2025-03-03T09:30:00Z"
    with raises(NotFound):
        calendar.call("find_free_slot", {"attendees": standup.attendees, "day": "2025-03-03", "duration_minutes": 480})
