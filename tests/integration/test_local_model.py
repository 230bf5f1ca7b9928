"""The model client against a real small model served on loopback (`tests/local_model.py`:
Qwen2.5-Coder-0.5B under llama.cpp's server). A 0.5B model exercises the wire protocol, not
judgement: assert on structure only. Skipped when `xllamacpp` or a model part is not installed
(see /work/shared/notes/local-model.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from local_model import MODEL_NAME, LocalModelMissing, serve
from pydantic import BaseModel, Field

from skill2env.llm.cache import CacheMode, ResponseCache
from skill2env.llm.client import ModelClient
from skill2env.llm.config import RoleConfig
from skill2env.llm.ledger import Ledger
from skill2env.llm.tools import Tool

pytestmark = pytest.mark.local_model


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    try:
        with serve() as url:
            yield url
    except LocalModelMissing as missing:
        pytest.skip(str(missing))


@pytest.fixture
def client(base_url: str, tmp_path: Path) -> ModelClient:
    config = RoleConfig(base_url=base_url, model=MODEL_NAME, max_tokens=128, max_tokens_ceiling=256,
                        timeout_seconds=180, max_repairs=1, seed=7)  # fmt: skip
    return ModelClient("author", config, cache=ResponseCache(tmp_path, CacheMode.read_write), ledger=Ledger())


class Capital(BaseModel):
    country: str = Field(max_length=40)
    capital: str = Field(max_length=40)


class ShellArgs(BaseModel):
    command: str = Field(max_length=200)


def test_a_structured_output_call(client: ModelClient) -> None:
    result = client.structured("What is the capital of France? Answer as JSON.", Capital)

    assert isinstance(result.value, Capital) and result.value.capital
    assert result.mode == "json_schema"
    (row,) = client.ledger.rows()
    assert row["status"] == "ok" and row["input_tokens"] > 0 and row["output_tokens"] > 0

    again = client.structured("What is the capital of France? Answer as JSON.", Capital)
    assert again.value == result.value and client.ledger.rows()[-1]["cache_hit"] is True


def test_a_tool_call(client: ModelClient) -> None:
    shell = Tool.from_model("run_shell", "Run a shell command and return its output.", ShellArgs)
    messages = [
        {"role": "system", "content": "You operate a Linux shell through tools."},
        {"role": "user", "content": "List the files in the current directory."},
    ]

    turn = client.call_tools(messages, [shell], tool_choice="required")

    assert turn.calls and turn.calls[0].name == "run_shell"
    assert isinstance(turn.calls[0].value, ShellArgs) and turn.calls[0].value.command
