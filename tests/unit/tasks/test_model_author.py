"""The model author against the scripted server: a realistic author builds a task that passes every
author-side check (and whose reference solution earns every deterministic item); bad answers go
back for repair, and what stays bad is recorded with the name of the check it fails."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from harbor_tasks import require_backend
from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, json_answer, paced, refusal, status, text
from model_author_script import (
    EXPECTED_HOURLY,
    GENERATOR,
    MOUNT,
    PATTERNS,
    SubprocessRunner,
    blueprint_answer,
    build_answer,
    log_skill_row,
    make_log_skill,
    selection_rows,
)

from skill2env.home import Home
from skill2env.kits.authoring import OfflineAuthor
from skill2env.lake.lake import Lake
from skill2env.llm.cache import CacheMode
from skill2env.llm.config import LlmSettings
from skill2env.llm.errors import ModelNotConfigured
from skill2env.llm.ledger import Ledger
from skill2env.rubric.checks import run_check
from skill2env.rubric.models import Method, Rubric
from skill2env.tasks.authors import choose_author
from skill2env.tasks.build import Authored, author_tasks
from skill2env.tasks.checks import check_draft
from skill2env.tasks.draft import TaskDraft
from skill2env.tasks.generator import GeneratorUnavailable
from skill2env.tasks.harbor import write_task_dir
from skill2env.tasks.model_author import ModelAuthor
from skill2env.tasks.records import TaskRecord, TaskStatus
from skill2env.tasks.store import TaskStore
from skill2env.validation.gates import validate_task

WORKSPACE = ["deploys.csv", "logs/api.log", "logs/api.log.1", "logs/api.log.2.gz", "logs/worker.log"]


@pytest.fixture
def runner() -> SubprocessRunner:
    return SubprocessRunner()


@pytest.fixture
def author(make_client: ClientFactory, runner: SubprocessRunner) -> ModelAuthor:
    return ModelAuthor(make_client(cache=CacheMode.off), runner=runner)


def _authored(author: ModelAuthor, tmp_path: Path) -> Authored:
    """Author the log skill through the pipeline's path (check, store, record)."""
    skills_root = tmp_path / "skills"
    if not (skills_root / "ops").is_dir():
        make_log_skill(skills_root)
    store = TaskStore(tmp_path / "home")
    return author_tasks([log_skill_row()], selection_rows(), author, skills_root=skills_root, store=store)


def _record(author: ModelAuthor, tmp_path: Path) -> TaskRecord:
    (record,) = _authored(author, tmp_path).tasks
    return record


def _draft(author: ModelAuthor) -> TaskDraft:
    draft = author.draft(log_skill_row(), selection_rows())
    assert isinstance(draft, TaskDraft), draft
    return draft


def _oracle_items(draft: TaskDraft, tmp_path: Path) -> dict[str, bool]:
    """Run solve.sh on a copy of the workspace (plain subprocess) and every deterministic check on the result."""
    task = write_task_dir(draft, tmp_path / "oracle-task", skill_dir=None)
    workspace = tmp_path / "oracle-workspace"
    for name, data in draft.workspace.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_bytes(data)
    env = {"PATH": os.environ["PATH"], "SKILL2ENV_WORKSPACE": str(workspace)}
    done = subprocess.run(["bash", str(task.solve_path)], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return {
        item.id: run_check(item.check.check, workspace, item.check.params, tests_dir=task.tests_dir).passed
        for item in draft.blueprint.rubric.items
        if item.method == Method.deterministic and item.check is not None
    }


# --- a realistic author ------------------------------------------------------------------------


def test_a_realistic_author_builds_a_task_that_passes_every_check(
    server: ScriptedServer, author: ModelAuthor, runner: SubprocessRunner, tmp_path: Path
) -> None:
    server.script(json_answer(blueprint_answer()), json_answer(build_answer()))
    draft = _draft(author)

    report = check_draft(draft)
    assert report.passed, report.reasons
    assert (report.leak.checked, report.leak.leaked) == (3, 0)
    blueprint = draft.blueprint
    assert draft.author == author.name == "model:scripted-model"
    assert blueprint.task_name.startswith("checkout-incident-after-deploy-") and len(server.requests) == 2
    assert (blueprint.skill.mount, blueprint.domain, blueprint.pattern_ids) == (MOUNT, "devops", list(PATTERNS))
    assert blueprint.environment.apt_packages == []  # python3 is in the base image
    assert sorted(draft.workspace) == WORKSPACE and runner.runs == 2  # generated twice: deterministic
    assert draft.workspace["deploys.csv"].startswith(b"timestamp,service,version")

    task = write_task_dir(draft, tmp_path / "task", skill_dir=make_log_skill(tmp_path / "skills"))
    assert task.is_valid()
    dockerfile = task.dockerfile_path.read_text()
    assert dockerfile.startswith("FROM skill2env-base\n") and f"COPY skill/ {MOUNT}/" in dockerfile
    assert "apt-get" not in dockerfile and (task.skill_dir / "scripts" / "log_summary.py").is_file()
    assert (task.tests_dir / "expected" / "errors_by_hour.csv").read_text() == EXPECTED_HOURLY
    assert MOUNT in task.instruction_path.read_text()
    assert _oracle_items(draft, tmp_path) == dict.fromkeys(
        ["first-failure", "error-total", "hourly-errors", "culprit-deploy"], True
    )


def test_the_prompts_carry_the_skill_the_patterns_the_checks_and_then_the_blueprint(
    server: ScriptedServer, author: ModelAuthor
) -> None:
    server.script(json_answer(blueprint_answer()), json_answer(build_answer()))
    draft = _draft(author)

    system, user = (m["content"] for m in server.requests[0]["messages"][:2])
    assert "BLUEPRINT" in system and MOUNT in system
    assert "# Log Analysis" in user and "Skill: log-analysis (domain: devops)" in user
    assert all(f"- {pattern}" in user for pattern in PATTERNS)
    assert "the shortcut to defeat:" in user and "- json_path_equals:" in user and "tests_dir" not in user
    build = server.requests[1]["messages"][1]["content"]
    blueprint = json.loads(build.split("<blueprint>")[1].split("</blueprint>")[0])
    assert blueprint["task_name"] == draft.blueprint.task_name and "environment" not in blueprint
    assert "python3-pandas" in build  # what the base image already has


# --- repair ------------------------------------------------------------------------------------


def _inconsistent(answer: dict[str, Any]) -> None:
    answer["acceptance_criteria"][0]["rubric_item"] = "first-error"


def _bad_level(answer: dict[str, Any]) -> None:
    answer["facts"][0]["level"] = "secret"


def _spoiled(spoil: Any) -> dict[str, Any]:
    answer = blueprint_answer()
    spoil(answer)
    return answer


@pytest.mark.parametrize(
    ("first", "named"),
    [
        (text('Here is the blueprint: {"task_name": '), "not valid JSON"),
        (json_answer(blueprint_answer() | {"goal": "short"}), "goal: String should have at least 10 characters"),
        (json_answer(_spoiled(_bad_level)), "facts.0.level"),
        (json_answer(_spoiled(_inconsistent)), "criteria.unknown_item: criterion ac-first maps to unknown item"),
    ],
    ids=["invalid-json", "too-short", "bad-level", "criteria-mismatch"],
)
def test_an_invalid_blueprint_goes_back_with_its_errors_and_is_repaired(
    server: ScriptedServer, author: ModelAuthor, first: Any, named: str
) -> None:
    server.script(first, json_answer(blueprint_answer()), json_answer(build_answer()))
    draft = _draft(author)

    assert check_draft(draft).passed
    repair = server.requests[1]["messages"][-1]["content"]
    assert repair.startswith("That reply is invalid") and named in repair


def test_a_persistently_inconsistent_blueprint_is_recorded_with_the_named_check(
    server: ScriptedServer, author: ModelAuthor, tmp_path: Path
) -> None:
    server.script(*[json_answer(_spoiled(_inconsistent))] * 3)
    record = _record(author, tmp_path)

    assert record.status == TaskStatus.rejected and len(server.requests) == 3  # 2 repair rounds, no build call
    (reason,) = record.reasons
    assert reason.startswith("author model:scripted-model failed: blueprint still invalid after repair")
    assert (
        "criteria.unknown_item: criterion ac-first" in reason
        and "criteria.orphan_item: rubric item first-failure" in reason
    )


def _unknown_check(answer: dict[str, Any]) -> None:
    answer["rubric"]["items"][0]["check"]["check"] = "json_matches"


def _bad_params(answer: dict[str, Any]) -> None:
    answer["rubric"]["items"][1]["check"]["params"]["expect"] = 159


def _unknown_pattern(answer: dict[str, Any]) -> None:
    answer["challenges"][1]["pattern_id"] = "time_travel"


@pytest.mark.parametrize(
    ("spoil", "named"),
    [
        (_unknown_check, "rubric.unknown_check: first-failure: unknown check 'json_matches'"),
        (_bad_params, "rubric.bad_params: error-total: check 'json_path_equals' does not take params ['expect']"),
        (_unknown_pattern, "patterns.unknown_pattern: challenge pattern 'time_travel' is neither selected"),
    ],
    ids=["unknown-check", "bad-params", "unknown-pattern"],
)
def test_a_blueprint_naming_what_does_not_exist_is_rejected(
    server: ScriptedServer, author: ModelAuthor, tmp_path: Path, spoil: Any, named: str
) -> None:
    server.script(*[json_answer(_spoiled(spoil))] * 3)
    record = _record(author, tmp_path)

    assert record.status == TaskStatus.rejected and named in record.reasons[0]


def test_a_leaking_build_is_sent_back_once_then_stored_as_rejected_with_leaks(
    server: ScriptedServer, author: ModelAuthor, tmp_path: Path
) -> None:
    leaky = build_answer()
    leaky["files"].append({"path": "notes.md", "content": "# On-call notes\n\nFinance counted 159 failed checkouts.\n"})
    server.script(json_answer(blueprint_answer()), json_answer(leaky), json_answer(leaky))
    record = _record(author, tmp_path)

    assert record.status == TaskStatus.rejected and record.store_path is not None
    assert record.reasons == ("leaks.leaked: author_only fact api_error_count (159) appears in notes.md",)
    assert (record.leak_checked, record.leak_leaked) == (3, 1)
    feedback = server.requests[2]["messages"][-1]["content"]
    assert "fails these author-side checks" in feedback and "leaks.leaked" in feedback
    assert len(server.requests) == 3


def test_a_build_fixed_after_feedback_is_built(server: ScriptedServer, author: ModelAuthor, tmp_path: Path) -> None:
    unasked = build_answer()
    unasked["instruction"] = unasked["instruction"].replace("`report/errors_by_hour.csv`", "an hourly table")
    server.script(json_answer(blueprint_answer()), json_answer(unasked), json_answer(build_answer()))
    record = _record(author, tmp_path)

    assert record.status == TaskStatus.built and record.reasons == ()
    assert "evaluator.deliverable_not_asked" in server.requests[2]["messages"][-1]["content"]
    assert record.workspace_files == len(WORKSPACE)


def test_declared_packages_of_every_ecosystem_reach_the_blueprint_and_the_dockerfile(
    server: ScriptedServer, author: ModelAuthor
) -> None:
    declared = {"apt_packages": ["tree", "python3"], "pip_packages": ["tomli-w==1.0.0"],
                "npm_packages": ["semver@7.6.0"]}  # fmt: skip
    server.script(json_answer(blueprint_answer()), json_answer(build_answer() | declared))
    environment = _draft(author).blueprint.environment

    # python3 is in the base image; each declaration was checked against its index before any build
    assert (environment.apt_packages, environment.pip_packages, environment.npm_packages) == (
        ["tree"], ["tomli-w==1.0.0"], ["semver@7.6.0"])  # fmt: skip
    assert len(server.requests) == 2


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"solve_sh": build_answer()["solve_sh"].replace("len(errors)", "159")}, "solution.hardcoded_answer"),
        ({"solve_sh": "#!/usr/bin/env bash\ncp -r /tests/expected report\n"}, "solution.reads_verifier"),
        ({"pip_packages": ["numpy>=2"]}, "build.bad_package: pip package 'numpy>=2'"),
        (
            {"pip_packages": ["tomli-w==99.0.0"]},
            "build.unresolved_package: pip package tomli-w==99.0.0 does not resolve: version 99.0.0 is not on",
        ),
        ({"apt_packages": ["skill2env-no-such-tool"]}, "build.unresolved_package: apt package skill2env-no-such-tool"),
        ({"npm_packages": ["semver@^7"]}, "build.bad_package: npm package 'semver@^7'"),
        (
            {"npm_packages": ["semver@99.0.0"]},
            "build.unresolved_package: npm package semver@99.0.0 does not resolve: version 99.0.0 is not on",
        ),
        ({"files": [{"path": "../deploys.csv", "content": "x"}]}, "build.bad_path"),
        ({"instruction": build_answer()["instruction"].replace(MOUNT, "the skills folder")}, "build.skill_not_named"),
        ({"verifier_files": [{"path": "test.sh", "content": "exit 0"}]}, "build.reserved_path"),
    ],
    ids=[
        "hardcoded",
        "reads-verifier",
        "pip-range",
        "pip-unknown-version",
        "apt-unknown",
        "npm-range",
        "npm-unknown-version",
        "escaping-path",
        "skill-unnamed",
        "reserved",
    ],
)
def test_an_unusable_build_answer_is_repaired_inside_the_call(
    server: ScriptedServer, author: ModelAuthor, change: dict[str, Any], named: str
) -> None:
    server.script(json_answer(blueprint_answer()), json_answer(build_answer() | change), json_answer(build_answer()))
    draft = _draft(author)

    assert check_draft(draft).passed
    assert named in server.requests[2]["messages"][-1]["content"]


@pytest.mark.parametrize(
    ("generator", "named"),
    [
        ("raise SystemExit('no disk')", "generator.failed: the generator exited with 1: no disk"),
        ("import pathlib, random\npathlib.Path('x.txt').write_text(str(random.random()))\n", "two runs wrote"),
        ("pass\n", "generator.failed: the generator wrote no files"),
    ],
    ids=["fails", "nondeterministic", "writes-nothing"],
)
def test_a_generator_that_fails_goes_back_and_a_second_failure_is_a_rejection(
    server: ScriptedServer, author: ModelAuthor, tmp_path: Path, generator: str, named: str
) -> None:
    broken = build_answer() | {"generator": generator}
    server.script(json_answer(blueprint_answer()), json_answer(broken), json_answer(broken))
    record = _record(author, tmp_path)

    assert record.status == TaskStatus.rejected and named in record.reasons[0]
    assert named in server.requests[2]["messages"][-1]["content"]


class NoSandbox:
    def run(self, script: str) -> dict[str, bytes]:
        raise GeneratorUnavailable("bubblewrap (bwrap) or prlimit is missing")


def test_without_a_sandbox_the_model_is_asked_for_inline_files(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    generated = SubprocessRunner().run(GENERATOR)
    inline = build_answer() | {"generator": ""}
    inline["files"] += [{"path": p, "content": data.decode()} for p, data in generated.items() if p.endswith("log")]
    inline["files"] += [{"path": "logs/api.log.1", "content": generated["logs/api.log.1"].decode()}]
    server.script(json_answer(blueprint_answer()), json_answer(build_answer()), json_answer(inline))
    draft = _draft(ModelAuthor(make_client(cache=CacheMode.off), runner=NoSandbox()))

    assert check_draft(draft).passed and sorted(draft.workspace) == sorted(set(WORKSPACE) - {"logs/api.log.2.gz"})
    feedback = server.requests[2]["messages"][-1]["content"]
    assert "build.generator_unavailable: bubblewrap (bwrap) or prlimit is missing" in feedback


# --- failures of the model or the endpoint -------------------------------------------------------


def test_an_unreachable_endpoint_is_an_error_row_not_a_crash(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger, tmp_path: Path
) -> None:
    server.script(*[status(503, "overloaded")] * 2)
    author = ModelAuthor(make_client(cache=CacheMode.off, max_attempts=2), runner=SubprocessRunner())
    record = _record(author, tmp_path)

    assert record.status == TaskStatus.error and record.author == "model:scripted-model"
    assert "ModelUnavailable" in record.reasons[0] and "503" in record.reasons[0]
    (row,) = ledger.rows()
    assert (row["status"], row["error_class"], row["error_kind"]) == ("error", "ModelUnavailable", "infrastructure")


def test_a_refusal_is_a_rejection(server: ScriptedServer, author: ModelAuthor, tmp_path: Path) -> None:
    server.script(refusal("I cannot help with that"))
    record = _record(author, tmp_path)
    assert record.status == TaskStatus.rejected and "blueprint: ModelRefused" in record.reasons[0]


def test_a_skill_past_the_authors_budget_is_rejected_over_budget_without_a_retry(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger, tmp_path: Path
) -> None:
    # the build answer arrives a few characters every 20 ms: minutes in all, far past the 1.5 s budget
    server.script(json_answer(blueprint_answer()), paced(json_answer(build_answer()), 0.02))
    author = ModelAuthor(make_client(cache=CacheMode.off, budget_seconds=1.5), runner=SubprocessRunner())
    record = _record(author, tmp_path)

    assert record.status == TaskStatus.rejected and record.task_id is None
    over = "author model:scripted-model failed: build: ModelOverBudget: the model was still writing when the call's "
    assert record.reasons[0].startswith(over + "deadline passed after ")
    assert record.reasons[0].endswith(" tokens (past the author's budget_seconds for one skill)")
    blueprint_call, build_call = ledger.rows()
    assert blueprint_call["status"] == "ok"
    assert (build_call["error_class"], build_call["endpoint_requests"]) == ("ModelOverBudget", 1), "never retried"
    assert build_call["output_tokens"] > 0 and ledger.round_rows()[-1]["content"], "what came is kept"


# --- wiring --------------------------------------------------------------------------------------


def test_the_ledger_goes_to_the_lake_after_every_skill(
    server: ScriptedServer, make_client: ClientFactory, lake: Lake, tmp_path: Path
) -> None:
    server.script(json_answer(blueprint_answer()), json_answer(build_answer()))
    author = ModelAuthor(make_client(cache=CacheMode.off), runner=SubprocessRunner(), log=lake)
    assert _record(author, tmp_path).status == TaskStatus.built

    rows = lake.query("SELECT role, operation, status FROM llm_calls ORDER BY called_at").rows()
    assert rows == [("author", "structured", "ok")] * 2 and len(author.client.ledger) == 0
    author.close()


def test_skill2env_run_takes_the_model_author_when_the_author_role_is_configured(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SKILL2ENV_HOME", str(tmp_path / "home"))
    for name in ("SKILL2ENV_LLM_BASE_URL", "SKILL2ENV_LLM_MODEL", "SKILL2ENV_LLM_AUTHOR_MODEL"):
        monkeypatch.delenv(name, raising=False)
    home = Home.resolve(None)
    lake = Lake(home.lake_path)
    assert isinstance(choose_author("auto", LlmSettings.load(home), log=lake), OfflineAuthor)
    assert choose_author("none", LlmSettings.load(home)) is None
    with pytest.raises(ModelNotConfigured, match="author role"):
        choose_author("model", LlmSettings.load(home))

    monkeypatch.setenv("SKILL2ENV_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("SKILL2ENV_LLM_AUTHOR_MODEL", "author-model")
    author = choose_author("auto", LlmSettings.load(home), log=lake)
    assert isinstance(author, ModelAuthor) and author.name == "model:author-model"
    assert author.log is lake


# --- the real sandbox ----------------------------------------------------------------------------


@pytest.mark.bwrap
def test_in_bwrap_the_generator_runs_sandboxed_and_the_task_passes_its_gates(
    server: ScriptedServer, make_client: ClientFactory, tmp_path: Path
) -> None:
    require_backend("bwrap")
    server.script(json_answer(blueprint_answer()), json_answer(build_answer()))
    author = ModelAuthor(make_client(cache=CacheMode.off))  # the default runner: bwrap
    authored = _authored(author, tmp_path)
    (record,) = authored.tasks
    ((blueprint, _),) = authored.blueprints
    assert record.status == TaskStatus.built, record.reasons

    task_dir = TaskStore(tmp_path / "home").resolve(record.store_path or "")
    rubric = Rubric.model_validate_json((task_dir / "tests" / "rubric.json").read_text())
    validation = validate_task(record.task_id or "", task_dir, rubric, backend="bwrap", blueprint=blueprint)
    outcomes = {o.gate.value: o.status.value for o in validation.outcomes}
    assert validation.accepted, [(o.gate.value, o.status.value, o.evidence) for o in validation.outcomes]
    assert outcomes == {"oracle": "passed", "nop": "passed", "partial": "passed", "leak": "passed",
                        "judge": "unjudged", "hack_probe": "passed"}  # fmt: skip
    assert validation.acceptance == "accepted_without_judge"  # its judge item: no judge configured here
