"""Reward server: requests/s and latency under 500 concurrent clients, with 1, 2 and all cores' worker processes.

`judgegraph serve` runs as its own process, as deployed, with its default model (the embedded llama.cpp
server, started on the first request that needs a model); the clients are aiohttp in this one. Each client posts
OpenRLHF `/reward` requests (one response with a reference answer, so the evidence decides: the server's own
cost, no model wait) one after another for a fixed window. After the load: the memory of the server's
processes, and that none of them is a model server (no request needed one).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import NamedTuple

import httpx

from benchmarks._util import Stats, table
from judgegraph.backends import free_port

CLIENTS = 500
PER_CLIENT = 4
"""Requests per client in a fixed load (the reliability suite's)."""
LOAD_S = 8.0
"""The window of one sustained load: clients post until it ends; the requests done within it count."""
ROUNDS = 5
"""Loads per configuration, interleaved: on a shared 2-core machine one load's rate moves by a third."""
PROMPT = "<|im_start|>user\nWhat is 6*7?<|im_end|>\n<|im_start|>assistant\n"


@asynccontextmanager
async def serve_process(
    model_url: str | None, store: Path, *options: str
) -> AsyncIterator[tuple[str, asyncio.subprocess.Process]]:
    """`judgegraph serve` as its own process on a free port, as deployed (on `model_url`, or its default model):
    yields (base URL, process) once every worker it was asked for (`--workers N`) is up, and stops it after."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = ["-m", "judgegraph.cli", "serve", "--port", str(port), "--store", str(store)]
    cmd += ["--model", model_url] if model_url else []
    proc = await asyncio.create_subprocess_exec(
        sys.executable, *cmd, *options, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        workers = int(options[options.index("--workers") + 1]) if "--workers" in options else 1
        await _wait_ready(base, proc, workers)
        yield base, proc
    finally:
        if proc.returncode is None:
            proc.terminate()
        await asyncio.wait_for(proc.wait(), timeout=30)


def live_workers(metrics: str) -> int:
    """The live-worker gauge of a /metrics page (0 before any worker has published)."""
    gauge = re.search(r"^judgegraph_workers (\d+)$", metrics, re.MULTILINE)
    return int(gauge[1]) if gauge else 0


async def _wait_ready(base: str, proc: asyncio.subprocess.Process, workers: int) -> None:
    """Until /metrics counts at least `workers` live workers: the first worker answers while the others still open
    their judge, and a load (or a test) started then would only reach the first."""
    async with httpx.AsyncClient() as client:
        for _ in range(600):
            if proc.returncode is not None:
                raise RuntimeError("judgegraph serve exited during start")
            try:
                reply = await client.get(f"{base}/metrics")
                if reply.status_code == 200 and live_workers(reply.text) >= workers:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise RuntimeError(f"judgegraph serve did not start {workers} worker(s) in 60 s")


async def _load(
    base: str, clients: int = CLIENTS, per_client: int = PER_CLIENT, *, for_s: float | None = None
) -> tuple[list[tuple[int | str, float]], float]:
    """`clients` clients posting one after another, `per_client` requests each, or with `for_s` as many as they
    can in that many seconds: ((status, latency) of each request, seconds). Sustained (`for_s`), the seconds are
    the window and the requests those done within it; those still in flight at its end finish uncounted. So a
    worker that drew fewer of the keep-alive connections (they stay with the worker that accepted them) is
    measured while busy, not while it idles through the other's tail.

    aiohttp with bodies encoded once, so the load generator's share of the cores it shares with the server
    stays small (httpx's pool cost several times as much CPU a request at 500 connections)."""
    import aiohttp

    answers: list[tuple[int | str, float]] = []
    bodies = [
        json.dumps({"query": [PROMPT + answer], "prompts": [PROMPT], "labels": ["42"]}).encode()
        for answer in ("It is 41.", "The answer is 42.")
    ]
    headers = {"content-type": "application/json"}
    timeout = aiohttp.ClientTimeout(total=120)
    start = time.perf_counter()
    end = start + for_s if for_s is not None else float("inf")
    async with aiohttp.ClientSession(base, connector=aiohttp.TCPConnector(limit=clients), timeout=timeout) as session:

        async def one_client(c: int) -> None:
            k = 0
            while (k < per_client) if for_s is None else (time.perf_counter() < end):
                sent = time.perf_counter()
                try:
                    async with session.post("/reward", data=bodies[(c + k) % 2], headers=headers) as response:
                        await response.read()
                        status: int | str = response.status
                except (aiohttp.ClientError, TimeoutError) as e:  # counted, not fatal: the report says how many
                    status = type(e).__name__
                done = time.perf_counter()
                if done <= end:
                    answers.append((status, done - sent))
                k += 1

        await asyncio.gather(*(one_client(c) for c in range(clients)))
    return answers, for_s if for_s is not None else time.perf_counter() - start


def status_counts(answers: list[tuple[int | str, float]]) -> str:
    counts = Counter(status for status, _ in answers)
    return ", ".join(f"{code}: {n}" for code, n in sorted(counts.items(), key=lambda kv: str(kv[0])))


async def _load_warmup(base: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        body = {"query": [PROMPT + "42"], "prompts": [PROMPT], "labels": ["42"]}
        for _ in range(5):
            (await client.post("/reward", json=body)).raise_for_status()


def _memory(pid: int) -> tuple[float, int]:
    """RSS in MiB of a process and its descendants, and how many of them serve a model (llama.cpp or vLLM)."""
    import psutil

    root = psutil.Process(pid)
    rss, models = 0.0, 0
    for proc in [root, *root.children(recursive=True)]:
        try:
            rss += proc.memory_info().rss / 2**20
            cmdline = " ".join(proc.cmdline())
        except psutil.NoSuchProcess:
            continue
        models += "llama_cpp.server" in cmdline or "vllm" in cmdline
    return rss, models


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


class Round(NamedTuple):
    rate: float
    """Requests/s."""
    server_ms: float
    """Server CPU a request (all its processes)."""
    client_ms: float
    row: list[object]


async def _round(workers: int) -> Round:
    """One load against a fresh server with `workers` worker processes."""
    store = Path(tempfile.mkdtemp(prefix="judgegraph-bench-")) / "runs.db"
    options = ["--max-concurrency", str(CLIENTS), "--workers", str(workers)]
    async with serve_process(None, store, *options) as (base, proc):
        await _load_warmup(base)
        server_cpu, client_cpu = _cpu_s(proc.pid), time.process_time()
        load = asyncio.ensure_future(_load(base, for_s=LOAD_S))
        await asyncio.sleep(LOAD_S)  # the CPU of the window the requests are counted in
        server_cpu, client_cpu = _cpu_s(proc.pid) - server_cpu, time.process_time() - client_cpu
        answers, elapsed = await load
        rss, models = _memory(proc.pid)
    s = Stats.of([latency for _, latency in answers])
    n = len(answers)
    codes = status_counts(answers)
    per = [1000 * server_cpu / n, 1000 * client_cpu / n]
    row = [workers, CLIENTS, n, n / elapsed, s.p50_ms, s.p95_ms, s.p99_ms, *per, codes, rss, models]
    return Round(n / elapsed, per[0], per[1], row)


async def bench() -> str:
    configs = sorted({1, 2, os.cpu_count() or 1})
    rounds: dict[int, list[Round]] = {w: [] for w in configs}
    for _ in range(ROUNDS):  # interleaved, so a slow spell of the machine falls on every configuration
        for workers in configs:
            rounds[workers].append(await _round(workers))
    medians = [sorted(rounds[w], key=lambda r: r.rate)[ROUNDS // 2] for w in configs]
    rows = [[*m.row, " / ".join(f"{r.rate:.0f}" for r in rounds[w])] for w, m in zip(configs, medians, strict=True)]
    header = ["workers", "clients", "requests", "requests/s", "p50 ms", "p95 ms", "p99 ms"]
    header += ["server CPU ms / request", "clients' CPU ms / request", "status codes", "server RSS MiB"]
    header += ["model processes", "requests/s in each round"]
    intro = (
        f"{CLIENTS} concurrent clients posting `/reward` requests one after another for {LOAD_S:g} s against"
        " `judgegraph serve --workers N` (`--max-concurrency` at the client count per worker, one store), in"
        f" {ROUNDS} interleaved rounds (each row: the round with the median rate; the last column: every round's);"
        " each request is decided by the reference. Requests, rate and latencies count the requests done within"
        " the window (a sustained load: a worker that drew fewer of the keep-alive connections is measured busy,"
        " not idling through the other's tail), CPU is that of the window. Server CPU is that of the server's"
        " process and its workers; the clients' CPU that of this process. The"
        " server runs with its default model, the embedded llama.cpp server, which starts on the first request that"
        " needs a model: none here, so it never starts (model processes: those serving a model among the server's"
        " processes after the load; RSS: all of them together)."
    )
    scale = medians[1].rate / medians[0].rate if len(medians) > 1 else 1.0
    outro = f"2 workers against 1: {scale:.2f}x the requests/s (medians)."
    if len(medians) > 1:
        one, two = medians[0], medians[1]
        cores = os.cpu_count() or 1
        ceiling = cores * 1000 / (two.server_ms + two.client_ms)
        outro += (
            f" One worker keeps about a core busy ({one.rate * one.server_ms / 1000:.2f} cores of server CPU at its"
            f" rate) and spends {one.server_ms:.1f} ms of CPU a request holding all {CLIENTS} clients' requests;"
            f" 2 workers, about half each, {two.server_ms:.1f} ms (a process with fewer requests in flight does"
            f" less work for each, so the scaling can pass 2x). With the clients on the same cores, 2 workers can"
            f" serve at most {cores} cores / ({two.server_ms:.1f} ms server + {two.client_ms:.1f} ms clients' CPU a"
            f" request) = {ceiling:.0f} requests/s, on a machine that gives two busy processes two whole cores (a"
            " shared VM gives less: its steal time moves every round)."
        )
    outro += (
        " The latencies are queueing (Little's law: clients in flight / rate). The clients are aiohttp with bodies"
        " encoded once, so they take a small share of the CPU (the column beside the server's); httpx clients, used"
        " here until 2026-12-02, took most of a core at 500 connections."
    )
    return intro + "\n\n" + table(header, rows) + "\n\n" + outro
