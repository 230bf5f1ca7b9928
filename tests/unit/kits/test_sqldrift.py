"""The SQL-drift kit: its solver earns full credit at every intensity, the naive baseline does not once
the traps are harmful, no computed figure shows in the workspace, and a query of literal figures earns
nothing on the query items (the verifier also runs it on a copy holding other orders)."""

from __future__ import annotations

import base64
import sqlite3
import tempfile
import zlib
from pathlib import Path

import pytest
from kit_runs import materialize, oracle_and_partial, rollout, score

from skill2env.kits import KITS, author_offline, kit_matches
from skill2env.kits.base import FULL_CREDIT, haystack
from skill2env.kits.sqldrift import QUERY, REPORT, rows_of
from skill2env.kits.sqldrift.docs import DATABASE
from skill2env.kits.sqldrift.patterns import COUNTRY
from skill2env.patterns.traits import SkillProfile
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.checks import check_draft
from skill2env.tasks.draft import TaskDraft
from skill2env.tasks.normalize import find, needle

SKILL = SkillRef(skill_id="s-sqlite", name="sqlite-reporting", path="sqlite-reporting")
KIT = KITS["sqldrift"]


def build(seed: int, patterns: dict[str, int]) -> TaskDraft:
    return KIT.build(seed, SKILL, "data", patterns)


def query_items(draft: TaskDraft) -> list[str]:
    return [item.id for item in draft.blueprint.rubric.items if item.target_files == [QUERY]]


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_solver_earns_full_credit_with_every_pattern(seed: int, level: int) -> None:
    draft = build(seed, dict.fromkeys(KIT.patterns, level))
    (reward, items), partial, log = oracle_and_partial(draft)
    assert reward >= FULL_CREDIT, ([i for i, v in items.items() if v < 1.0], log)
    assert partial < 0.7
    assert check_draft(draft).passed


@pytest.mark.parametrize("pattern", KIT.patterns)
def test_each_pattern_alone_is_solved_and_at_intensity_3_beats_the_naive_baseline(pattern: str) -> None:
    for level in (1, 2, 3):
        draft = build(5, {pattern: level})
        (reward, _), _, log = oracle_and_partial(draft)
        assert reward >= FULL_CREDIT, (pattern, level, log)
    hardest = build(5, {pattern: 3})
    naive, items, log = rollout(hardest, KIT.naive_policy())
    assert "Traceback" not in log, log
    if pattern != "cross_deliverable_agreement":  # a rule about agreement, which the naive report keeps
        assert naive < FULL_CREDIT, (pattern, items)


def test_the_naive_baseline_is_right_on_a_world_without_harmful_traps() -> None:
    # intensity 1 draws its trap harmless three times in four; the base world alone has none
    draft = build(3, {"cross_deliverable_agreement": 1})
    reward, items, log = rollout(draft, KIT.naive_policy())
    assert reward >= FULL_CREDIT, (items, log)


def test_no_computed_figure_is_readable_in_the_workspace() -> None:
    for seed in (0, 1):
        patterns = dict.fromkeys(KIT.patterns, 3)
        draft = build(seed, patterns)
        hay = haystack(KIT.compose(seed, patterns, 0))
        total = next(i for i in draft.blueprint.rubric.items if i.id == "report.revenue")
        value = total.check.params["expected"] if total.check else None
        assert isinstance(value, float)
        assert not find(needle(value), hay)
        assert check_draft(draft).leak.leaked == 0


def _literal_query(rows: list[list[object]]) -> str:
    selects = [f"SELECT '{c}' AS country, {n} AS orders, {v} AS revenue_eur" for c, n, v in rows]
    return "\nUNION ALL\n".join(selects) + ";\n"


def test_a_query_of_literal_figures_earns_none_of_the_query_items() -> None:
    patterns = {p: 1 for p in COUNTRY}
    draft = build(4, patterns)
    world, _ = KIT.world(4, patterns)
    with tempfile.TemporaryDirectory() as tmp:
        root = materialize(draft, Path(tmp))
        (root / "output").mkdir()
        (root / QUERY).write_text(_literal_query(rows_of(world)))
        _, items = score(draft.blueprint.rubric, root)
    assert all(items[i] == 0.0 for i in query_items(draft)), items


def test_the_query_runs_on_the_verifiers_copies_never_on_the_workspace_database() -> None:
    draft = build(6, {"scope_distractor": 2})
    reward, _, _ = rollout(draft, draft.solve_sh)
    assert reward >= FULL_CREDIT
    with tempfile.TemporaryDirectory() as tmp:
        root = materialize(draft, Path(tmp))
        (root / "output").mkdir()
        (root / QUERY).write_text("DELETE FROM orders;\n")
        (root / REPORT).write_text("{}")
        before = (root / DATABASE).read_bytes()
        _, items = score(draft.blueprint.rubric, root)
        assert (root / DATABASE).read_bytes() == before
        assert all(items[i] == 0.0 for i in query_items(draft))
        # a query that reads another file through ATTACH is refused too
        (root / QUERY).write_text(f"ATTACH DATABASE '{root / DATABASE}' AS live;\n")
        _, items = score(draft.blueprint.rubric, root)
        assert all(items[i] == 0.0 for i in query_items(draft))


def test_the_verifier_holds_the_workspace_database_and_a_copy_with_other_orders() -> None:
    draft = build(7, dict.fromkeys(KIT.patterns, 2))
    item = next(i for i in draft.blueprint.rubric.items if i.id == "query.rows")
    assert item.check is not None
    cases = item.check.params["args"]["cases"]
    scripts = [zlib.decompress(base64.b64decode(case["db"])).decode() for case in cases]
    assert len(scripts) == 2 and scripts[0] != scripts[1]
    with tempfile.TemporaryDirectory() as tmp:
        root = materialize(draft, Path(tmp))
        live = sqlite3.connect(root / DATABASE)
        copies = [sqlite3.connect(":memory:") for _ in scripts]
        for copy, script in zip(copies, scripts, strict=True):
            copy.executescript(script)
        schema = "SELECT type, name, sql FROM sqlite_master ORDER BY name"
        orders = "SELECT * FROM orders ORDER BY id"
        assert live.execute(schema).fetchall() == copies[0].execute(schema).fetchall()
        assert live.execute(schema).fetchall() == copies[1].execute(schema).fetchall()
        assert live.execute(orders).fetchall() == copies[0].execute(orders).fetchall()
        assert live.execute(orders).fetchall() != copies[1].execute(orders).fetchall()
        live.close()
    assert cases[0]["rows"] != cases[1]["rows"]


def _skill(name: str, text: str, **fields: object) -> dict[str, object]:
    row: dict[str, object] = {"skill_id": f"sk-{name}", "path": f"skills/{name}", "domain": "data", "name": name,
                              "description": text, "skill_md_text": text, "languages": ["sql"], "programs": [],
                              "cli_tools": [], "dependency_names": [], "extensions": [], "file_kinds": []}  # fmt: skip
    return row | fields


def test_a_database_skill_is_served_by_the_kit_and_others_keep_theirs() -> None:
    database = _skill(
        "sqlite-reporting",
        "Inspect SQLite and PostgreSQL databases, write SQL queries and schema migrations, check migration drift.",
        programs=["sqlite3", "psql"],
        dependency_names=["sqlalchemy"],
        extensions=["sql", "db"],
    )
    tables = _skill(
        "csv-cleaner",
        "Clean messy CSV and XLSX exports with pandas into a tidy spreadsheet table.",
        dependency_names=["pandas", "openpyxl"],
        extensions=["csv", "xlsx"],
    )
    assert kit_matches(SkillProfile.from_row(database), KITS)[0].kit == "sqldrift"
    assert kit_matches(SkillProfile.from_row(tables), KITS)[0].kit == "cleanroom"
    draft = author_offline(database, [])
    assert isinstance(draft, TaskDraft) and draft.author == "offline:sqldrift"
    assert "schema_drift_between_exports" in {c.pattern_id for c in draft.blueprint.challenges}
