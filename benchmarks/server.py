"""Reward server: requests/s and latency with 500 concurrent clients, with 1, 2 and all cores' worker processes.

`judgegraph serve` runs as its own process, as deployed, on a fake model in a third process; the clients are
httpx in this one. Each client posts OpenRLHF `/reward` requests (one response with a reference answer, so
the evidence decides: the server's own cost, no model wait) one after another.
"""

from __future__ import annotations

import asyncio
import json
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
    """`clients` clients posting one after another; aiohttp with bodies encoded once, so the load generator's
    share of the cores it shares with the server stays small (httpx's pool cost several times as much CPU a
    request at 500 connections)."""
    import aiohttp

    latencies: list[float] = []
    statuses: dict[int | str, int] = {}
    bodies = [
        json.dumps({"query": [PROMPT + answer], "prompts": [PROMPT], "labels": ["42"]}).encode()
        for answer in ("It is 41.", "The answer is 42.")
    ]
    headers = {"content-type": "application/json"}
    timeout = aiohttp.ClientTimeout(total=120)
    async with aiohttp.ClientSession(base, connector=aiohttp.TCPConnector(limit=clients), timeout=timeout) as session:

        async def one_client(c: int) -> None:
            for k in range(per_client):
                start = time.perf_counter()
                try:
                    async with session.post("/reward", data=bodies[(c + k) % 2], headers=headers) as response:
                        await response.read()
                        status: int | str = response.status
                except (aiohttp.ClientError, TimeoutError) as e:  # counted, not fatal: the report says how many
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


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of a process and all its descendants (the server's worker processes)."""
    import psutil

    root = psutil.Process(pid)
    total = 0.0
    for proc in [root, *root.children(recursive=True)]:
        try:
            t = proc.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += t.user + t.system
    return total


async def bench() -> str:
    rows = []
    for workers in sorted({1, 2, os.cpu_count() or 1}):
        store = Path(tempfile.mkdtemp(prefix="judgegraph-bench-")) / "runs.db"
        options = ["--max-concurrency", str(CLIENTS), "--workers", str(workers)]
        with fake_model_process(latency_s=0.0) as url:
            async with serve_process(url, store, *options) as (base, proc):
                await _load_warmup(base)
                server_cpu, client_cpu = _cpu_s(proc.pid), time.process_time()
                latencies, statuses, elapsed = await _load(base)
                server_cpu, client_cpu = _cpu_s(proc.pid) - server_cpu, time.process_time() - client_cpu
        s = Stats.of(latencies)
        n = len(latencies)
        codes = ", ".join(f"{code}: {k}" for code, k in sorted(statuses.items(), key=lambda kv: str(kv[0])))
        per = [1000 * server_cpu / n, 1000 * client_cpu / n]
        rows.append([workers, CLIENTS, n, n / elapsed, s.p50_ms, s.p95_ms, s.p99_ms, *per, codes])
    header = ["workers", "clients", "requests", "requests/s", "p50 ms", "p95 ms", "p99 ms"]
    header += ["server CPU ms / request", "clients' CPU ms / request", "status codes"]
    intro = (
        f"{CLIENTS} concurrent clients, {PER_CLIENT} `/reward` requests each, against `judgegraph serve --workers N` "
        "(`--max-concurrency` at the client count per worker, one store); each request is decided by the reference."
        " Server CPU is that of the server's process and its workers; the clients' CPU that of this process."
    )
    scale = float(rows[1][3]) / float(rows[0][3]) if len(rows) > 1 else 1.0
    outro = (
        f"2 workers against 1: {scale:.2f}x the requests/s. The latencies are queueing (Little's law: clients in "
        "flight / rate). The clients run in the benchmark's own process on the same cores as the server's "
        f"workers ({os.cpu_count()} here): aiohttp with bodies encoded once, so they take a small share of the CPU"
        " (the column beside the server's); httpx clients, used here until 2026-12-02, took most of a core at 500"
        " connections, which is what held 2 workers to 1.28x."
    )
    return intro + "\n\n" + table(header, rows) + "\n\n" + outro
