"""Turning a trainer's (prompt, completion, ground truth) into a pointwise JudgeRequest, and a verdict into a score."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from typing import Literal

from judgegraph.errors import InvalidInputError
from judgegraph.schema._request import JudgeRequest
from judgegraph.schema._trajectory import Trajectory
from judgegraph.schema._verdict import Verdict

EVIDENCE_FIELDS = ("reference", "tests", "documents", "images", "constraints", "rubric")


def text_of(value: object) -> str:
    """Plain text from a string or a conversational value (a list of chat messages): the last message's content."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and isinstance(value[-1], dict):
        content = value[-1].get("content", "")
        return content if isinstance(content, str) else json.dumps(content)
    return str(value)


def evidence_from(ground_truth: object) -> dict[str, object]:
    """A ground truth is a reference answer, or a JSON object (or dict) of JudgeRequest evidence fields."""
    if ground_truth is None:
        return {}
    if isinstance(ground_truth, dict):
        data = ground_truth
    else:
        text = str(ground_truth)
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return {"reference": text}
        if not isinstance(data, dict):
            return {"reference": text}
    unknown = set(data) - set(EVIDENCE_FIELDS)
    if unknown:
        raise InvalidInputError(f"ground truth has fields {sorted(unknown)}; allowed: {', '.join(EVIDENCE_FIELDS)}")
    return dict(data)


def pointwise_request(
    request_id: str, prompt: object, completion: object, evidence: Mapping[str, object]
) -> JudgeRequest:
    return group_request(request_id, prompt, [completion], evidence)


def group_request(
    request_id: str, prompt: object, completions: Sequence[object], evidence: Mapping[str, object]
) -> JudgeRequest:
    """The k responses to one prompt as one pointwise request: judged in one run, each response its own score,
    what they share (the reference parsed, identical answers compared, tests built) done once."""
    return JudgeRequest.model_validate(
        {
            "id": request_id,
            "mode": "pointwise",
            "prompt": text_of(prompt),
            "candidates": [text_of(c) for c in completions],
            **evidence,
        }
    )


def groups(keys: Sequence[Hashable]) -> list[list[int]]:
    """Positions with equal keys, each group in first-seen order (a trainer's batch: the k rollouts of a prompt)."""
    found: dict[Hashable, list[int]] = {}
    for i, key in enumerate(keys):
        found.setdefault(key, []).append(i)
    return list(found.values())


def evidence_key(evidence: Mapping[str, object]) -> str:
    """Evidence as a hashable key (two rollouts share a group only if they share their evidence too)."""
    return json.dumps(evidence, sort_keys=True, default=str)


Undecided = Literal["abstain", "model", "zero"]
ABSTAINED = "abstained: no evidence decides this response and the judge's model is not trusted to (Settings.undecided)"


def decided_by_evidence(verdict: Verdict, i: int) -> bool:
    """Whether response i's score rests on evidence: the evidence decided the verdict, or a conclusive check on it
    failed (a failed test, a wrong answer, a response that commits to nothing)."""
    if verdict.decided_by == "evidence":
        return True
    return any(c.candidate == i and c.fails_by_evidence for c in verdict.criteria)


def group_scores(verdict: Verdict, k: int, undecided: Undecided = "model") -> list[float | None]:
    """Each of the k responses' score in [0, 1]; every one None when the group's judgment could not rule (never a
    made-up default). Where no evidence decides a response and the model's score is not to be used (`undecided`:
    `Settings.undecided_reward()`), `abstain` gives None (an abstention, `ABSTAINED`) and `zero` gives 0."""
    if not verdict.valid or not verdict.scores or len(verdict.scores) != k:
        return [None] * k
    if undecided == "model":
        return list(verdict.scores)
    unruled = None if undecided == "abstain" else 0.0
    return [s if decided_by_evidence(verdict, i) else unruled for i, s in enumerate(verdict.scores)]


def member_reward(verdict: Verdict, undecided: Undecided) -> tuple[float | None, bool]:
    """One response's reward from its own verdict (`judge_members`): the score a trainer gets (None: no ruling,
    or abstained), and whether it abstained (a ruling the `undecided` setting withholds)."""
    ruled, kept = group_scores(verdict, 1)[0], group_scores(verdict, 1, undecided)[0]
    return kept, kept is None and ruled is not None


def score_of(verdict: Verdict) -> float | None:
    """The completion's score in [0, 1]; None when the judge could not rule (never a made-up default)."""
    return group_scores(verdict, 1)[0]


def numeric_score(verdict: Verdict) -> float:
    """`score_of` for trainers that need a number for every sample: 0.0 when the judge could not rule (the
    caller reports `valid` beside it, so the 0.0 is never mistaken for a ruling)."""
    score = score_of(verdict)
    return 0.0 if score is None else score


Run = Callable[[JudgeRequest], Awaitable[Trajectory]]


async def judge_members(run: Run, request: JudgeRequest) -> list[tuple[Verdict, str]]:
    """Each response's verdict (`Verdict.of_response`) and the id of the trajectory that ruled it, from one group
    judgment by `run`; where that fails (it raises, or rules nothing), from judging each response alone. So one
    rollout's failure (a response that breaks a check, or the judge's own fault on it) is that rollout's and never
    its siblings': every trainer path scores a group through this."""
    k = len(request.candidates)
    try:
        trajectory = await run(request)
        verdict, trajectory_id = trajectory.verdict or Verdict.invalid("the run gave no verdict"), trajectory.id
    except Exception as e:  # the run's failure: recorded as the group's, then each response is tried alone
        verdict, trajectory_id = Verdict.invalid(f"{type(e).__name__}: {e}"), ""
    if verdict.valid or k == 1:
        return [(verdict.of_response(i), trajectory_id) for i in range(k)]
    alone = [
        request.model_copy(update={"id": f"{request.id}-{i}", "candidates": [candidate]})
        for i, candidate in enumerate(request.candidates)
    ]
    found = await asyncio.gather(*(judge_members(run, one) for one in alone))
    return [members[0] for members in found]
