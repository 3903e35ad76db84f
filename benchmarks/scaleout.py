"""Scale-out: the same batch through `judgegraph judge` in one process and spread over Ray actors.

Both paths are the batch runner the CLI uses (`judge_file`), writing the same output file and recording every
trajectory in the driver's one SQLite store; only the runner differs (a `Judge` here, or a `RayJudge` with K
actors on a local Ray instance). The model is the fake OpenAI server in its own process, 100 ms per call.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

from benchmarks._fake_model import fake_model_process
from benchmarks._util import table
from judgegraph.runtime._batch import JudgeRunner, judge_file
from judgegraph.serving import RayJudge
from judgegraph.settings import Settings

LATENCY_S = 0.1
CONCURRENCY = 256
JUDGMENTS = 2048
REQUEST = {"prompt": "Greet a friend.", "candidates": ["Hello there, friend!", "k"]}


async def _run(tmp: Path, tag: str, settings: Settings, runner: JudgeRunner | None) -> tuple[float, int]:
    src = tmp / f"{tag}.jsonl"
    src.write_text("".join(json.dumps({**REQUEST, "id": f"{tag}-{i}"}) + "\n" for i in range(JUDGMENTS)))
    start = time.perf_counter()
    result = await judge_file(
        src, tmp / f"{tag}.out.jsonl", "evidence", settings, concurrency=CONCURRENCY, runner=runner
    )
    return time.perf_counter() - start, result.failed


async def bench() -> str:
    import ray

    tmp = Path(tempfile.mkdtemp(prefix="judgegraph-bench-"))
    cores = os.cpu_count() or 1
    rows: list[list[object]] = []
    with fake_model_process(LATENCY_S) as url:
        settings = Settings(model_url=url, store_path=tmp / "runs.db")
        elapsed, failed = await _run(tmp, "single", settings, None)
        single = JUDGMENTS / elapsed
        rows.append(["one process", "-", failed, single, "1.00x"])
        ray.init(include_dashboard=False, log_to_driver=False)
        try:
            for actors in sorted({1, cores}):
                runner = RayJudge("evidence", settings, actors=actors, concurrency=CONCURRENCY)
                elapsed, failed = await _run(tmp, f"ray{actors}", settings, runner)
                rate = JUDGMENTS / elapsed
                rows.append([f"Ray, {actors} actor{'s' * (actors > 1)}", actors, failed, rate, f"{rate / single:.2f}x"])
        finally:
            ray.shutdown()
    intro = (
        f"{JUDGMENTS} judgments of an open-ended pair by the `evidence` judge (2 model calls each, "
        f"{LATENCY_S * 1000:.0f} ms per call), {CONCURRENCY} in flight, through `judge_file` (the batch runner of "
        f"`judgegraph judge`), store on. Ray: a local instance on this machine's {cores} cores; wall time "
        "includes starting the actors."
    )
    header = ["runner", "actors", "failed", "judgments/s", "vs one process"]
    outro = (
        "Ray's gain here is bounded by the machine: the driver (output file, store writes), the actors and the "
        f"fake model share {cores} cores (an actor reserves one CPU, so {cores} is the most this instance "
        "places). On a cluster each node adds its cores; what stays central is the driver's share per judgment "
        "(validating one trajectory and writing it to SQLite)."
    )
    return intro + "\n\n" + table(header, rows) + "\n\n" + outro
