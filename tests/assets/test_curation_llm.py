"""`curated_skills` with a model curator: the model settles undecided skills, and materializing
the same inputs twice spends zero tokens the second time (the ledger shows all cache hits)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from llm_server import Scripted, ScriptedServer, json_answer
from skill_trees import small_tree, write_skill

from skill2env.cli import main
from skill2env.lake.lake import Lake

ESSAY = (
    """---
name: service-patterns
description: Notes on how to think about service boundaries in distributed systems.
---

# Service patterns

"""
    + "Service boundaries follow business capabilities, and each service owns its data. " * 12
)


def decide_all(request: dict[str, Any]) -> Scripted:
    """Pass every criterion the curator asks about; pick the first three candidate patterns for the author."""
    asked = request["response_format"]["json_schema"]["schema"]["required"]
    if asked == ["picks"]:
        ids = re.findall(r"^- ([a-z0-9_]+) — ", request["messages"][1]["content"], re.MULTILINE)[:3]
        return json_answer({"picks": [{"pattern_id": i, "rationale": f"{i} fits this skill's goal"} for i in ids]})
    return json_answer({c: {"outcome": "pass", "reason": "workflow:clear", "explanation": "fine"} for c in asked})


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(respond=decide_all) as running:
        yield running


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SKILL2ENV_HOME", str(tmp_path / "home"))
    for name in ("SKILL2ENV_LLM_BASE_URL", "SKILL2ENV_LLM_MODEL", "SKILL2ENV_LLM_CACHE"):
        monkeypatch.setenv(name, "")  # restored (unset) after the test, whatever `run` sets
    return tmp_path / "home"


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    root = small_tree(tmp_path / "skills")
    write_skill(root, "team/service-patterns", ESSAY)
    return root


def run(skills: Path) -> None:
    """Catalog, curation and pattern selection: the materializations that ask models here."""
    result = CliRunner().invoke(main, ["catalog", "--skills", str(skills), "--workers", "1"])
    assert result.exit_code == 0, result.output


def test_materializing_twice_spends_zero_tokens_the_second_time(
    server: ScriptedServer, home: Path, skills: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILL2ENV_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("SKILL2ENV_LLM_MODEL", "scripted-model")
    run(skills)
    asked = len(server.requests)
    run(skills)

    assert asked >= 1
    assert len(server.requests) == asked  # the second run never reached the endpoint
    lake = Lake(home / "lake.duckdb")
    by_run = lake.query(
        "SELECT run_id, count(*) AS calls, bool_and(cache_hit) AS all_hits, sum(input_tokens + output_tokens) AS spent,"
        " sum(cached_input_tokens + cached_output_tokens) AS saved, min(called_at) AS first"
        " FROM llm_calls GROUP BY run_id ORDER BY first"
    ).rows()
    (first_run, first_calls, first_hits, first_spent, _, _), (_, calls, all_hits, spent, saved, _) = by_run
    assert (first_calls, first_hits) == (asked, False) and first_spent > 0
    assert (calls, all_hits, spent) == (asked, True, 0)
    assert saved == first_spent
    rows = lake.query("SELECT DISTINCT role, model, asset_key, template_id, status FROM llm_calls ORDER BY 1").rows()
    assert rows == [
        ("author", "scripted-model", "pattern_selections", "author_select_patterns", "ok"),
        ("curator", "scripted-model", "curated_skills", "curator_settle", "ok"),
    ]
    chosen = lake.query("SELECT DISTINCT chooser FROM pattern_selections").rows()
    assert chosen == [("model:scripted-model",)]

    verdicts = json.loads(lake.query("SELECT verdicts FROM curated_skills WHERE path = 'team/service-patterns'").item())
    assert verdicts["practical"]["outcome"] == "pass"
    assert verdicts["practical"]["decided_by"] == "curator:scripted-model"
    assert lake.query("SELECT curated FROM curated_skills WHERE path = 'team/service-patterns'").item() is True

    usage = CliRunner().invoke(main, ["sql", "SELECT * FROM llm_usage", "--format", "json"])
    assert usage.exit_code == 0, usage.output
    days = sorted(json.loads(usage.stdout), key=lambda day: day["role"])
    assert [(d["role"], d["asset_key"]) for d in days] == [("author", "pattern_selections"),
                                                           ("curator", "curated_skills")]  # fmt: skip
    assert sum(d["calls"] for d in days) == 2 * asked and sum(d["cache_hits"] for d in days) == asked
    assert sum(d["tokens_spent"] for d in days) == first_spent == sum(d["tokens_saved"] for d in days)
    assert first_run != by_run[1][0]


def test_without_a_model_curation_is_rules_only_and_nothing_is_called(home: Path, skills: Path) -> None:
    run(skills)

    lake = Lake(home / "lake.duckdb")
    assert lake.query("SELECT count(*) FROM llm_calls").item() == 0
    row = lake.query("SELECT practical, verdicts FROM curated_skills WHERE path = 'team/service-patterns'").row(0)
    assert row[0] == "undecided"
    assert json.loads(row[1])["practical"]["decided_by"] == "rules"


def test_an_unreachable_endpoint_leaves_skills_undecided_and_records_why(
    server: ScriptedServer, home: Path, skills: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILL2ENV_LLM_CURATOR_MAX_ATTEMPTS", "1")
    server.respond = lambda request: Scripted(status=503, body=b'{"error": {"message": "overloaded"}}')
    monkeypatch.setenv("SKILL2ENV_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("SKILL2ENV_LLM_MODEL", "scripted-model")
    run(skills)

    lake = Lake(home / "lake.duckdb")
    reasons = lake.query("SELECT practical_reasons FROM curated_skills WHERE path = 'team/service-patterns'").item()
    assert list(reasons) == ["workflow:unclear", "curator:unavailable"]
    errors = lake.query("SELECT DISTINCT status, error_class, error_kind FROM llm_calls").rows()
    assert errors == [("error", "ModelUnavailable", "infrastructure")]
