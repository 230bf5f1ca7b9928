"""The response cache: identical requests cost nothing, the four modes, crash safety."""

from __future__ import annotations

from pathlib import Path

import pytest
from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, json_answer, status, text
from pydantic import BaseModel

from skill2env.llm.cache import CacheEntry, CacheMode, ResponseCache
from skill2env.llm.errors import ModelCacheMiss, ModelRequestRejected, ModelUnavailable
from skill2env.llm.ledger import Ledger


class Answer(BaseModel):
    value: int


def test_an_identical_request_is_served_from_the_cache(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(text("first", prompt_tokens=20, completion_tokens=5))

    first = make_client().complete("hi", seed=1)
    again = make_client().complete("hi", seed=1)  # a new client: the cache is on disk

    assert first == again
    assert len(server.requests) == 1
    live, hit = ledger.rows()
    assert (live["cache_hit"], live["input_tokens"], live["output_tokens"]) == (False, 20, 5)
    assert (hit["cache_hit"], hit["input_tokens"], hit["output_tokens"], hit["cost_usd"]) == (True, 0, 0, 0.0)
    assert (hit["cached_input_tokens"], hit["cached_output_tokens"], hit["endpoint_requests"]) == (20, 5, 0)
    assert hit["request_key"] == live["request_key"]


@pytest.mark.parametrize(
    "change",
    [{"seed": 2}, {"temperature": 0.7}, {"max_tokens": 10}, {"top_p": 0.9}],
)
def test_any_change_to_the_request_is_a_miss(
    server: ScriptedServer, make_client: ClientFactory, change: dict[str, object]
) -> None:
    server.script(text("a"), text("b"))
    client = make_client()
    assert client.complete("hi", seed=1).content == "a"
    assert client.complete("hi", **{"seed": 1, **change}).content == "b"


def test_a_different_model_or_message_is_a_miss(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(text("a"), text("b"), text("c"))
    make_client().complete("hi")
    make_client(model="other-model").complete("hi")
    make_client().complete("hi!")
    assert len(server.requests) == 3


def test_a_repaired_structured_call_replays_entirely_from_the_cache(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(text("not json"), json_answer({"value": 3}))

    assert make_client().structured("n?", Answer).value.value == 3
    assert make_client().structured("n?", Answer).value.value == 3

    assert len(server.requests) == 2
    assert [(r["cache_hit"], r["attempts"], r["endpoint_requests"]) for r in ledger.rows()] == [
        (False, 2, 2),
        (True, 2, 0),
    ]


def test_read_only_serves_hits_but_stores_nothing(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(text("stored"), text("not stored"), text("live again"))
    make_client().complete("hi")

    assert make_client(cache=CacheMode.read_only).complete("hi").content == "stored"
    assert make_client(cache=CacheMode.read_only).complete("new").content == "not stored"
    assert make_client(cache=CacheMode.read_only).complete("new").content == "live again"


def test_off_always_calls_the_endpoint(server: ScriptedServer, make_client: ClientFactory, tmp_path: Path) -> None:
    server.script(text("a"), text("b"))
    assert make_client(cache=CacheMode.off).complete("hi").content == "a"
    assert make_client(cache=CacheMode.off).complete("hi").content == "b"
    assert not (tmp_path / "cache").exists()


def test_replay_only_serves_hits_and_a_miss_is_an_error_without_a_request(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(text("recorded"))
    make_client().complete("hi")

    assert make_client(cache=CacheMode.replay_only).complete("hi").content == "recorded"
    with pytest.raises(ModelCacheMiss, match="replay-only"):
        make_client(cache=CacheMode.replay_only).complete("never recorded")

    assert len(server.requests) == 1
    assert ledger.rows()[-1]["error_class"] == "ModelCacheMiss"


def test_a_rejected_request_is_remembered(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(status(400, "bad request shape"))
    for _ in range(2):
        with pytest.raises(ModelRequestRejected, match="bad request shape"):
            make_client().complete("hi")
    assert len(server.requests) == 1


def test_errors_are_never_cached(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(status(500), text("ok"))
    with pytest.raises(ModelUnavailable, match="HTTP 500"):
        make_client(max_attempts=1).complete("hi")
    assert make_client().complete("hi").content == "ok"


def test_writes_are_atomic_and_a_corrupt_entry_is_a_miss(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path, CacheMode.read_write)
    key = "ab" + "0" * 62
    cache.put(key, CacheEntry(200, b'{"choices": []}'))

    assert cache.get(key) == CacheEntry(200, b'{"choices": []}')
    assert [p.name for p in (tmp_path / "ab").iterdir()] == [key]  # no temporary files left behind

    (tmp_path / "ab" / key).write_bytes(b'{"stat')  # a torn write (power loss)
    assert cache.get(key) is None
    (tmp_path / "ab" / key).write_bytes(b'{"status": 200}\n')  # header without a body
    assert cache.get(key) is None
    cache.put(key, CacheEntry(200, b"{}"))
    assert cache.get(key) == CacheEntry(200, b"{}")


def test_a_crash_mid_write_leaves_the_old_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = ResponseCache(tmp_path, CacheMode.read_write)
    key = "cd" + "1" * 62
    cache.put(key, CacheEntry(200, b"old"))

    def crash(self: Path, target: Path) -> Path:
        raise KeyboardInterrupt

    monkeypatch.setattr(Path, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        cache.put(key, CacheEntry(200, b"new"))
    monkeypatch.undo()

    assert cache.get(key) == CacheEntry(200, b"old")
    assert [p.name for p in (tmp_path / "cd").iterdir()] == [key]
