"""oncall: alerts, the rotation, pages and incidents."""

from __future__ import annotations

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound
from skill2env.compoworld.services.oncall import OnCall
from skill2env.compoworld.services.tests.support import fresh, raises


def test_firing_alerts_most_severe_first_and_acknowledge() -> None:
    oncall, universe = fresh(OnCall)
    firing = oncall.call("list_alerts", {})
    assert [a["severity"] for a in firing] == sorted(a["severity"] for a in firing)
    assert all(a["status"] == "firing" for a in firing)
    engineer = universe.staff[0].email
    acknowledged = oncall.call("acknowledge_alert", {"alert_id": firing[0]["alert_id"], "engineer": engineer})
    assert acknowledged["status"] == "acknowledged" and acknowledged["acknowledged_by"] == engineer
    with raises(Conflict, "not firing"):
        oncall.call("acknowledge_alert", {"alert_id": firing[0]["alert_id"], "engineer": engineer})
    assert len(oncall.call("list_alerts", {"status": None})) == len(oncall.state.alerts)


def test_rotation_and_pages() -> None:
    oncall, _ = fresh(OnCall)
    shift = oncall.call("who_is_on_call", {})
    assert shift["start"] <= "2025-03-03T09:00:00Z" < shift["end"]
    page = oncall.call("page_engineer", {"engineer": shift["engineer"], "message": "checkout is slow"})
    assert oncall.state.pages[-1].message == page["message"]
    with raises(NotFound, "rotation"):
        oncall.call("page_engineer", {"engineer": "someone@example.com", "message": "hi"})
    with raises(NotFound, "nobody"):
        oncall.call("who_is_on_call", {"at": "2030-01-01T00:00:00Z"})
    with raises(InvalidArgument):
        oncall.call("who_is_on_call", {"at": "2025-03-03T09:00:00"})


def test_incident_lifecycle_carries_its_alert() -> None:
    oncall, _ = fresh(OnCall)
    alert = next(a for a in oncall.state.alerts.values() if a.status == "firing")
    incident = oncall.call(
        "open_incident", {"title": "Payments failing", "severity": "sev1", "alert_id": alert.alert_id}
    )
    assert oncall.state.alerts[alert.alert_id].incident_id == incident["incident_id"]
    assert oncall.state.alerts[alert.alert_id].status == "acknowledged"
    with raises(Conflict, "open incident"):
        oncall.call("open_incident", {"title": "again", "severity": "sev2", "alert_id": alert.alert_id})
    resolved = oncall.call("resolve_incident", {"incident_id": incident["incident_id"], "summary": "rolled back"})
    assert resolved["status"] == "resolved" and oncall.state.alerts[alert.alert_id].status == "resolved"
    with raises(Conflict):
        oncall.call("resolve_incident", {"incident_id": incident["incident_id"], "summary": "x"})
    assert oncall.call("get_incident", {"incident_id": incident["incident_id"]})["summary"] == "rolled back"
    with raises(NotFound):
        oncall.call("get_alert", {"alert_id": "ALR-9999"})
