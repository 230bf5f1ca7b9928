"""The shipped verifier scores judge items itself when its environment names an OpenAI-compatible
endpoint: run as `python3 -I tests/verify.py` from a written bundle against a real HTTP server on
127.0.0.1, with the host judge role's own prompt and reply parsing."""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from llm_server import Scripted, ScriptedServer, drop, json_answer, status, text

from skill2env.rubric.bundle import verify_command, write_bundle
from skill2env.rubric.judge import JudgeRequest
from skill2env.rubric.judge import judge_messages as host_messages
from skill2env.rubric.judge_prompt import JudgeReplyError, frame_tag, judge_messages, judge_request
from skill2env.rubric.models import Rubric
from skill2env.rubric.verify_main import (
    HOST_JUDGE,
    NO_ENDPOINT,
    JudgeCallError,
    JudgeEndpoint,
    judge_endpoint,
    reward_document,
)

WEIGHTS = {"report": 0.4, "table": 0.2, "tone": 0.4}
RUBRIC = Rubric.model_validate(
    {
        "items": [
            {
                "id": "report",
                "description": "the report states the total",
                "weight": WEIGHTS["report"],
                "method": "deterministic",
                "check": {"check": "text_contains", "params": {"path": "report.md", "contains": "Total: 81"}},
            },
            {
                "id": "table",
                "description": "the table has 3 rows",
                "weight": WEIGHTS["table"],
                "method": "deterministic",
                "check": {"check": "row_count", "params": {"path": "table.csv", "expected": 3}},
            },
            {
                "id": "tone",
                "description": "the report is clear",
                "weight": WEIGHTS["tone"],
                "method": "llm_judge",
                "judge_instruction": "Score 1 if the report states the total plainly.",
                "target_files": ["report.md", "notes/*.txt"],
            },
        ]
    }
)
VERDICT = {
    "score": 0.75,
    "reasoning": "states the total",
    "evidence": [{"path": "report.md", "quote": "total: 81"}, {"path": "report.md", "quote": "Total: 99"}],
}
JUDGE_ENV = {
    "SKILL2ENV_LLM_JUDGE_MODEL": "judge-model",
    "SKILL2ENV_LLM_JUDGE_API_KEY": "sk-test-key",
}


def expected_reward(q: dict[str, float]) -> float:
    """Σ w·q / Σ w over every item, an item without q counting 0 (the project's rule)."""
    return math.fsum(WEIGHTS[i] * q.get(i, 0.0) for i in WEIGHTS) / math.fsum(WEIGHTS.values())


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "workspace"
    folder.mkdir()
    (folder / "report.md").write_text("# Report\nTotal: 81\n")
    (folder / "table.csv").write_text("a\n1\n2\n")  # 2 rows: `table` fails
    return folder


def run_verifier(
    tmp_path: Path, workspace: Path, environ: dict[str, str], *, host: bool = False
) -> tuple[dict[str, Any], dict[str, Any], Path]:
    """The bundle's verify.py as Harbor runs it (or with the host's command line): (reward.json, results.json, out)."""
    tests = tmp_path / "tests"
    write_bundle(tests, RUBRIC, workdir=str(workspace))
    out = tmp_path / "logs" / "verifier"
    command = verify_command(str(workspace), tests=str(tests), out=str(out), judge=not host)
    assert command[:2] == ["python3", "-I"]
    # Only PATH and the judge's variables: no proxy settings of this machine reach the verifier.
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **environ}
    completed = subprocess.run(
        [sys.executable, "-I", "-S", *command[2:]], capture_output=True, text=True, cwd=tests, env=env, timeout=120
    )
    assert completed.returncode == 0, completed.stderr
    reward = json.loads((out / "reward.json").read_text())
    results = json.loads((out / "results.json").read_text())
    return reward, results, out


def item(results: dict[str, Any], item_id: str) -> dict[str, Any]:
    return next(entry for entry in results["items"] if entry["id"] == item_id)


def endpoint_env(server: ScriptedServer) -> dict[str, str]:
    return {"SKILL2ENV_LLM_JUDGE_BASE_URL": server.base_url, **JUDGE_ENV}


def test_with_an_endpoint_the_verifier_scores_judge_items_from_the_reply(
    tmp_path: Path, workspace: Path, server: ScriptedServer
) -> None:
    server.script(json_answer(VERDICT))

    reward, results, out = run_verifier(tmp_path, workspace, endpoint_env(server))

    assert reward == {"reward": expected_reward({"report": 1.0, "tone": 0.75})}
    tone = item(results, "tone")
    assert (tone["status"], tone["q"], tone["scored_by"], tone["error"]) == ("passed", 0.75, "judge", None)
    assert tone["evidence"]["judge"] == "model:judge-model"
    assert [q["found"] for q in tone["evidence"]["quotes"]] == [True, False]
    assert tone["evidence"]["reasoning"] == ["states the total"] and tone["evidence"]["missing"] == ["notes/*.txt"]
    assert [(e["id"], e["scored_by"]) for e in results["items"]] == [
        ("report", "verifier"),
        ("table", "verifier"),
        ("tone", "judge"),
    ]
    assert results["complete"] is True and results["full_credit"] is False
    assert results["judge"] == {"model": "judge-model"}
    assert "sk-test-key" not in (out / "results.json").read_text()
    # One request, at temperature 0 with the seed, with the key as a bearer token.
    assert len(server.requests) == 1
    sent = server.requests[0]
    assert (sent["model"], sent["temperature"], sent["seed"]) == ("judge-model", 0, 0)
    assert server.headers[0]["authorization"] == "Bearer sk-test-key"
    # The verifier's prompt is the host judge role's prompt for the same item and files.
    inputs = json.loads((out / "judge_inputs.json").read_text())["tone"]
    assert sent["messages"] == host_messages(JudgeRequest.build(RUBRIC.item("tone"), inputs))
    tag = frame_tag("# Report\nTotal: 81\n")
    assert f"=== file report.md (19 bytes) [{tag}] ===\n# Report\nTotal: 81\n" in sent["messages"][1]["content"]


def test_every_item_scored_and_perfect_is_full_credit(tmp_path: Path, workspace: Path, server: ScriptedServer) -> None:
    (workspace / "table.csv").write_text("a\n1\n2\n3\n")
    server.script(json_answer({**VERDICT, "score": 1}))

    reward, results, _ = run_verifier(tmp_path, workspace, endpoint_env(server))

    assert reward == {"reward": 1.0}
    assert results["complete"] is True and results["full_credit"] is True
    assert item(results, "tone")["q"] == 1.0


def test_a_low_score_fails_the_item_but_scores_it(tmp_path: Path, workspace: Path, server: ScriptedServer) -> None:
    server.script(json_answer({**VERDICT, "score": 0.25}))

    reward, results, _ = run_verifier(tmp_path, workspace, endpoint_env(server))

    tone = item(results, "tone")
    assert (tone["status"], tone["q"], tone["scored_by"]) == ("failed", 0.25, "judge")
    assert reward == {"reward": expected_reward({"report": 1.0, "tone": 0.25})}


GARBAGE = {
    "prose": text("The report looks clear to me."),
    "score_out_of_range": json_answer({**VERDICT, "score": 1.7}),
    "score_as_string": json_answer({**VERDICT, "score": "0.9"}),
    "extra_field": json_answer({**VERDICT, "confidence": "high"}),
    "missing_evidence": json_answer({"score": 0.9, "reasoning": "fine"}),
    "not_a_chat_completion": Scripted(body=b"<html>gateway</html>"),
    "no_choices": Scripted(body=b'{"choices": []}'),
}


@pytest.mark.parametrize("reply", sorted(GARBAGE))
def test_a_garbage_reply_leaves_the_item_unscored_and_the_reward_lower(
    tmp_path: Path, workspace: Path, server: ScriptedServer, reply: str
) -> None:
    server.script(GARBAGE[reply])

    reward, results, _ = run_verifier(tmp_path, workspace, endpoint_env(server))

    tone = item(results, "tone")
    assert (tone["status"], tone["q"], tone["scored_by"]) == ("unscored", None, None)
    assert tone["error"].startswith("the judge returned garbage: ")
    assert tone["evidence"]["reason"] == tone["error"]
    assert reward == {"reward": expected_reward({"report": 1.0})}
    assert reward["reward"] < expected_reward({"report": 1.0, "tone": 0.75})
    assert results["complete"] is False and results["full_credit"] is False
    assert len(server.requests) == 1  # a reply is never asked again


def test_a_failing_endpoint_is_retried_then_leaves_the_item_unscored(
    tmp_path: Path, workspace: Path, server: ScriptedServer
) -> None:
    server.script(*[status(503, "overloaded", retry_after=0.01)] * 3)

    reward, results, _ = run_verifier(tmp_path, workspace, endpoint_env(server))

    tone = item(results, "tone")
    assert tone["status"] == "unscored" and tone["error"].startswith("the judge failed: no answer after 3 attempt(s)")
    assert "HTTP 503" in tone["error"] and len(server.requests) == 3
    assert reward == {"reward": expected_reward({"report": 1.0})}


def test_a_transient_failure_is_retried(tmp_path: Path, workspace: Path, server: ScriptedServer) -> None:
    server.script(status(429, retry_after=0.01), json_answer(VERDICT))

    reward, results, _ = run_verifier(tmp_path, workspace, endpoint_env(server))

    assert item(results, "tone")["q"] == 0.75 and len(server.requests) == 2
    assert reward == {"reward": expected_reward({"report": 1.0, "tone": 0.75})}


def test_a_client_error_is_not_retried(tmp_path: Path, workspace: Path, server: ScriptedServer) -> None:
    server.script(status(401, "bad key"))

    _, results, _ = run_verifier(tmp_path, workspace, endpoint_env(server))

    tone = item(results, "tone")
    assert tone["status"] == "unscored" and "HTTP 401" in tone["error"] and "bad key" in tone["error"]
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "environ",
    [
        {},
        {"SKILL2ENV_LLM_JUDGE_BASE_URL": "", "SKILL2ENV_LLM_JUDGE_MODEL": ""},
        {"SKILL2ENV_LLM_JUDGE_MODEL": "judge-model"},
    ],
    ids=["unset", "empty", "model_only"],
)
def test_without_an_endpoint_judge_items_stay_unscored(
    tmp_path: Path, workspace: Path, server: ScriptedServer, environ: dict[str, str]
) -> None:
    (workspace / "table.csv").write_text("a\n1\n2\n3\n")  # every deterministic item passes

    reward, results, _ = run_verifier(tmp_path, workspace, environ)

    tone = item(results, "tone")
    assert (tone["status"], tone["q"], tone["scored_by"]) == ("unscored", None, None)
    assert tone["evidence"] == {"reason": NO_ENDPOINT}
    deterministic_share = (WEIGHTS["report"] + WEIGHTS["table"]) / sum(WEIGHTS.values())
    assert reward == {"reward": expected_reward({"report": 1.0, "table": 1.0})}
    assert reward["reward"] == pytest.approx(deterministic_share)
    assert results["complete"] is False and results["full_credit"] is False
    assert results["judge"] == {"model": None, "reason": NO_ENDPOINT}
    assert server.requests == []


def test_the_hosts_flag_never_calls_the_endpoint_even_when_it_is_named(
    tmp_path: Path, workspace: Path, server: ScriptedServer
) -> None:
    server.script(json_answer(VERDICT))

    reward, results, _ = run_verifier(tmp_path, workspace, endpoint_env(server), host=True)

    assert server.requests == [] and server.pending == 1
    tone = item(results, "tone")
    assert tone["status"] == "unscored" and tone["evidence"] == {"reason": HOST_JUDGE}
    assert reward == {"reward": expected_reward({"report": 1.0})}


# -- in-process: the endpoint client and the choice of endpoint ----------------------------------------


def test_a_dropped_connection_is_retried(server: ScriptedServer) -> None:
    server.script(drop(), json_answer(VERDICT))
    endpoint = JudgeEndpoint(server.base_url, "judge-model", backoff=0.0)

    assert json.loads(endpoint.complete([{"role": "user", "content": "hi"}], seed=0) or "") == VERDICT
    assert len(server.requests) == 2


def test_an_unreachable_endpoint_fails_after_every_attempt() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = JudgeEndpoint(f"http://127.0.0.1:{port}/v1", "judge-model", backoff=0.0)

    with pytest.raises(JudgeCallError, match=r"no answer after 3 attempt\(s\)"):
        endpoint.complete([{"role": "user", "content": "hi"}], seed=0)


def test_a_redirect_is_not_followed(server: ScriptedServer) -> None:
    server.script(Scripted(status=307, headers={"Location": "http://127.0.0.1:9/elsewhere"}))
    endpoint = JudgeEndpoint(server.base_url, "judge-model", backoff=0.0)

    with pytest.raises(JudgeCallError, match="HTTP 307"):
        endpoint.complete([{"role": "user", "content": "hi"}], seed=0)
    assert len(server.requests) == 1


def test_a_reply_without_text_is_garbage(server: ScriptedServer) -> None:
    from llm_server import refusal

    server.script(refusal("I cannot judge this"))
    endpoint = JudgeEndpoint(server.base_url, "judge-model", backoff=0.0)
    from skill2env.rubric.judge_prompt import parse_reply

    with pytest.raises(JudgeReplyError, match="empty"):
        parse_reply(endpoint.complete([{"role": "user", "content": "hi"}], seed=0))


def test_the_endpoint_comes_from_the_environment_only_when_complete_and_allowed() -> None:
    named = {"SKILL2ENV_LLM_JUDGE_BASE_URL": "http://127.0.0.1:1/v1/", "SKILL2ENV_LLM_JUDGE_MODEL": "m"}

    endpoint, reason = judge_endpoint({**named, "SKILL2ENV_LLM_JUDGE_TIMEOUT_SECONDS": "7.5"})
    assert endpoint is not None and reason == ""
    assert (endpoint.url, endpoint.model, endpoint.api_key, endpoint.timeout) == (
        "http://127.0.0.1:1/v1/chat/completions",
        "m",
        None,
        7.5,
    )
    assert judge_endpoint(named, disabled=True) == (None, HOST_JUDGE)
    assert judge_endpoint({**named, "SKILL2ENV_LLM_JUDGE_MODEL": " "}) == (None, NO_ENDPOINT)
    refused, why = judge_endpoint({**named, "SKILL2ENV_LLM_JUDGE_BASE_URL": "file:///etc/passwd"})
    assert refused is None and "not an http(s) URL" in why
    with pytest.raises(ValueError, match="http"):
        JudgeEndpoint("ftp://example.org/v1", "m")


@pytest.mark.parametrize(("reward", "written"), [(0.7, 0.7), (None, 0.0), (float("nan"), 0.0), (1.0000000002, 1.0)])
def test_reward_json_is_the_reward_alone_and_always_a_number(reward: float | None, written: float) -> None:
    assert reward_document({"reward": reward, "scored_weight": 0.5, "items": []}) == {"reward": written}


def test_the_shared_request_equals_the_hosts_for_every_kind_of_file() -> None:
    inputs = {
        "files": [
            {"path": "a.md", "text": "abc[… cut …]", "bytes": 10**6, "truncated": True},
            {"path": "b.bin", "bytes": 5, "binary": True},
            {"path": "c.md", "bytes": 3, "unreadable": "PermissionError"},
            {"path": "d.md", "bytes": 9, "omitted": True},
        ],
        "missing": ["e.md"],
        "listing": ["a.md (1000000 bytes)"],
    }
    item_dict = RUBRIC.model_dump(mode="json")["items"][2]
    for given in (inputs, {"files": [], "missing": [], "listing": ["x (1 bytes)"]}, {"files": []}):
        assert judge_messages(judge_request(item_dict, given)) == host_messages(
            JudgeRequest.build(RUBRIC.item("tone"), given)
        )


def test_a_request_past_its_timeout_is_retried(server: ScriptedServer) -> None:
    from llm_server import slow

    server.script(slow(1.0, json_answer({**VERDICT, "score": 0.0})), json_answer(VERDICT))
    endpoint = JudgeEndpoint(server.base_url, "judge-model", timeout=0.2, backoff=0.0)

    assert json.loads(endpoint.complete([{"role": "user", "content": "hi"}], seed=0) or "") == VERDICT
    assert len(server.requests) == 2
