"""Retries and typed failures: 429 / 5xx / timeouts / dropped and refused connections / 4xx."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, drop, slow, status, text

from skill2env.llm.cache import CacheMode, ResponseCache
from skill2env.llm.client import ModelClient
from skill2env.llm.config import RoleConfig
from skill2env.llm.errors import ModelRequestRejected, ModelUnavailable
from skill2env.llm.ledger import Ledger


def test_429_waits_for_retry_after_then_succeeds(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(status(429, "slow down", retry_after=0.3), text("ok"))
    client = make_client(backoff_max_seconds=5)

    started = time.perf_counter()
    reply = client.complete("hi")

    assert reply.content == "ok"
    assert time.perf_counter() - started >= 0.3
    (row,) = ledger.rows()
    assert (row["status"], row["attempts"], row["endpoint_requests"]) == ("ok", 2, 2)


def test_retry_after_is_capped_by_the_backoff_ceiling(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(status(429, retry_after=30), text("ok"))
    started = time.perf_counter()
    make_client(backoff_max_seconds=0.05).complete("hi")
    assert time.perf_counter() - started < 5


def test_5xx_is_retried_up_to_max_attempts_then_model_unavailable(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(status(500, "boom"), status(502), status(503), status(500, "still boom"), text("too late"))

    with pytest.raises(ModelUnavailable, match="HTTP 500: still boom; gave up after 4 attempts") as caught:
        make_client(max_attempts=4).complete("hi")

    assert caught.value.infrastructure and caught.value.attempts == 4 and caught.value.status_code == 500
    assert len(server.requests) == 4 and server.pending == 1
    (row,) = ledger.rows()
    assert (row["error_class"], row["error_kind"], row["attempts"]) == ("ModelUnavailable", "infrastructure", 4)


def test_a_transient_5xx_is_invisible_to_the_caller(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(status(503), status(500), text("ok"))
    assert make_client().complete("hi").content == "ok"


def test_a_slow_response_times_out_and_is_retried(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(slow(2.0, text("late")), text("on time"))

    started = time.perf_counter()
    reply = make_client(timeout_seconds=0.3).complete("hi")

    assert reply.content == "on time"
    assert time.perf_counter() - started < 1.9


def test_always_slow_is_model_unavailable_with_the_timeout(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(slow(1.0, text("late")), slow(1.0, text("late")))
    with pytest.raises(ModelUnavailable, match=r"timed out after 0\.2 s; gave up after 2 attempts"):
        make_client(timeout_seconds=0.2, max_attempts=2).complete("hi")


def test_a_dropped_connection_is_retried(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(drop(), text("ok"))
    assert make_client().complete("hi").content == "ok"
    assert len(server.requests) == 2


def test_a_refused_connection_is_model_unavailable(tmp_path: Path, ledger: Ledger) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = RoleConfig(base_url=f"http://127.0.0.1:{port}/v1", model="m", max_attempts=2, backoff_seconds=0.001)
    client = ModelClient("judge", config, cache=ResponseCache(tmp_path, CacheMode.off), ledger=ledger)

    with pytest.raises(ModelUnavailable, match="connection failed") as caught:
        client.complete("hi")

    assert caught.value.attempts == 2
    assert ledger.rows()[0]["endpoint_host"] == f"127.0.0.1:{port}"


@pytest.mark.parametrize("code", [401, 403, 404])
def test_auth_and_not_found_fail_at_once(server: ScriptedServer, make_client: ClientFactory, code: int) -> None:
    server.script(status(code, "nope"), text("never"))
    with pytest.raises(ModelUnavailable, match=f"HTTP {code}") as caught:
        make_client().complete("hi")
    assert caught.value.status_code == code and len(server.requests) == 1


def test_a_401_names_the_key_variable(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(status(401, "invalid api key"))
    with pytest.raises(ModelUnavailable, match=r"is \$MY_KEY right\?"):
        make_client(api_key_env="MY_KEY").complete("hi")


def test_a_400_is_rejected_without_retrying(server: ScriptedServer, make_client: ClientFactory, ledger: Ledger) -> None:
    server.script(status(400, "context length exceeded"), text("never"))

    with pytest.raises(ModelRequestRejected, match="context length exceeded"):
        make_client(cache=CacheMode.off).complete("hi")

    assert len(server.requests) == 1
    assert (ledger.rows()[0]["error_class"], ledger.rows()[0]["error_kind"]) == (
        "ModelRequestRejected",
        "infrastructure",
    )


def test_a_body_that_is_not_a_completion_is_model_unavailable(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    from llm_server import Scripted

    server.script(Scripted(body=b'{"hello": "world"}'))
    with pytest.raises(ModelUnavailable, match="not a chat completion"):
        make_client().complete("hi")


def test_a_key_echoed_in_an_error_never_reaches_the_error_or_the_ledger(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ECHO_KEY", "local-secret-token")
    server.script(status(401, "Incorrect API key provided: local-secret-token; also sk-proj-****abcd1234"))

    with pytest.raises(ModelUnavailable) as caught:
        make_client(api_key_env="ECHO_KEY").complete("hi")

    assert "local-secret-token" not in str(caught.value)
    message = ledger.rows()[0]["error_message"]
    assert "Incorrect API key provided: ***; also ***" in message
    assert "local-secret-token" not in message and "abcd1234" not in message
