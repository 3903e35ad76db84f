"""Model-judged groups and the server's prefix cache (issue #23): a group of 8 rollouts judged as one group
judgment (a call per rollout, sent together, the same prompt up to the rollout) against the same 8 judged as 8
independent judgments (sent together too), on vLLM's CPU build serving SmolLM2-135M-Instruct (`make vllm`).

Real MATH rollouts (Qwen2.5-Math's samples) judged with no reference by the `llm` judge (the model alone), so every
rollout is a model call. Prefix-cache figures are vLLM's own counters (`/metrics`: prompt tokens looked up and
found), read before and after each batch; completion tokens/s is over the batch's wall time. Problems alternate
between the two ways (each problem judged once, so nothing is cached from an earlier batch but the system prompt).
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks._util import table
from benchmarks.real_data import DATA
from judgegraph.adapters import group_request
from judgegraph.adapters._common import pointwise_request
from judgegraph.backends import VllmLaunch, VllmServer, model_file
from judgegraph.runtime import Judge
from judgegraph.training import to_hf

ROOT = Path(__file__).resolve().parent.parent
VLLM_VENV = ROOT / ".venv-vllm"
PROBLEMS, K = 8, 8


def _counters(metrics: str) -> tuple[float, float]:
    """(prompt tokens looked up in the prefix cache, found there), summed over vLLM's labelled series."""

    def total(name: str) -> float:
        pattern = rf"^vllm:{name}(?:_total)?(?:\{{[^}}]*\}})? ([0-9.e+]+)$"
        return sum(float(v) for v in re.findall(pattern, metrics, re.MULTILINE))

    return total("prefix_cache_queries"), total("prefix_cache_hits")


async def _batch(judge: Judge, metrics_url: str, row: dict[str, Any], grouped: bool) -> dict[str, float]:
    responses = row["response"][:K]
    async with httpx.AsyncClient() as http:
        queries0, hits0 = _counters((await http.get(metrics_url)).text)
        start = time.perf_counter()
        if grouped:
            runs = [await judge.arun(group_request("g", row["question"], responses, {}))]
        else:
            requests = [pointwise_request(f"s{i}", row["question"], r, {}) for i, r in enumerate(responses)]
            runs = list(await asyncio.gather(*(judge.arun(r) for r in requests)))
        wall = time.perf_counter() - start
        queries1, hits1 = _counters((await http.get(metrics_url)).text)
    turns = [turn for t in runs for turn in t.model_turns()]
    return {
        "queries": queries1 - queries0,
        "hits": hits1 - hits0,
        "prompt": sum(t.usage.prompt_tokens for t in turns),
        "completion": sum(t.usage.completion_tokens for t in turns),
        "calls": len(turns),
        "wall": wall,
        "valid": sum(bool(t.verdict and t.verdict.valid) for t in runs),
        "runs": len(runs),
    }


async def bench() -> str:
    rows = [json.loads(line) for line in (DATA / "math" / "math_cot_100.jsonl").read_text().splitlines()][:PROBLEMS]
    await asyncio.to_thread(subprocess.run, ["bash", str(ROOT / "scripts" / "vllm-env.sh"), str(VLLM_VENV)], check=True)
    folder = await asyncio.to_thread(to_hf, model_file(None))
    launch = VllmLaunch(model=str(folder), cpu=True, python=str(VLLM_VENV / "bin" / "python"), max_model_len=8192)
    results: dict[str, list[dict[str, float]]] = {"group judgment": [], "independent judgments": []}
    async with VllmServer(launch) as server:
        metrics_url = server.base_url.removesuffix("/v1") + "/metrics"
        async with Judge.load("llm", store=False, model_url=server.base_url) as judge:
            for i, row in enumerate(rows):
                grouped = i % 2 == 0
                results["group judgment" if grouped else "independent judgments"].append(
                    await _batch(judge, metrics_url, row, grouped)
                )
    table_rows = []
    for way, batches in results.items():
        queries = sum(b["queries"] for b in batches)
        hits = sum(b["hits"] for b in batches)
        wall = sum(b["wall"] for b in batches)
        table_rows.append(
            [
                way,
                f"{len(batches)} x {K}",
                int(sum(b["calls"] for b in batches)),
                int(sum(b["prompt"] for b in batches)),
                f"{100 * hits / queries:.1f}%" if queries else "no counter",
                f"{sum(b['completion'] for b in batches) / wall:.1f}",
                f"{wall / len(batches):.1f}",
            ]
        )
    head = [
        "judged as",
        "rollouts",
        "model calls",
        "prompt tokens",
        "prefix-cache hits",
        "completion tok/s",
        "s a group",
    ]
    return (
        f"{PROBLEMS} MATH problems, {K} real rollouts each, judged without a reference by the `llm` judge on vLLM's"
        " CPU build (SmolLM2-135M-Instruct, bfloat16); problems alternate between the two ways.\n\n"
        + table(head, table_rows)
        + "\n\nPrefix-cache hits: the share of the batch's prompt tokens vLLM found cached (its `prefix_cache_hits`"
        " over `prefix_cache_queries`). Target (issue #23): 70% or more for a group of 8."
    )


if __name__ == "__main__":
    print(asyncio.run(bench()))
