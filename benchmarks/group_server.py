"""A verl-sized batch through the reward server (issue #23): 1024 real MATH rollouts (128 prompts x 8: Qwen2.5-
Math's 100 problems, 28 of them again) posted as 8 concurrent requests of 16 prompts' rollouts each, as a trainer
sends its micro-batches; rule-decided (each against its reference), one store, `--workers` 1 and 2.

Grouped: `/reward` (OpenRLHF's API), which judges each prompt's 8 rollouts as one group. Per rollout: the same
rollouts as pointwise requests to `/v1/judge/batch`, one judgment each (what every rollout cost before groups).
Each configuration on a fresh server, three rounds, the median's rate.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks._util import table
from benchmarks.real_data import DATA
from benchmarks.server import serve_process

PROMPTS, K, POSTS = 128, 8, 8
NO_MODEL = "http://127.0.0.1:9/v1"
ROUNDS = 3


def _batch(data: Path) -> list[tuple[str, str, str]]:
    """(prompt, rollout, reference) for the 1024 rollouts, prompt by prompt."""
    rows = [json.loads(line) for line in (data / "math" / "math_cot_100.jsonl").read_text().splitlines()]
    out = []
    for p in range(PROMPTS):
        row = rows[p % len(rows)]
        out += [(row["question"], text, str(row["answer"])) for text in row["response"][:K]]
    return out


def _grouped_posts(batch: list[tuple[str, str, str]]) -> list[tuple[str, Any]]:
    per = len(batch) // POSTS
    posts = []
    for start in range(0, len(batch), per):
        part = batch[start : start + per]
        body = {
            "query": [p + r for p, r, _ in part],
            "prompts": [p for p, _, _ in part],
            "labels": [g for *_, g in part],
        }
        posts.append(("/reward", body))
    return posts


def _single_posts(batch: list[tuple[str, str, str]]) -> list[tuple[str, Any]]:
    per = len(batch) // POSTS
    posts = []
    for start in range(0, len(batch), per):
        body = [
            {"id": f"r{start + i}", "mode": "pointwise", "prompt": p, "candidates": [r], "reference": g}
            for i, (p, r, g) in enumerate(batch[start : start + per])
        ]
        posts.append(("/v1/judge/batch", body))
    return posts


def _scores(path: str, reply: Any) -> list[float]:
    if path == "/reward":
        return [float(x) for x in reply["rewards"]]
    return [float(x["verdict"]["scores"][0]) if x["verdict"]["valid"] else -1.0 for x in reply]


async def _round(workers: int, posts: list[tuple[str, Any]]) -> tuple[float, list[float]]:
    options = ["--workers", str(workers), "--timeout", "600"]
    with tempfile.TemporaryDirectory() as tmp:
        async with (
            serve_process(NO_MODEL, Path(tmp) / "runs.db", *options) as (base, _),
            httpx.AsyncClient(base_url=base, timeout=600) as client,
        ):
            for path, body in posts[:workers]:  # warm each worker's imports and graph
                await client.post(path, json=body)
            start = time.perf_counter()
            replies = await asyncio.gather(*(client.post(path, json=body) for path, body in posts))
            elapsed = time.perf_counter() - start
    assert all(r.status_code == 200 for r in replies), [r.text[:300] for r in replies if r.status_code != 200]
    return elapsed, [s for (path, _), r in zip(posts, replies, strict=True) for s in _scores(path, r.json())]


async def bench(data: Path = DATA) -> str:
    batch = _batch(data)
    rows: list[list[object]] = []
    rates: dict[tuple[str, int], float] = {}
    answers: dict[str, list[float]] = {}
    for workers in (1, 2):
        for name, posts in (
            ("per rollout (/v1/judge/batch)", _single_posts(batch)),
            ("grouped (/reward)", _grouped_posts(batch)),
        ):
            times = []
            for _ in range(ROUNDS):
                elapsed, scores = await _round(workers, posts)
                times.append(elapsed)
                answers[name] = scores
            median = statistics.median(times)
            rates[(name, workers)] = len(batch) / median
            rows.append(
                [
                    name,
                    workers,
                    len(batch),
                    f"{median:.2f}",
                    f"{len(batch) / median:.0f}",
                    " / ".join(f"{len(batch) / t:.0f}" for t in times),
                ]
            )
    same = sum(a == b for a, b in zip(*answers.values(), strict=True))
    gain = rates[("grouped (/reward)", 2)] / rates[("per rollout (/v1/judge/batch)", 2)]
    return (
        f"{len(batch)} rollouts ({PROMPTS} prompts x {K}), {POSTS} concurrent posts of {len(batch) // POSTS}; the wall"
        f" time of the whole batch on a warm server.\n\n"
        + table(["posted as", "workers", "rollouts", "s (median)", "rollouts/s", "rollouts/s in each round"], rows)
        + f"\n\nOn 2 workers, grouped against per rollout: {gain:.2f}x the rollouts/s. The two ways give the same"
        f" reward to {same}/{len(batch)} rollouts. Target (issue #23): a verl-sized batch through the server on 2"
        " workers at 2x or more the per-rollout rate."
    )
