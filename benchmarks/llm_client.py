"""The model client's own cost, against a local server that answers instantly.

    python benchmarks/llm_client.py [--calls 400] [--concurrent 64] [--batch 640]

Starts the test suite's scripted OpenAI-compatible server (`tests/llm_server.py`) in its own
process, then measures, in this one run:

* overhead per call: `ModelClient.complete` (cache off, ledger on) against a raw `httpx` POST
  of the same request body whose JSON answer is decoded — interleaved, sequential, medians;
* a cache hit: `ModelClient.complete` answered from the on-disk cache (no request);
* throughput: `--batch` async calls with `--concurrent` in flight, `ModelClient.acomplete`
  against raw `httpx.AsyncClient` with the same bound, and against the client with 1 in flight.

Goals: ≤ 2 ms added per call, a cache hit ≤ 1 ms, and no serialisation at 64 in flight (as
many calls per second as with one in flight, or more: one Python process on an instant server
is CPU-bound either way, so more in flight cannot mean more calls per second here).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from skill2env.llm import CacheMode, Ledger, ModelClient, ResponseCache, RoleConfig

SERVER = Path(__file__).resolve().parents[1] / "tests" / "llm_server.py"
MESSAGES = [
    {"role": "system", "content": "You judge rubric items."},
    {"role": "user", "content": "Does the output contain a Markdown table? " * 20},
]


def start_server() -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen([sys.executable, str(SERVER)], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    base_url = process.stdout.readline().strip()
    httpx.get(base_url + "/models", timeout=10).raise_for_status()
    return process, base_url


def timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def overhead(client: ModelClient, base_url: str, calls: int) -> tuple[float, float]:
    """Median ms of a raw httpx call and of a client call, interleaved."""
    body = {"model": client.model, "messages": MESSAGES, "max_tokens": client.config.max_tokens, "temperature": 0.0}
    raw_ms, client_ms = [], []
    with httpx.Client(base_url=base_url, headers={"Authorization": "Bearer no-key"}) as raw:
        for _ in range(calls // 10):  # warm both connections
            raw.post("/chat/completions", json=body).json()
            client.complete(MESSAGES)
        for _ in range(calls):
            raw_ms.append(timed(lambda: raw.post("/chat/completions", json=body).json()))
            client_ms.append(timed(lambda: client.complete(MESSAGES)))
    return statistics.median(raw_ms), statistics.median(client_ms)


def cache_hit(client: ModelClient, calls: int) -> float:
    client.complete(MESSAGES)  # fills the cache
    return statistics.median(timed(lambda: client.complete(MESSAGES)) for _ in range(calls))


async def raw_throughput(base_url: str, concurrent: int, batch: int) -> float:
    body = {"model": "scripted-model", "messages": MESSAGES, "max_tokens": 2048, "temperature": 0.0}
    slots = asyncio.Semaphore(concurrent)
    limits = httpx.Limits(max_connections=concurrent, max_keepalive_connections=concurrent)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=60) as raw:

        async def one() -> None:
            async with slots:
                (await raw.post("/chat/completions", json=body)).json()

        await asyncio.gather(*(one() for _ in range(concurrent)))  # warm the connections
        started = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(batch)))
    return batch / (time.perf_counter() - started)


async def client_throughput(client: ModelClient, concurrent: int, batch: int) -> float:
    slots = asyncio.Semaphore(concurrent)  # the client bounds itself too; this bounds it lower for the 1-in-flight run

    async def one() -> None:
        async with slots:
            await client.acomplete(MESSAGES)

    await asyncio.gather(*(one() for _ in range(concurrent)))  # warm the connections
    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(batch)))
    elapsed = time.perf_counter() - started
    await client.aclose()
    return batch / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--concurrent", type=int, default=64)
    parser.add_argument("--batch", type=int, default=640)
    args = parser.parse_args()

    process, base_url = start_server()
    try:
        with tempfile.TemporaryDirectory() as cache_dir:
            # the instant server answers whole (no server-sent events): what is measured is the client's own cost
            config = RoleConfig(base_url=base_url, model="scripted-model", max_concurrency=args.concurrent,
                                stream=False)  # fmt: skip

            def client(mode: CacheMode) -> ModelClient:
                return ModelClient("judge", config, cache=ResponseCache(Path(cache_dir), mode), ledger=Ledger())

            raw_ms, client_ms = overhead(client(CacheMode.off), base_url, args.calls)
            hit_ms = cache_hit(client(CacheMode.read_write), args.calls)
            raw_rate = asyncio.run(raw_throughput(base_url, args.concurrent, args.batch))
            serial_rate = asyncio.run(client_throughput(client(CacheMode.off), 1, args.batch // 2))
            async_client = client(CacheMode.off)
            client_rate = asyncio.run(client_throughput(async_client, args.concurrent, args.batch))
            rows = len(async_client.ledger)
    finally:
        process.terminate()
        process.wait()

    figures = {
        "raw httpx call, median ms": round(raw_ms, 3),
        "ModelClient call (cache off), median ms": round(client_ms, 3),
        "added per call, ms (goal <= 2)": round(client_ms - raw_ms, 3),
        "cache hit, median ms (goal <= 1)": round(hit_ms, 3),
        f"raw httpx async (one pool), {args.concurrent} in flight, calls/s": round(raw_rate),
        "ModelClient async, 1 in flight, calls/s": round(serial_rate),
        f"ModelClient async, {args.concurrent} in flight, calls/s": round(client_rate),
        f"ModelClient, {args.concurrent} in flight / 1 in flight": round(client_rate / serial_rate, 2),
        f"ModelClient / raw httpx, {args.concurrent} in flight": round(client_rate / raw_rate, 2),
        f"ledger rows of the {args.concurrent}-in-flight run": rows,
    }
    width = max(len(name) for name in figures)
    for name, value in figures.items():
        print(f"{name:<{width}}  {value}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
