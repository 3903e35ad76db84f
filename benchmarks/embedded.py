"""The embedded llama.cpp server under the agentic judge: prompt cache, judgments in flight, threads.

The agentic judge on 4 training-split requests (2 code, 2 math; both candidate orders, every action decoded
under its JSON schema) against the embedded server started with each configuration; wall time of the batch.
llama-cpp-python's server runs one completion at a time, so concurrent conversations interleave: without a
prompt cache each turn re-reads its whole prompt. Its threads spin-wait, so on a loaded 2-core machine more
threads can be slower. Run: `python -m benchmarks.run embedded` (or `python -m benchmarks.embedded --model PATH`).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from benchmarks._util import table
from judgegraph.backends import EmbeddedServer
from judgegraph.runtime import Judge
from judgegraph.schema import JudgeRequest
from judgegraph.training import training_requests

CONFIGS = [  # (threads, prompt cache bytes, judgments in flight)
    (2, 0, 1),
    (2, 0, 2),
    (2, 512 << 20, 1),
    (2, 512 << 20, 2),
    (2, 512 << 20, 4),
    (1, 512 << 20, 2),
]


async def _batch(
    model: Path | None, requests: list[JudgeRequest], threads: int, cache: int, flight: int
) -> tuple[float, int]:
    """The batch's wall time and how many judgments were right."""
    server = EmbeddedServer(model=model, n_threads=threads, cache_bytes=cache)
    url = await server.start()
    try:
        limit = asyncio.Semaphore(flight)
        async with Judge.load("agentic", store=False, model_url=url, backend=EmbeddedServer.profile) as judge:

            async def one(request: JudgeRequest) -> bool:
                async with limit:
                    return bool((await judge.arun(request)).correct)

            start = time.perf_counter()
            right = await asyncio.gather(*(one(r) for r in requests))
            wall = time.perf_counter() - start
    finally:
        await server.stop()
    return wall, sum(right)


async def bench(model: Path | None = None) -> str:
    requests = await training_requests(["code"], 2) + await training_requests(["math"], 2)
    rows: list[list[object]] = []
    for threads, cache, flight in CONFIGS:
        wall, right = await _batch(model, requests, threads, cache, flight)
        rows.append([threads, f"{cache >> 20} MiB" if cache else "off", flight, wall, f"{right}/{len(requests)}"])
    return table(["threads", "prompt cache", "judgments in flight", "batch wall s", "right"], rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None, help="a GGUF file (default: the embedded model)")
    print(asyncio.run(bench(parser.parse_args().model)))
