"""A verl reward function backed by a judgegraph judge.

verl's reward loop (the trainer's reward path in verl 0.9, the version `make trainers` installs) calls a custom
reward function once per rollout, the rollouts of a batch concurrently: in verl's config,
`reward.custom_reward_function.path=pkg://judgegraph.adapters.verl` and `.name=compute_score_async` (or
`compute_score`). The calls of one prompt's rollouts that arrive close together are judged as one group (one run,
one trajectory, each rollout its own score and checks); `.reward_kwargs` set the window (`group_window_s`, default
0.05 s: the reward loop's concurrent calls of a batch) and the group's size (`group_size`: verl's `rollout.n`, so a
complete group is judged without waiting). Where rewards stream as each rollout finishes (verl's agent reward
loop), a prompt's rollouts arrive seconds apart and over several reward workers: a longer window groups more of
them. With verl's legacy batch reward manager (`reward_model.reward_manager=batch`), `.name=compute_score_batch`:
lists in, grouped by prompt.

`ground_truth` is a reference answer or a JSON object of JudgeRequest evidence fields; `extra_info` may carry
`prompt` (the task) and `judge` (the judge's name). Settings come from `JUDGEGRAPH_*` environment variables (e.g.
`JUDGEGRAPH_MODEL_URL` pointing at a vLLM server).

verl gives a reward function no context object, so each worker process keeps one judge per name, created on first
use: the only place judgegraph holds one outside a caller's `with` block.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from judgegraph.adapters._coalesce import Coalescer
from judgegraph.adapters._common import (
    ABSTAINED,
    Undecided,
    evidence_from,
    evidence_key,
    group_request,
    groups,
    judge_members,
    member_reward,
)
from judgegraph.errors import UsageError
from judgegraph.runtime._judge import Judge
from judgegraph.schema._verdict import Verdict

_JUDGES: dict[str, Judge] = {}
_JUDGES_LOCK = threading.Lock()  # verl calls the sync form from several executor threads at once

GROUP_WINDOW_S = 0.05
"""How long a rollout's call waits for its siblings by default: verl's reward loop starts a batch's calls
together, and they reach the reward function within milliseconds of each other (each first decodes its tokens)."""


def _judge(name: str) -> Judge:
    with _JUDGES_LOCK:
        if name not in _JUDGES:
            _JUDGES[name] = Judge.load(name)
        return _JUDGES[name]


class VerlReward(TypedDict):
    """One rollout's reward as verl reads it: `score` is the reward, the rest travel in its reward extra info."""

    score: float
    valid: bool
    """Whether `score` is a ruling (false: the judgment failed, or no evidence decided and the reward abstained)."""
    abstained: bool
    """No evidence decided and the model is not trusted to (`Settings.undecided`): the mask to drop it by."""
    decided_by: str
    trajectory_id: str
    group_size: int
    error: str


@dataclass(frozen=True)
class _Rollout:
    """One rollout as verl passes it to a reward function."""

    data_source: str
    solution: str
    ground_truth: object
    info: Mapping[str, object]


async def _judge_group(rollouts: list[_Rollout], judge: Judge | None = None) -> list[VerlReward]:
    """One prompt's rollouts as one group judgment: one dict each, in order. Where the group's judgment fails,
    each rollout is judged alone (`judge_members`), and one whose own judgment fails scores 0.0 with `valid`
    false and the reason (verl needs a number; `valid` says it is none). `judge`: the one to use; None: this
    worker's judge of the name the rollout's extra info gives."""
    first = rollouts[0]
    request = group_request(
        f"verl-{first.data_source}-{first.info.get('index', 0)}",
        first.info.get("prompt", ""),
        [r.solution for r in rollouts],
        evidence_from(first.ground_truth),
    )
    k = len(rollouts)
    try:
        judge = judge or _judge(str(first.info.get("judge", "evidence")))
    except Exception as e:  # no judge to load: each rollout answered, saying why it has no ruling
        return [_reward(Verdict.invalid(str(e)), "", k, "model") for _ in range(k)]
    undecided = judge.settings.undecided_reward()
    return [
        _reward(verdict, trajectory_id, k, undecided)
        for verdict, trajectory_id in await judge_members(judge.arun, request)
    ]


def _reward(verdict: Verdict, trajectory_id: str, k: int, undecided: Undecided) -> VerlReward:
    """One rollout's reward from its own verdict (`Verdict.of_response`): verl needs a number, and `valid` says
    whether it is a ruling."""
    score, abstained = member_reward(verdict, undecided)
    return {
        "score": 0.0 if score is None else score,
        "valid": verdict.valid and score is not None,
        "abstained": abstained,
        "decided_by": verdict.decided_by or "",
        "trajectory_id": trajectory_id,
        "group_size": k,
        "error": ABSTAINED if abstained else verdict.error or "",
    }


_COALESCERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Coalescer[_Rollout, VerlReward]] = (
    weakref.WeakKeyDictionary()
)


def _coalescer() -> Coalescer[_Rollout, VerlReward]:
    """The running event loop's coalescer (verl runs its reward loop's calls on one loop per worker)."""
    loop = asyncio.get_running_loop()
    if loop not in _COALESCERS:
        _COALESCERS[loop] = Coalescer(_judge_group)
    return _COALESCERS[loop]


async def compute_score_async(
    data_source: str,
    solution_str: str,
    ground_truth: object,
    extra_info: Mapping[str, object] | None = None,
    *,
    group_window_s: float = GROUP_WINDOW_S,
    group_size: int | None = None,
    abstained_score: float | str = 0.0,
    **kwargs: object,
) -> VerlReward:
    """verl's `compute_score`, async: `{"score": float, "valid": bool, "abstained": bool, "decided_by": str,
    "trajectory_id": str, "group_size": int, "error": str}`. verl needs a number: a response no evidence decides,
    with an untrusted model (`Settings.undecided`), scores 0.0 with `valid` false and `abstained` true, which
    verl carries in its reward extra info as the mask to drop it by.

    Calls for the rollouts of one prompt (same data source, ground truth, prompt or dataset index, and judge) that
    arrive within `group_window_s` of the first are judged together as one group, sooner once `group_size` have
    arrived; each call gets its own rollout's reward (the one judging it alone gives). `group_window_s=0` judges
    each call alone. An invalid verdict scores 0.0 and says so in `valid`.

    `abstained_score`: what an abstained rollout scores (0.0; `nan` with the `judgegraph_grpo` advantage
    estimator, `verl_abstention.py`, which then leaves it out of its group's baseline and the loss)."""
    info = dict(extra_info or {})
    key = _group_key(str(data_source), ground_truth, info)  # bad evidence fails this call, before it waits
    rollout = _Rollout(str(data_source), solution_str, ground_truth, info)
    reward = await _coalescer().submit(key, rollout, window_s=group_window_s, size=group_size)
    return _scored(reward, abstained_score)


def _scored(reward: VerlReward, abstained_score: float | str) -> VerlReward:
    """`reward`, an abstention scoring `abstained_score` (verl's config gives `nan` as a string)."""
    return {**reward, "score": float(abstained_score)} if reward["abstained"] else reward


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: object,
    extra_info: Mapping[str, object] | None = None,
    **kwargs: Any,
) -> VerlReward:
    """verl's `compute_score`, sync (runs on the judge's own event loop thread when called from sync code)."""
    judge = _judge(str((extra_info or {}).get("judge", "evidence")))
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return judge._sync(compute_score_async(data_source, solution_str, ground_truth, extra_info, **kwargs))
    raise UsageError("inside an event loop, await compute_score_async instead")


def _group_key(data_source: str, ground_truth: object, extra_info: Mapping[str, object]) -> tuple[str, str, str, str]:
    """Rollouts of one prompt share a data source, a ground truth and the prompt (or, without one, the dataset
    row's `index`, which verl copies to each of a prompt's rollouts)."""
    prompt = str(extra_info.get("prompt", "")) or f"index:{extra_info.get('index', '')}"
    return (data_source, evidence_key(evidence_from(ground_truth)), prompt, str(extra_info.get("judge", "evidence")))


async def compute_score_batch_async(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[object],
    extra_infos: Sequence[Mapping[str, object] | None] | None = None,
    *,
    concurrency: int = 32,
    judge: Judge | None = None,
    abstained_score: float | str = 0.0,
    **kwargs: object,
) -> list[VerlReward]:
    """verl's batch reward function: lists in, one dict per rollout out (in order). The rollouts of each prompt are
    one group judgment (one run, one trajectory, each rollout its own score); groups are judged `concurrency` at a
    time. A group whose judgment fails gives each of its rollouts score 0.0 with `valid` false and the reason.
    `judge`: a judge the caller loaded (and closes), for every rollout; None: this worker's, by extra info's
    `judge` name, with settings from the environment. `abstained_score`: as `compute_score_async`'s."""
    n = len(solution_strs)
    infos = [dict(x or {}) for x in (extra_infos if extra_infos is not None else [None] * n)]
    if not len(data_sources) == len(ground_truths) == len(infos) == n:
        raise UsageError("data_sources, solution_strs, ground_truths and extra_infos must have the same length")
    rollouts = [_Rollout(str(data_sources[i]), solution_strs[i], ground_truths[i], infos[i]) for i in range(n)]
    out: dict[int, VerlReward] = {}
    sem = asyncio.Semaphore(concurrency)

    async def one(members: list[int]) -> None:
        async with sem:
            results = await _judge_group([rollouts[i] for i in members], judge)
        for i, result in zip(members, results, strict=True):
            out[i] = result

    keys = [_group_key(r.data_source, r.ground_truth, r.info) for r in rollouts]
    await asyncio.gather(*(one(members) for members in groups(keys)))
    return [_scored(out[i], abstained_score) for i in range(n)]  # every position is one group's member


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[object],
    extra_infos: Sequence[Mapping[str, object] | None] | None = None,
    **kwargs: Any,
) -> list[VerlReward]:
    """`compute_score_batch_async` for verl's (synchronous) batch reward manager."""
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    names = {str((x or {}).get("judge", "evidence")) for x in infos} or {"evidence"}
    judge = _judge(sorted(names)[0])
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return judge._sync(compute_score_batch_async(data_sources, solution_strs, ground_truths, infos, **kwargs))
    raise UsageError("inside an event loop, await compute_score_batch_async instead")
