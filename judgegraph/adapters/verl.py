"""A verl reward function backed by a judgegraph judge.

In verl's config: `reward.custom_reward_function.path=<this file>` and `.name=compute_score` (or
`compute_score_async`). `ground_truth` is a reference answer or a JSON object of JudgeRequest evidence fields;
`extra_info` may carry `prompt` (the task) and `judge` (the judge's name). Settings come from `JUDGEGRAPH_*`
environment variables (e.g. `JUDGEGRAPH_MODEL_URL` pointing at a vLLM server).

verl gives a reward function no context object, so each worker process keeps one judge per name, created on first
use: the only place judgegraph holds one outside a caller's `with` block.
"""

from __future__ import annotations

import asyncio
from typing import Any

from judgegraph.adapters._common import evidence_from, numeric_score, pointwise_request
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
