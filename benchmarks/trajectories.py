"""Trajectories: recording overhead per judgment, store size per run, replay and export throughput.

The model is the scripted fake OpenAI server on 127.0.0.1 with no latency, so judge-side costs dominate.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path

from benchmarks._util import Stats, table
from benchmarks.fake_openai import FakeOpenAI, prefers
from judgegraph import Judge
from judgegraph.output._export import exporters
from judgegraph.runtime import replay_many
from judgegraph.schema import Trajectory
from judgegraph.store import TrajectoryStore

N = 200
REQUEST = {"id": "b", "prompt": "Greet a friend.", "candidates": ["Hello there, friend!", "k"], "label": {"winner": 0}}


async def _interleaved(url: str, store: Path, n: int) -> tuple[list[float], list[float], list[Trajectory]]:
    """Judgments with recording off and on, alternating (so drift on a busy machine hits both alike)."""
    off_times: list[float] = []
    on_times: list[float] = []
    runs: list[Trajectory] = []
    async with (
        Judge.load("evidence", store=False, model_url=url) as off,
        Judge.load("evidence", store=store, model_url=url) as on,
    ):
        for judge in (off, on):
            await judge.arun(REQUEST)  # warm up
        for i in range(n):
            for judge, times in ((off, off_times), (on, on_times)):
                start = time.perf_counter()
                t = await judge.arun({**REQUEST, "id": f"b{i}"})
                times.append(time.perf_counter() - start)
                if judge is on:
                    runs.append(t)
    return off_times, on_times, runs


async def bench(n: int = N) -> str:
    server = FakeOpenAI().start()
    server.responder = prefers("Hello")
    tmp = Path(tempfile.mkdtemp(prefix="judgegraph-bench-"))
    try:
        off_times, on_times, runs = await _interleaved(server.url, tmp / "runs.db", n)
        off, on = Stats.of(off_times), Stats.of(on_times)
        rows = [
            ["recording off (trajectory kept in memory only)", off.p50_ms, off.mean_ms, "-"],
            [
                "recording on (SQLite WAL store)",
                on.p50_ms,
                on.mean_ms,
                f"{100 * (on.p50_ms - off.p50_ms) / off.p50_ms:+.1f}%",
            ],
        ]
        store = TrajectoryStore(tmp / "runs.db")
        count = store.count()
        size = sum(os.path.getsize(p) for p in tmp.glob("runs.db*"))
        trajectories = [store.get(r.id) for r in store.list_runs(limit=count)]
        async with Judge.load("evidence", store=False, model_url=server.url) as judge:
            start = time.perf_counter()
            reports = [await judge.areplay(t) for t in trajectories]
            replay_s = time.perf_counter() - start
        assert all(r.identical for r in reports)
        ids = [t.id for t in trajectories] * 5  # 1000 replays: enough to measure a steady rate
        workers = os.cpu_count() or 2
        batch, batch_s = await asyncio.to_thread(replay_many, str(tmp / "runs.db"), "evidence", ids, workers)
        assert all(same for _, same, _ in batch)
        export_rows = []
        for fmt in ("sft", "verl", "rewards"):
            start = time.perf_counter()
            produced = list(exporters.get(fmt)(trajectories))
            export_rows.append([fmt, len(produced) / (time.perf_counter() - start)])
    finally:
        server.stop()
    model_turns = len(runs[0].model_turns())
    return "\n\n".join(
        [
            f"One judgment = a pairwise request the model rules on ({model_turns} model turns: both candidate orders), "
            f"{n} of each, recording off and on alternating, after warm-up, against the fake model with no latency:",
            table(["", "p50 ms / judgment", "mean ms", "overhead (p50; target <= 10%)"], rows),
            f"Store: {size / count / 1024:.1f} KiB per run ({count} runs, {size / 2**20:.2f} MiB with WAL), "
            "events stored once per run, no per-step state copies.",
            f"Replay (recorded model turns and tool results, no model, no tools): {len(reports) / replay_s:.0f} runs/s "
            f"({1000 * replay_s / len(reports):.2f} ms per run) in one process; `replay_many` over "
            f"{workers} processes: {len(batch) / batch_s:.0f} runs/s ({len(batch)} replays, after each worker's "
            "start-up); all identical (target >= 500 runs/s).",
            table(["export format", "rows/s (in memory, before writing)"], export_rows),
        ]
    )


if __name__ == "__main__":
    print(asyncio.run(bench()))
