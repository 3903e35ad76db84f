"""`judgegraph judge --workers N`: judgments/s with 256 in flight against a fake model answering in 100 ms,
one process against N worker processes (the driver records every run in its one store).

One judgment = model -> tool -> model -> verdict (the agentic judge, one candidate order) against the aiohttp fake
server in its own process. 1,024 judgments after a warm-up. Run: `python -m benchmarks.run workers`.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._fast_fake import fast_fake_model
from benchmarks._util import table
from judgegraph.agents import judges
from judgegraph.runtime import Judge
from judgegraph.runtime._batch import JudgeRunner
from judgegraph.serving import ProcessJudge
from judgegraph.settings import Settings

REQUEST = {"prompt": "What is 6*7?", "candidates": ["It is 41.", "6*7 = 42"], "reference": "42", "label": {"winner": 1}}
N, IN_FLIGHT = 1024, 256


async def _rate(runner: JudgeRunner) -> float:
    limit = asyncio.Semaphore(IN_FLIGHT)

    async def one(i: int) -> None:
        async with limit:
            t = await runner.arun({**REQUEST, "id": f"w{i}"})
            assert t.verdict is not None and t.verdict.valid, t.verdict

    async with runner:
        await asyncio.gather(*(one(i) for i in range(64)))  # warm
        start = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(N)))
        return N / (time.perf_counter() - start)


async def bench() -> str:
    spec = judges.get("agentic").model_copy(update={"name": "agentic-one-order", "both_orders": False})
    tmp = Path(tempfile.mkdtemp(prefix="judgegraph-workers-"))
    rows: list[list[Any]] = []
    with fast_fake_model(0.1) as url:
        for workers in sorted({1, 2, os.cpu_count() or 1}):
            settings = Settings(model_url=url, store_path=tmp / f"w{workers}.db", max_retries=0)
            runner: JudgeRunner = (
                Judge.load(spec, settings=settings) if workers == 1 else ProcessJudge(spec, settings, workers=workers)
            )
            rows.append([workers, N, IN_FLIGHT, await _rate(runner)])
    base = float(rows[0][3])
    for row in rows:
        row.append(f"{float(row[3]) / base:.2f}x")
    ideal = IN_FLIGHT / 0.2
    note = f"Ideal at this latency: {ideal:.0f}/s (256 in flight / two 100 ms model calls). {os.cpu_count()} cores."
    return table(["processes", "judgments", "in flight", "judgments/s", "vs one process"], rows) + "\n\n" + note
