"""Replaying many runs across processes (replays are CPU-bound: throughput scales with processes)."""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from judgegraph.runtime._judge import Judge
from judgegraph.store import TrajectoryStore


def _replay_chunk(args: tuple[str, str, list[str], dict[str, Any]]) -> tuple[list[tuple[str, bool, str | None]], float]:
    """Worker: replay some runs of one judge (in its own process, with its own event loop)."""
    judge_name, store_path, ids, settings = args

    async def run() -> tuple[list[tuple[str, bool, str | None]], float]:
        store = TrajectoryStore(store_path)
        judge = Judge.load(judge_name, store=False, **settings)  # not opened: a replay needs no model
        try:
            out = []
            if ids:  # the first replay warms the graph's caches: not part of the steady rate
                await judge.areplay(store.get(ids[0]))
            start = time.perf_counter()
            for run_id in ids:
                report = await judge.areplay(store.get(run_id))
                out.append((run_id, report.identical, report.divergence))
            return out, time.perf_counter() - start
        finally:
            await judge.aclose()

    return asyncio.run(run())


def replay_many(
    store_path: str, judge: str, ids: list[str], processes: int = 2, **settings: Any
) -> tuple[list[tuple[str, bool, str | None]], float]:
    """Replay many runs of one judge across `processes` worker processes.

    Returns (run id, identical, divergence) for each run and the steady replay time (the slowest worker's, after
    its start-up). Replays are CPU-bound, so throughput scales with processes; each worker loads the judge once.
    """
    processes = max(1, min(processes, len(ids)))
    chunks = [ids[k::processes] for k in range(processes)]
    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        results = list(pool.map(_replay_chunk, [(judge, store_path, c, settings) for c in chunks]))
    return [r for chunk, _ in results for r in chunk], max(elapsed for _, elapsed in results)
