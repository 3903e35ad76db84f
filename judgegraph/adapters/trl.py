"""A TRL reward function backed by a judgegraph judge: `GRPOTrainer(reward_funcs=[JudgeReward("evidence")])`.

TRL calls reward functions with `prompts`, `completions` and every dataset column as keyword arguments; a column
named `reference`, `tests`, `documents`, `images`, `constraints` or `rubric` becomes the judge's evidence (or a
`ground_truth` column holding a reference or a JSON object of them). Each completion gets its pointwise score in
[0, 1], or None where the judge could not rule or abstains (TRL skips None): where no evidence decides a
completion and the judge's model is not trusted (the embedded model, by default; `Settings.undecided`). The
completions of one prompt are judged as one group (one run for GRPO's `num_generations`); `AsyncJudgeReward`
judges the groups concurrently.
"""

from __future__ import annotations

import asyncio
from typing import Any

from judgegraph.adapters._common import (
    EVIDENCE_FIELDS,
    evidence_from,
    evidence_key,
    group_request,
    groups,
    judge_members,
    member_reward,
    text_of,
)
from judgegraph.runtime._judge import Judge


class AsyncJudgeReward:
    """`async (prompts, completions, **columns) -> list[float | None]`, judged `concurrency` at a time.

    `judge`: a registered judge's name (loaded with `settings`, closed by `aclose`), or a judge the caller loaded
    and closes."""

    def __init__(self, judge: str | Judge = "evidence", *, concurrency: int = 8, **settings: Any) -> None:
        if isinstance(judge, Judge) and settings:
            raise TypeError("settings go to Judge.load; a loaded judge already has its own")
        self._owned = not isinstance(judge, Judge)
        self._judge = Judge.load(judge, **settings) if isinstance(judge, str) else judge
        self.__name__ = f"judgegraph_{self._judge.spec.name}"  # TRL logs reward functions by name
        self._sem = asyncio.Semaphore(concurrency)

    def _evidence(self, i: int, columns: dict[str, Any]) -> dict[str, Any]:
        evidence = evidence_from(columns["ground_truth"][i]) if "ground_truth" in columns else {}
        for name in EVIDENCE_FIELDS:
            if name in columns and columns[name][i] is not None:
                evidence[name] = columns[name][i]
        return evidence

    async def _group(
        self, members: list[int], prompts: list[Any], completions: list[Any], evidence: dict[str, Any]
    ) -> list[float | None]:
        request = group_request(f"trl-{members[0]}", prompts[members[0]], [completions[i] for i in members], evidence)
        undecided = self._judge.settings.undecided_reward()
        async with self._sem:  # a rollout whose judgment fails is None (TRL skips it), never its group's failure
            ruled = await judge_members(self._judge.arun, request)
        return [member_reward(verdict, undecided)[0] for verdict, _ in ruled]

    async def __call__(self, prompts: list[Any], completions: list[Any], **columns: Any) -> list[float | None]:
        """The completions of one prompt (TRL's `num_generations` of it, with the same evidence) are one group
        judgment: one run, each completion its own score."""
        data = {k: v for k, v in columns.items() if isinstance(v, list) and len(v) == len(prompts)}
        evidence = [self._evidence(i, data) for i in range(len(prompts))]
        keys = [(text_of(p), evidence_key(e)) for p, e in zip(prompts, evidence, strict=True)]
        members = groups(keys)
        found = await asyncio.gather(*(self._group(m, prompts, completions, evidence[m[0]]) for m in members))
        scores: list[float | None] = [None] * len(prompts)
        for group, group_found in zip(members, found, strict=True):
            for i, score in zip(group, group_found, strict=True):
                scores[i] = score
        return scores

    async def aclose(self) -> None:
        if self._owned:
            await self._judge.aclose()


class JudgeReward(AsyncJudgeReward):
    """The synchronous form: `(prompts, completions, **columns) -> list[float | None]`."""

    def __call__(self, prompts: list[Any], completions: list[Any], **columns: Any) -> list[float | None]:  # type: ignore[override]
        return self._judge._sync(super().__call__(prompts, completions, **columns))

    def close(self) -> None:
        if self._owned:
            self._judge.close()
