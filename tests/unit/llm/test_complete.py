"""Plain calls against the scripted server: what is sent, what comes back, what the ledger records."""

from __future__ import annotations

from dataclasses import replace

import pytest
from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, slow, status, text

from skill2env.llm import client as client_module
from skill2env.llm.cache import CacheMode, ResponseCache
from skill2env.llm.client import ModelClient
from skill2env.llm.config import RoleConfig
from skill2env.llm.errors import ModelError, ModelNotConfigured
from skill2env.llm.ledger import Ledger
from skill2env.llm.prompts import render


def test_a_call_sends_the_role_settings_and_returns_the_answer(
    server: ScriptedServer, make_client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCRIPTED_KEY", "sk-secret-123")
    server.script(text("Hello there", prompt_tokens=7, completion_tokens=3))
    client = make_client(temperature=0.3, seed=42, max_tokens=99, api_key_env="SCRIPTED_KEY")

    reply = client.complete([{"role": "user", "content": "Hi"}], top_p=0.5)

    assert reply.content == "Hello there"
    assert (reply.finish_reason, reply.input_tokens, reply.output_tokens) == ("stop", 7, 3)
    (sent,) = server.requests
    assert sent["model"] == "scripted-model"
    assert sent["messages"] == [{"role": "user", "content": "Hi"}]
    assert (sent["temperature"], sent["seed"], sent["max_tokens"], sent["top_p"]) == (0.3, 42, 99, 0.5)
    assert "tools" not in sent and "response_format" not in sent
    assert server.headers[0]["authorization"] == "Bearer sk-secret-123"


def test_the_ledger_row_of_a_call(server: ScriptedServer, make_client: ClientFactory, ledger: Ledger) -> None:
    server.script(text("fine", prompt_tokens=1000, completion_tokens=500))
    client = make_client(role="judge", price_input_per_1k=0.002, price_output_per_1k=0.01, cache=CacheMode.off)

    undecided = [{"criterion": "practical", "reasons": ["workflow:unclear"], "evidence": []}]
    client.complete(
        render("curator_settle", name="n", description="d", skill_md="b", truncated=False, undecided=undecided)
    )

    (row,) = ledger.rows()
    assert row["role"] == "judge"
    assert row["model"] == "scripted-model"
    assert row["endpoint_host"] == server.base_url.split("//")[1].split("/")[0]
    assert row["operation"] == "complete"
    assert row["template_id"] == "curator_settle" and len(row["template_version"]) == 16
    assert len(row["prompt_hash"]) == 16 and len(row["request_key"]) == 64
    assert (row["input_tokens"], row["output_tokens"]) == (1000, 500)
    assert row["cost_usd"] == pytest.approx(0.002 + 0.005)
    assert (row["cache_hit"], row["attempts"], row["endpoint_requests"]) == (False, 1, 1)
    assert (row["status"], row["error_class"], row["finish_reason"]) == ("ok", None, "stop")
    assert (row["asset_key"], row["partition_key"], row["run_id"]) == ("test_asset", "p1", "run-1")
    assert row["latency_ms"] > 0


def test_a_per_call_partition_key_and_a_bound_context(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(text("a"), text("b"))
    client = make_client(cache=CacheMode.off)

    client.complete("one", partition_key="finance")
    client.bound(asset_key="other_asset", run_id="run-2").complete("two")

    first, second = ledger.rows()
    assert (first["asset_key"], first["partition_key"], first["run_id"]) == ("test_asset", "finance", "run-1")
    assert (second["asset_key"], second["partition_key"], second["run_id"]) == ("other_asset", "p1", "run-2")


def test_slow_and_failed_calls_are_said_in_the_run_log_fast_ones_are_not(
    server: ScriptedServer, make_client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCRIPTED_KEY", "sk-narrated-789")
    monkeypatch.setattr(client_module, "NARRATE_AFTER_SECONDS", 0.2)
    said: list[str] = []
    server.script(text("quick"), slow(0.3, text("late", prompt_tokens=1200, completion_tokens=40)),
                  status(400, "bad key sk-narrated-789"))  # fmt: skip
    client = make_client(cache=CacheMode.off, api_key_env="SCRIPTED_KEY", max_attempts=1)
    client.context = replace(client.context, narrate=said.append)

    client.complete("one")
    client.bound(asset_key="other_asset").complete("two")
    with pytest.raises(ModelError):
        client.complete("three")

    slow_line, failed_line = said
    assert slow_line.startswith("model call author/complete: answered in ")
    assert slow_line.endswith(" s, 1,200 tokens in, 40 out, 1 request"), "the bound client narrates too"
    assert failed_line.startswith("model call author/complete: failed after ") and "ModelRequestRejected" in failed_line
    assert "sk-narrated-789" not in failed_line


def test_the_api_key_never_reaches_the_ledger(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCRIPTED_KEY", "sk-very-secret-456")
    server.script(text("ok"))
    make_client(api_key_env="SCRIPTED_KEY").complete("hi")

    assert server.headers[0]["authorization"] == "Bearer sk-very-secret-456"
    assert "sk-very-secret-456" not in repr(ledger.rows())


def test_without_a_key_variable_a_placeholder_is_sent(
    server: ScriptedServer, make_client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("UNSET_KEY_VARIABLE", raising=False)
    server.script(text("ok"))
    make_client(api_key_env="UNSET_KEY_VARIABLE").complete("hi")
    assert server.headers[0]["authorization"] == "Bearer no-key"


def test_max_completion_tokens_is_used_when_configured(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(text("ok"))
    make_client(max_tokens_field="max_completion_tokens", max_tokens=64).complete("hi")
    assert server.requests[0]["max_completion_tokens"] == 64
    assert "max_tokens" not in server.requests[0]


def test_a_role_without_an_endpoint_says_no_model_configured(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ModelNotConfigured, match="no model configured for role 'solver'"):
        ModelClient("solver", RoleConfig(model="m"), cache=ResponseCache(tmp_path))
