"""A TRL reward function backed by a judgegraph judge: `GRPOTrainer(reward_funcs=[JudgeReward("evidence")])`.

TRL calls reward functions with `prompts`, `completions` and every dataset column as keyword arguments; a column
named `reference`, `tests`, `documents`, `images`, `constraints` or `rubric` becomes the judge's evidence (or a
`ground_truth` column holding a reference or a JSON object of them). Each completion gets its pointwise score in
[0, 1], or None where the judge could not rule (TRL skips None). `AsyncJudgeReward` is awaited concurrently.
"""

from __future__ import annotations

import asyncio
from typing import Any

from judgegraph.adapters._common import EVIDENCE_FIELDS, evidence_from, pointwise_request, score_of
from judgegraph.runtime._judge import Judge


class AsyncJudgeReward:
    """`async (prompts, completions, **columns) -> list[float | None]`, judged `concurrency` at a time."""

    def __init__(self, judge: str = "evidence", *, concurrency: int = 8, **settings: Any) -> None:
        self.__name__ = f"judgegraph_{judge}"  # TRL logs reward functions by name
        self._judge = Judge.load(judge, **settings)
        self._sem = asyncio.Semaphore(concurrency)

    def _evidence(self, i: int, columns: dict[str, Any]) -> dict[str, Any]:
        evidence = evidence_from(columns["ground_truth"][i]) if "ground_truth" in columns else {}
        for name in EVIDENCE_FIELDS:
            if name in columns and columns[name][i] is not None:
                evidence[name] = columns[name][i]
        return evidence

    async def _one(self, i: int, prompt: Any, completion: Any, columns: dict[str, Any]) -> float | None:
        request = pointwise_request(f"trl-{i}", prompt, completion, self._evidence(i, columns))
        async with self._sem:
            return score_of(await self._judge.ajudge(request))

    async def __call__(self, prompts: list[Any], completions: list[Any], **columns: Any) -> list[float | None]:
        data = {k: v for k, v in columns.items() if isinstance(v, list) and len(v) == len(prompts)}
        return list(
            await asyncio.gather(
                *(self._one(i, p, c, data) for i, (p, c) in enumerate(zip(prompts, completions, strict=True)))
            )
        )

    async def aclose(self) -> None:
        await self._judge.aclose()


class JudgeReward(AsyncJudgeReward):
    """The synchronous form: `(prompts, completions, **columns) -> list[float | None]`."""

    def __call__(self, prompts: list[Any], completions: list[Any], **columns: Any) -> list[float | None]:  # type: ignore[override]
        return self._judge._sync(super().__call__(prompts, completions, **columns))

    def close(self) -> None:
        self._judge.close()
