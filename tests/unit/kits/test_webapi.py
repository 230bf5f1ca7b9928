"""The web-API kit: its solver earns full credit at every intensity, the naive baseline does not once the
traps are harmful, no expected answer shows in the workspace, the service picks its own port and stops,
and a CSV or summary with a wrong value loses credit."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zlib
from pathlib import Path

from kit_runs import materialize, rollout, score

from skill2env.kits import KITS, kit_matches
from skill2env.kits.base import FULL_CREDIT
from skill2env.kits.webapi import KIT, RECORDS, SUMMARY
from skill2env.kits.webapi.docs import STORE
from skill2env.kits.webapi.world import total
from skill2env.patterns.pool import seed_pool
from skill2env.patterns.traits import SkillProfile
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.checks import check_draft
from skill2env.tasks.draft import TaskDraft

SKILL = SkillRef(skill_id="s-weather", name="weather-data-fetcher", path="weather-data-fetcher")
UNBUILT = {
    "transient_service_failure_retry",
    "documented_input_limit",
    "state_dependency",
    "resource_budget",
    "chunk_boundary_state",
    "tool_dsl_expression",
    "payload_size_limit_chunking",
}


def build(seed: int, patterns: dict[str, int]) -> TaskDraft:
    return KIT.build(seed, SKILL, "web-api", patterns)


def test_the_kit_is_registered_with_pool_patterns() -> None:
    assert KITS["webapi"] is KIT
    assert len(KIT.patterns) >= 6 and all(p in seed_pool() for p in KIT.patterns)
    assert set(KIT.patterns) >= UNBUILT


def test_the_naive_baseline_is_right_on_a_world_without_harmful_traps() -> None:
    reward, items, log = rollout(build(3, {"cross_deliverable_agreement": 1}), KIT.naive_policy())
    assert reward >= FULL_CREDIT, (items, log)


def test_no_expected_answer_is_readable_in_the_workspace() -> None:
    for seed in (0, 1, 2):
        draft = build(seed, dict.fromkeys(KIT.patterns, 3))
        assert check_draft(draft).leak.leaked == 0


def test_the_same_seed_gives_the_same_workspace() -> None:
    patterns = dict.fromkeys(KIT.patterns, 2)
    assert build(4, patterns).workspace == build(4, patterns).workspace


def test_the_records_live_only_in_the_compressed_store() -> None:
    draft = build(1, {"state_dependency": 2})
    world, _ = KIT.world(1, {"state_dependency": 2})
    record = world.asked()[0]
    store = json.loads(zlib.decompress(draft.workspace[STORE]))
    assert any(r["id"] == record.id for r in store["records"])
    assert not any(record.id.encode() in data for path, data in draft.workspace.items() if path != STORE)


def test_two_services_pick_their_own_ports_and_stop_on_request() -> None:
    draft = build(2, {"chunk_boundary_state": 1})
    with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two:
        roots = [materialize(draft, Path(one)), materialize(draft, Path(two))]
        processes = [subprocess.Popen([sys.executable, str(r / "service" / "server.py")]) for r in roots]
        try:
            ports = []
            for root in roots:
                port_file = root / "service" / "run" / "port"
                deadline = time.monotonic() + 10
                while not (port_file.exists() and port_file.read_text().strip()) and time.monotonic() < deadline:
                    time.sleep(0.02)
                ports.append(int(port_file.read_text()))
            assert ports[0] != ports[1]
            for port, process in zip(ports, processes, strict=True):
                shutdown = urllib.request.Request(f"http://127.0.0.1:{port}/v1/admin/shutdown", data=b"", method="POST")
                urllib.request.urlopen(shutdown, timeout=5).read()
                assert process.wait(timeout=5) == 0
        finally:
            for process in processes:
                if process.poll() is None:
                    process.kill()


def _start(root: Path) -> tuple[subprocess.Popen[bytes], str]:
    port_file = root / "service" / "run" / "port"
    port_file.unlink(missing_ok=True)
    process = subprocess.Popen([sys.executable, str(root / "service" / "server.py")])
    deadline = time.monotonic() + 10
    while not (port_file.exists() and port_file.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return process, f"http://127.0.0.1:{port_file.read_text().strip()}"


def _call(base: str, path: str, body: object, token: str = "") -> tuple[int, dict[str, str], object]:
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


def test_a_restarted_service_keeps_the_quota_the_key_has_used() -> None:
    draft = build(3, {"resource_budget": 3})
    world, _ = KIT.world(3, {"resource_budget": 3})
    with tempfile.TemporaryDirectory() as tmp:
        root = materialize(draft, Path(tmp))
        remaining = []
        for _ in range(2):
            process, base = _start(root)
            try:
                token = _call(base, "/v1/auth/token", {"api_key": world.api_key})[2]["access_token"]  # type: ignore[index]
                status, headers, _ = _call(base, "/v1/records/batch", {"ids": [world.asked()[0].id]}, token)
                assert status == 200
                remaining.append(int(headers["X-Quota-Remaining"]))
                _call(base, "/v1/admin/shutdown", {})
            finally:
                process.wait(timeout=5)
        assert remaining == [world.quota - 1, world.quota - 2]


def _solved(draft: TaskDraft, root: Path) -> None:
    subprocess.run(["bash", "-c", draft.solve_sh], env={**os.environ, "WORKSPACE": str(root)}, check=True)


def test_a_wrong_value_or_a_duplicated_row_loses_credit() -> None:
    patterns = {"chunk_boundary_state": 3, "cross_deliverable_agreement": 3}
    draft = build(6, patterns)
    world, _ = KIT.world(6, patterns)
    with tempfile.TemporaryDirectory() as tmp:
        root = materialize(draft, Path(tmp))
        _solved(draft, root)
        assert score(draft.blueprint.rubric, root)[0] >= FULL_CREDIT
        assert not (root / "service" / "run" / "port").exists()
        text = (root / RECORDS).read_text()
        table = list(csv.reader(io.StringIO(text)))
        table[1][3] = str(round(float(table[1][3]) + 1.5, 2))
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(table)
        (root / RECORDS).write_text(buffer.getvalue())
        _, items = score(draft.blueprint.rubric, root)
        assert items["records.rows"] == 0.0
        (root / RECORDS).write_text(text + text.splitlines()[1] + "\n")
        _, items = score(draft.blueprint.rubric, root)
        assert items["records.rows"] == 0.0 and items["records.chunk_boundary_state"] == 0.0
        summary = json.loads((root / SUMMARY).read_text())
        summary["total"] = round(total(world) + 10, 2)
        summary["failed_ids"] = []
        (root / SUMMARY).write_text(json.dumps(summary))
        _, items = score(draft.blueprint.rubric, root)
        assert items["summary.total"] == 0.0 and items["summary.failed_ids"] == 0.0


def _skill(name: str, text: str, **fields: object) -> dict[str, object]:
    row: dict[str, object] = {"skill_id": f"sk-{name}", "path": f"skills/{name}", "domain": "web", "name": name,
                              "description": text, "skill_md_text": text, "languages": [], "programs": [],
                              "cli_tools": [], "dependency_names": [], "extensions": [], "file_kinds": []}  # fmt: skip
    return row | fields


def test_a_skill_that_calls_web_apis_is_served_by_the_kit() -> None:
    fetcher = _skill(
        "weather-data-fetcher",
        "Fetch current weather and forecasts from a REST API: send an HTTP request to the endpoint with your API "
        "key, follow pagination, handle rate limits (429) and retry failed requests.",
        dependency_names=["requests"],
        programs=["curl"],
    )
    assert kit_matches(SkillProfile.from_row(fetcher), KITS)[0].kit == "webapi"


def test_a_skill_without_web_requests_is_not_served() -> None:
    poems = _skill("haiku-writer", "Write haiku about the seasons, counting syllables line by line.")
    assert KIT.matches(SkillProfile.from_row(poems)).score == 0.0
