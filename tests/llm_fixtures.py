"""Fixtures for tests that call a model: a scripted server and clients pointed at it (a pytest plugin)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from llm_server import ScriptedServer

from skill2env.llm.cache import CacheMode, ResponseCache
from skill2env.llm.client import ModelClient
from skill2env.llm.config import RoleConfig
from skill2env.llm.ledger import CallContext, Ledger

ClientFactory = Callable[..., ModelClient]
FAST = {"backoff_seconds": 0.001, "backoff_max_seconds": 0.05, "timeout_seconds": 5.0}
"""Retries in milliseconds, so failure tests stay fast."""


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as running:
        yield running


@pytest.fixture
def ledger() -> Ledger:
    return Ledger()


@pytest.fixture
def make_client(server: ScriptedServer, ledger: Ledger, tmp_path: Path) -> ClientFactory:
    """`make_client(role="author", cache=CacheMode.off, **RoleConfig fields)`: a client of the scripted server."""

    def make(role: str = "author", cache: CacheMode = CacheMode.read_write, **fields: Any) -> ModelClient:
        config = RoleConfig(**{"base_url": server.base_url, "model": "scripted-model", **FAST, **fields})
        context = CallContext(asset_key="test_asset", partition_key="p1", run_id="run-1")
        return ModelClient(role, config, cache=ResponseCache(tmp_path / "cache", cache), ledger=ledger, context=context)

    return make
