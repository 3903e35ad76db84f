"""A verl reward function backed by a judgegraph judge.

In verl's config: `reward.custom_reward_function.path=<this file>` and `.name=compute_score` (or
`compute_score_async`); with verl's batch reward manager (`reward_model.reward_manager=batch`),
`.name=compute_score_batch`: the rollouts of one prompt are judged together, as one group. `ground_truth` is a
reference answer or a JSON object of JudgeRequest evidence fields; `extra_info` may carry `prompt` (the task) and
`judge` (the judge's name). Settings come from `JUDGEGRAPH_*` environment variables (e.g. `JUDGEGRAPH_MODEL_URL`
pointing at a vLLM server).

verl gives a reward function no context object, so each worker process keeps one judge per name, created on first
use: the only place judgegraph holds one outside a caller's `with` block.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from judgegraph.adapters._common import (
    evidence_from,
    evidence_key,
    group_request,
    group_scores,
    groups,
    numeric_score,
    pointwise_request,
)
from judgegraph.errors import UsageError
from judgegraph.runtime._judge import Judge

_JUDGES: dict[str, Judge] = {}


def _judge(name: str) -> Judge:
    if name not in _JUDGES:
        _JUDGES[name] = Judge.load(name)
    return _JUDGES[name]


async def compute_score_async(
    data_source: str, solution_str: str, ground_truth: Any, extra_info: dict[str, Any] | None = None, **kwargs: Any
) -> dict[str, Any]:
    """verl's `compute_score`, async: `{"score": float, "valid": bool, "decided_by": str, ...}`.

    An invalid verdict scores 0.0 and says so in `valid` (verl needs a number; the reason is logged)."""
    info = extra_info or {}
    request = pointwise_request(
        f"verl-{data_source}-{info.get('index', 0)}", info.get("prompt", ""), solution_str, evidence_from(ground_truth)
    )
    trajectory = await _judge(str(info.get("judge", "evidence"))).arun(request)
    verdict = trajectory.verdict
    assert verdict is not None
    return {
        "score": numeric_score(verdict),
        "valid": verdict.valid,
        "decided_by": verdict.decided_by,
        "trajectory_id": trajectory.id,
        "error": verdict.error or "",
    }


def compute_score(
    data_source: str, solution_str: str, ground_truth: Any, extra_info: dict[str, Any] | None = None, **kwargs: Any
) -> dict[str, Any]:
    """verl's `compute_score`, sync (runs on the judge's own event loop thread when called from sync code)."""
    judge = _judge(str((extra_info or {}).get("judge", "evidence")))
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return judge._sync(compute_score_async(data_source, solution_str, ground_truth, extra_info, **kwargs))
    raise UsageError("inside an event loop, await compute_score_async instead")


def _group_key(data_source: str, ground_truth: Any, extra_info: dict[str, Any]) -> tuple[str, str, str, str]:
    """Rollouts of one prompt share a data source, a ground truth and the prompt (or, without one, the dataset
    row's `index`, which verl copies to each of a prompt's rollouts)."""
    prompt = str(extra_info.get("prompt", "")) or f"index:{extra_info.get('index', '')}"
    return (data_source, evidence_key(evidence_from(ground_truth)), prompt, str(extra_info.get("judge", "evidence")))


async def compute_score_batch_async(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[dict[str, Any] | None] | None = None,
    *,
    concurrency: int = 32,
    **kwargs: Any,
) -> list[dict[str, Any]]:
    """verl's batch reward function: lists in, one dict per rollout out (in order). The rollouts of each prompt are
    one group judgment (one run, one trajectory, each rollout its own score); groups are judged `concurrency` at a
    time. A group whose judgment fails gives each of its rollouts score 0.0 with `valid` false and the reason."""
    n = len(solution_strs)
    infos = [dict(x or {}) for x in (extra_infos if extra_infos is not None else [None] * n)]
    if not len(data_sources) == len(ground_truths) == len(infos) == n:
        raise UsageError("data_sources, solution_strs, ground_truths and extra_infos must have the same length")
    out: list[dict[str, Any]] = [{} for _ in range(n)]
    sem = asyncio.Semaphore(concurrency)

    async def one(members: list[int]) -> None:
        first = members[0]
        info = infos[first]
        request = group_request(
            f"verl-{data_sources[first]}-{info.get('index', first)}",
            info.get("prompt", ""),
            [solution_strs[i] for i in members],
            evidence_from(ground_truths[first]),
        )
        async with sem:
            try:
                trajectory = await _judge(str(info.get("judge", "evidence"))).arun(request)
                verdict, trajectory_id = trajectory.verdict, trajectory.id
                assert verdict is not None
                scores, valid, error = group_scores(verdict, len(members)), verdict.valid, verdict.error or ""
                decided_by = verdict.decided_by or ""
            except Exception as e:  # the group's rollouts are answered, each saying why it has no ruling
                scores, valid, error, decided_by, trajectory_id = [None] * len(members), False, str(e), "", ""
        for i, score in zip(members, scores, strict=True):
            out[i] = {
                "score": 0.0 if score is None else score,
                "valid": valid and score is not None,
                "decided_by": decided_by,
                "trajectory_id": trajectory_id,
                "group_size": len(members),
                "error": error,
            }

    keys = [_group_key(str(data_sources[i]), ground_truths[i], infos[i]) for i in range(n)]
    await asyncio.gather(*(one(members) for members in groups(keys)))
    return out


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[dict[str, Any] | None] | None = None,
    **kwargs: Any,
) -> list[dict[str, Any]]:
    """`compute_score_batch_async` for verl's (synchronous) batch reward manager."""
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    names = {str((x or {}).get("judge", "evidence")) for x in infos} or {"evidence"}
    judge = _judge(sorted(names)[0])
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return judge._sync(compute_score_batch_async(data_sources, solution_strs, ground_truths, infos, **kwargs))
    raise UsageError("inside an event loop, await compute_score_batch_async instead")
