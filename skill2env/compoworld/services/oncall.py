"""On-call: monitoring alerts, the on-call rotation, pages, and incidents."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound
from skill2env.compoworld.service import Service, ServiceState, tool
from skill2env.compoworld.types import AlertId, EmailAddress, IncidentId, Timestamp

Severity = Literal["sev1", "sev2", "sev3"]
AlertStatus = Literal["firing", "acknowledged", "resolved"]


class Alert(BaseModel):
    alert_id: AlertId
    system: str
    severity: Severity
    message: str
    status: AlertStatus
    fired_at: Timestamp
    acknowledged_by: EmailAddress | None = None
    incident_id: IncidentId | None = None


class Shift(BaseModel):
    engineer: EmailAddress
    name: str
    start: Timestamp
    end: Timestamp


class Incident(BaseModel):
    incident_id: IncidentId
    title: str
    severity: Severity
    status: Literal["open", "resolved"]
    alerts: list[AlertId] = Field(default_factory=list)
    commander: EmailAddress | None = None
    summary: str = ""
    opened_at: Timestamp


class Page(BaseModel):
    engineer: EmailAddress
    message: str
    incident_id: IncidentId | None = None
    at: Timestamp


class OnCallState(ServiceState):
    alerts: dict[str, Alert] = Field(default_factory=dict)
    rotation: list[Shift] = Field(default_factory=list)
    incidents: dict[str, Incident] = Field(default_factory=dict)
    pages: list[Page] = Field(default_factory=list)


class OnCall(Service):
    name = "oncall"
    domain = "operations"
    description = "Monitoring and on-call: alerts from the shop's systems, the weekly rotation, pages, incidents."
    State = OnCallState
    state: OnCallState

    @classmethod
    def fixture(cls, universe: Any) -> OnCallState:
        state = OnCallState(clock=universe.now)
        engineers = [s for s in universe.staff if s.team == "platform"] or list(universe.staff[:2])
        start = universe.now.replace(hour=0, minute=0) - timedelta(days=1)
        for index in range(6):
            person = engineers[index % len(engineers)]
            shift_start = start + timedelta(hours=12 * index)
            state.rotation.append(
                Shift(engineer=person.email, name=person.name, start=shift_start, end=shift_start + timedelta(hours=12))
            )
        alerts = (
            ("checkout-api", "sev2", "p95 latency above 2 s for 10 minutes", "firing"),
            ("payments-webhook", "sev1", "error rate 12% (threshold 5%)", "firing"),
            ("warehouse-sync", "sev3", "inventory sync lagging 25 minutes", "acknowledged"),
        )
        for offset, (system, severity, message, status) in enumerate(alerts):
            alert_id = state.next_id("ALR")
            state.alerts[alert_id] = Alert(
                alert_id=alert_id,
                system=system,
                severity=severity,
                message=message,
                status=status,
                fired_at=universe.now - timedelta(minutes=20 * (offset + 1)),
                acknowledged_by=engineers[0].email if status == "acknowledged" else None,
            )
        return state

    def _alert(self, alert_id: str) -> Alert:
        if alert_id not in self.state.alerts:
            raise NotFound(f"no alert {alert_id}")
        return self.state.alerts[alert_id]

    def _incident(self, incident_id: str) -> Incident:
        if incident_id not in self.state.incidents:
            raise NotFound(f"no incident {incident_id}")
        return self.state.incidents[incident_id]

    @tool(reads=("alerts",), intent="list the alerts that are still firing")
    def list_alerts(self, status: AlertStatus | None = "firing") -> list[Alert]:
        """List alerts, most severe first (default: only firing ones).

        Args:
            status: Only alerts in this status; null for all.
        """
        found = [a for a in self.state.alerts.values() if status in (None, a.status)]
        return sorted(found, key=lambda a: (a.severity, a.fired_at))

    @tool(reads=("alerts",), intent="check {alert_id}", reports=("status", "system"))
    def get_alert(self, alert_id: AlertId) -> Alert:
        """Get one alert.

        Args:
            alert_id: The alert.

        Raises:
            NotFound: No such alert.
        """
        return self._alert(alert_id)

    @tool(reads=("alerts",), writes=("alerts",), intent="acknowledge {alert_id} on behalf of {engineer}")
    def acknowledge_alert(self, alert_id: AlertId, engineer: EmailAddress) -> Alert:
        """Acknowledge a firing alert (someone is on it).

        Args:
            alert_id: The alert.
            engineer: Who takes it.

        Raises:
            NotFound: No such alert.
            Conflict: It is not firing.
        """
        alert = self._alert(alert_id)
        if alert.status != "firing":
            raise Conflict(f"{alert_id} is {alert.status}, not firing")
        updated = alert.model_copy(update={"status": "acknowledged", "acknowledged_by": engineer})
        self.state.alerts[alert_id] = updated
        return updated

    @tool(reads=("rotation",), intent="tell me who is on call right now", reports=("engineer", "name"))
    def who_is_on_call(self, at: Timestamp | None = None) -> Shift:
        """The on-call shift covering a moment (default: now).

        Args:
            at: The moment; default now.

        Raises:
            NotFound: Nobody is scheduled then.
        """
        moment = at or self.now
        for shift in self.state.rotation:
            if shift.start <= moment < shift.end:
                return shift
        raise NotFound(f"nobody is on call at {moment.isoformat()}")

    @tool(reads=("rotation",), writes=("pages",), intent="page {engineer}: “{message}”")
    def page_engineer(self, engineer: EmailAddress, message: str, incident_id: IncidentId | None = None) -> Page:
        """Page an engineer of the rotation.

        Args:
            engineer: Who to page; must be in the rotation.
            message: What it is about.
            incident_id: The incident it is about.

        Raises:
            NotFound: They are not in the rotation.
            InvalidArgument: Empty message.
        """
        if engineer not in {s.engineer for s in self.state.rotation}:
            raise NotFound(f"{engineer} is not in the on-call rotation")
        if not message.strip():
            raise InvalidArgument("the page needs a message")
        page = Page(engineer=engineer, message=message.strip(), incident_id=incident_id, at=self.now)
        self.state.pages.append(page)
        return page

    @tool(reads=("alerts", "incidents"), writes=("alerts", "incidents"), intent="open a {severity} incident “{title}”")
    def open_incident(
        self, title: str, severity: Severity, alert_id: AlertId | None = None, commander: EmailAddress | None = None
    ) -> Incident:
        """Open an incident, optionally for an alert (the alert is acknowledged and linked).

        Args:
            title: What is broken.
            severity: How bad.
            alert_id: The alert that triggered it.
            commander: Who leads it.

        Raises:
            NotFound: No such alert.
            Conflict: The alert already belongs to an open incident.
            InvalidArgument: Empty title.
        """
        if not title.strip():
            raise InvalidArgument("an incident needs a title")
        incident_id = self.state.next_id("INC")
        alerts = []
        if alert_id is not None:
            alert = self._alert(alert_id)
            if alert.incident_id and self.state.incidents[alert.incident_id].status == "open":
                raise Conflict(f"{alert_id} belongs to open incident {alert.incident_id}")
            status = "acknowledged" if alert.status == "firing" else alert.status
            self.state.alerts[alert_id] = alert.model_copy(update={"incident_id": incident_id, "status": status})
            alerts = [alert_id]
        incident = Incident(
            incident_id=incident_id,
            title=title.strip(),
            severity=severity,
            status="open",
            alerts=alerts,
            commander=commander,
            opened_at=self.now,
        )
        self.state.incidents[incident_id] = incident
        return incident

    @tool(reads=("incidents",), intent="check {incident_id}", reports=("status", "severity"))
    def get_incident(self, incident_id: IncidentId) -> Incident:
        """Get an incident.

        Args:
            incident_id: The incident.

        Raises:
            NotFound: No such incident.
        """
        return self._incident(incident_id)

    @tool(
        reads=("alerts", "incidents"),
        writes=("alerts", "incidents"),
        intent="resolve {incident_id} with the summary “{summary}”",
    )
    def resolve_incident(self, incident_id: IncidentId, summary: str) -> Incident:
        """Resolve an incident and its alerts, with a summary.

        Args:
            incident_id: The incident.
            summary: What happened and what fixed it.

        Raises:
            NotFound: No such incident.
            Conflict: It is resolved already.
            InvalidArgument: Empty summary.
        """
        incident = self._incident(incident_id)
        if incident.status == "resolved":
            raise Conflict(f"{incident_id} is resolved already")
        if not summary.strip():
            raise InvalidArgument("a resolution needs a summary")
        for alert_id in incident.alerts:
            self.state.alerts[alert_id] = self.state.alerts[alert_id].model_copy(update={"status": "resolved"})
        updated = incident.model_copy(update={"status": "resolved", "summary": summary.strip()})
        self.state.incidents[incident_id] = updated
        return updated
