"""Calendar: the team's meetings — who attends, when, and free time for new ones."""

from __future__ import annotations

import random
from datetime import UTC, datetime, time, timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound
from skill2env.compoworld.service import Service, ServiceState, tool
from skill2env.compoworld.types import DateRange, Day, EmailAddress, EventId, Timestamp

WORKDAY = (time(9, 0), time(17, 0))
SLOT_STEP = timedelta(minutes=30)


class Event(BaseModel):
    event_id: EventId
    title: str
    start: Timestamp
    end: Timestamp
    attendees: list[EmailAddress]
    location: str = ""
    status: Literal["confirmed", "cancelled"] = "confirmed"


class TimeSlot(BaseModel):
    start: Timestamp
    end: Timestamp


class CalendarState(ServiceState):
    events: dict[str, Event] = Field(default_factory=dict)


def _overlaps(a_start: datetime, a_end: datetime, b_start: datetime, b_end: datetime) -> bool:
    return a_start < b_end and b_start < a_end


class Calendar(Service):
    name = "calendar"
    domain = "office"
    description = "The team calendar: meetings with attendees; refuses double-booking an attendee."
    State = CalendarState
    state: CalendarState

    @classmethod
    def fixture(cls, universe: Any) -> CalendarState:
        state = CalendarState(clock=universe.now)
        staff = universe.staff
        day = universe.now.replace(hour=0, minute=0)
        plan = (
            ("Support stand-up", 0, 9, 30, [s.email for s in staff if s.team == "support"]),
            ("Fulfilment sync", 0, 14, 60, [s.email for s in staff if s.team in ("fulfilment", "support")][:3]),
            ("Platform review", 1, 10, 60, [s.email for s in staff if s.team == "platform"]),
            ("Finance close", 2, 15, 45, [s.email for s in staff if s.team == "finance"]),
        )
        for title, offset, hour, minutes, attendees in plan:
            start = day + timedelta(days=offset, hours=hour)
            event_id = state.next_id("EVT")
            state.events[event_id] = Event(
                event_id=event_id,
                title=title,
                start=start,
                end=start + timedelta(minutes=minutes),
                attendees=attendees or [staff[0].email],
            )
        return state

    def sample_arguments(self, tool_name: str, rng: random.Random) -> dict[str, Any]:
        """Meeting times inside working hours this week, for task generation."""
        day = self.now.date() + timedelta(days=rng.randint(1, 4))
        start = datetime.combine(day, time(rng.choice((10, 11, 13, 15)), 0), tzinfo=UTC)
        return {"start": start.isoformat(), "day": day.isoformat(), "duration_minutes": rng.choice((30, 45, 60))}

    def _event(self, event_id: str) -> Event:
        if event_id not in self.state.events:
            raise NotFound(f"no event {event_id}")
        return self.state.events[event_id]

    def _busy(self, attendees: list[str], start: datetime, end: datetime, ignore: str = "") -> list[Event]:
        return [
            e
            for e in self.state.events.values()
            if e.status == "confirmed"
            and e.event_id != ignore
            and set(e.attendees) & set(attendees)
            and _overlaps(start, end, e.start, e.end)
        ]

    @tool(reads=("events",), intent="show me the meetings between {period}")
    def list_events(self, period: DateRange, attendee: EmailAddress | None = None) -> list[Event]:
        """List confirmed meetings in a date range, optionally only one person's, in time order.

        Args:
            period: The days to look at.
            attendee: Only meetings this person attends.
        """
        found = [
            e
            for e in self.state.events.values()
            if e.status == "confirmed" and period.contains(e.start) and (attendee is None or attendee in e.attendees)
        ]
        return sorted(found, key=lambda e: e.start)

    @tool(
        reads=("events",),
        writes=("events",),
        intent="book “{title}” at {start} for {duration_minutes} minutes with {attendees}",
    )
    def create_event(
        self, title: str, start: Timestamp, duration_minutes: int, attendees: list[EmailAddress], location: str = ""
    ) -> Event:
        """Book a meeting; no attendee may be double-booked.

        Args:
            title: What the meeting is.
            start: When it starts.
            duration_minutes: 15 to 480 minutes.
            attendees: Who attends (at least one).
            location: A room or a video link.

        Raises:
            InvalidArgument: No attendees, an empty title, or a duration out of range.
            Conflict: An attendee has another meeting then.
        """
        if not attendees or not title.strip() or not 15 <= duration_minutes <= 480:
            raise InvalidArgument("a meeting needs a title, attendees and 15 to 480 minutes")
        end = start + timedelta(minutes=duration_minutes)
        clash = self._busy(attendees, start, end)
        if clash:
            busy = sorted(set(clash[0].attendees) & set(attendees))
            raise Conflict(f"{clash[0].title} ({clash[0].event_id}) overlaps for {busy}")
        event = Event(
            event_id=self.state.next_id("EVT"),
            title=title.strip(),
            start=start,
            end=end,
            attendees=list(dict.fromkeys(attendees)),
            location=location,
        )
        self.state.events[event.event_id] = event
        return event

    @tool(reads=("events",), writes=("events",), intent="move {event_id} to {start}")
    def reschedule_event(self, event_id: EventId, start: Timestamp) -> Event:
        """Move a meeting to a new start, keeping its length; attendees must be free.

        Args:
            event_id: The meeting.
            start: Its new start.

        Raises:
            NotFound: No such meeting.
            Conflict: It was cancelled, or an attendee is busy then.
        """
        event = self._event(event_id)
        if event.status == "cancelled":
            raise Conflict(f"{event_id} was cancelled")
        end = start + (event.end - event.start)
        clash = self._busy(event.attendees, start, end, ignore=event_id)
        if clash:
            raise Conflict(f"{clash[0].title} ({clash[0].event_id}) overlaps")
        updated = event.model_copy(update={"start": start, "end": end})
        self.state.events[event_id] = updated
        return updated

    @tool(reads=("events",), writes=("events",), intent="cancel {event_id}")
    def cancel_event(self, event_id: EventId) -> Event:
        """Cancel a meeting.

        Args:
            event_id: The meeting.

        Raises:
            NotFound: No such meeting.
            Conflict: It was cancelled already.
        """
        event = self._event(event_id)
        if event.status == "cancelled":
            raise Conflict(f"{event_id} was cancelled already")
        updated = event.model_copy(update={"status": "cancelled"})
        self.state.events[event_id] = updated
        return updated

    @tool(reads=("events",), writes=("events",), intent="invite {email} to {event_id}")
    def add_attendee(self, event_id: EventId, email: EmailAddress) -> Event:
        """Invite one more person to a meeting; they must be free then.

        Args:
            event_id: The meeting.
            email: Who to invite.

        Raises:
            NotFound: No such meeting.
            Conflict: Cancelled meeting, already invited, or they are busy then.
        """
        event = self._event(event_id)
        if event.status == "cancelled" or email in event.attendees:
            raise Conflict(f"{email} is already invited" if email in event.attendees else f"{event_id} was cancelled")
        clash = self._busy([email], event.start, event.end, ignore=event_id)
        if clash:
            raise Conflict(f"{email} is in {clash[0].title} ({clash[0].event_id}) then")
        updated = event.model_copy(update={"attendees": [*event.attendees, email]})
        self.state.events[event_id] = updated
        return updated

    @tool(reads=("events",), intent="find {duration_minutes} free minutes on {day} for {attendees}", reports=("start",))
    def find_free_slot(self, attendees: list[EmailAddress], day: Day, duration_minutes: int) -> TimeSlot:
        """The earliest time in working hours (09:00–17:00 UTC) of a day when every attendee is free.

        Args:
            attendees: Who must be free.
            day: The day.
            duration_minutes: 15 to 480 minutes.

        Raises:
            InvalidArgument: No attendees or a duration out of range.
            NotFound: No common free time that day.
        """
        if not attendees or not 15 <= duration_minutes <= 480:
            raise InvalidArgument("give attendees and 15 to 480 minutes")
        length = timedelta(minutes=duration_minutes)
        start = datetime.combine(day, WORKDAY[0], tzinfo=UTC)
        close = datetime.combine(day, WORKDAY[1], tzinfo=UTC)
        while start + length <= close:
            if not self._busy(attendees, start, start + length):
                return TimeSlot(start=start, end=start + length)
            start += SLOT_STEP
        raise NotFound(f"no common {duration_minutes}-minute slot on {day}")
