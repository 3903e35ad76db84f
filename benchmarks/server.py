"""Reward server: requests/s and latency with 500 concurrent clients, with 1, 2 and all cores' worker processes.

`judgegraph serve` runs as its own process, as deployed, on a fake model in a third process; the clients are
httpx in this one. Each client posts OpenRLHF `/reward` requests (one response with a reference answer, so
the evidence decides: the server's own cost, no model wait) one after another.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx

from benchmarks._fake_model import fake_model_process
from benchmarks._util import Stats, table
from judgegraph.backends import free_port

CLIENTS = 500
PER_CLIENT = 4
PROMPT = "<|im_start|>user\nWhat is 6*7?<|im_end|>\n<|im_start|>assistant\n"


@asynccontextmanager
async def serve_process(
    model_url: str, store: Path, *options: str
) -> AsyncIterator[tuple[str, asyncio.subprocess.Process]]:
    """`judgegraph serve` as its own process on a free port, as deployed: yields (base URL, process) once it
    answers /health, and stops it after."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = ["-m", "judgegraph.cli", "serve", "--port", str(port), "--model", model_url, "--store", str(store)]
    proc = await asyncio.create_subprocess_exec(
        sys.executable, *cmd, *options, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        await _wait_ready(base, proc)
        yield base, proc
    finally:
        if proc.returncode is None:
            proc.terminate()
        await asyncio.wait_for(proc.wait(), timeout=30)


async def _wait_ready(base: str, proc: asyncio.subprocess.Process) -> None:
    async with httpx.AsyncClient() as client:
        for _ in range(600):
            if proc.returncode is not None:
                raise RuntimeError("judgegraph serve exited during start")
            try:
                if (await client.get(f"{base}/health")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise RuntimeError("judgegraph serve did not start in 60 s")


async def _load(
    base: str, clients: int = CLIENTS, per_client: int = PER_CLIENT
) -> tuple[list[float], dict[int | str, int], float]:
    latencies: list[float] = []
    statuses: dict[int | str, int] = {}
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=120) as client:

        async def one_client(c: int) -> None:
            for k in range(per_client):
                answer = "The answer is 42." if (c + k) % 2 else "It is 41."
                body = {"query": [PROMPT + answer], "prompts": [PROMPT], "labels": ["42"]}
                start = time.perf_counter()
                try:
                    status: int | str = (await client.post("/reward", json=body)).status_code
                except httpx.TransportError as e:  # counted, not fatal: the report says how many
                    status = type(e).__name__
                latencies.append(time.perf_counter() - start)
                statuses[status] = statuses.get(status, 0) + 1

        start = time.perf_counter()
        await asyncio.gather(*(one_client(c) for c in range(clients)))
        elapsed = time.perf_counter() - start
    return latencies, statuses, elapsed


async def _load_warmup(base: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        body = {"query": [PROMPT + "42"], "prompts": [PROMPT], "labels": ["42"]}
        for _ in range(5):
            (await client.post("/reward", json=body)).raise_for_status()


async def bench() -> str:
    rows = []
    for workers in sorted({1, 2, os.cpu_count() or 1}):
        store = Path(tempfile.mkdtemp(prefix="judgegraph-bench-")) / "runs.db"
        options = ["--max-concurrency", str(CLIENTS), "--workers", str(workers)]
        with fake_model_process(latency_s=0.0) as url:
            async with serve_process(url, store, *options) as (base, _):
                await _load_warmup(base)
                latencies, statuses, elapsed = await _load(base)
        s = Stats.of(latencies)
        rate = len(latencies) / elapsed
        codes = ", ".join(f"{code}: {n}" for code, n in sorted(statuses.items(), key=lambda kv: str(kv[0])))
        rows.append([workers, CLIENTS, len(latencies), rate, s.p50_ms, s.p95_ms, s.p99_ms, codes])
    header = ["workers", "clients", "requests", "requests/s", "p50 ms", "p95 ms", "p99 ms", "status codes"]
    intro = (
        f"{CLIENTS} concurrent clients, {PER_CLIENT} `/reward` requests each, against `judgegraph serve --workers N` "
        "(`--max-concurrency` at the client count per worker, one store); each request is decided by the reference."
    )
    scale = float(rows[1][3]) / float(rows[0][3]) if len(rows) > 1 else 1.0
    outro = (
        f"2 workers against 1: {scale:.2f}x the requests/s. The latencies are queueing (Little's law: clients in "
        "flight / rate). The clients run in the benchmark's own process on the same cores as the server's "
        f"workers ({os.cpu_count()} here), so the server never has the machine to itself."
    )
    return intro + "\n\n" + table(header, rows) + "\n\n" + outro
