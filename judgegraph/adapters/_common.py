"""Turning a trainer's (prompt, completion, ground truth) into a pointwise JudgeRequest, and a verdict into a score."""

from __future__ import annotations

import json
from typing import Any

from judgegraph.errors import InvalidInputError
from judgegraph.schema._request import JudgeRequest
from judgegraph.schema._verdict import Verdict

EVIDENCE_FIELDS = ("reference", "tests", "documents", "images", "constraints", "rubric")


def text_of(value: Any) -> str:
    """Plain text from a string or a conversational value (a list of chat messages): the last message's content."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and isinstance(value[-1], dict):
        content = value[-1].get("content", "")
        return content if isinstance(content, str) else json.dumps(content)
    return str(value)


def evidence_from(ground_truth: Any) -> dict[str, Any]:
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


def pointwise_request(request_id: str, prompt: Any, completion: Any, evidence: dict[str, Any]) -> JudgeRequest:
    return JudgeRequest.model_validate(
        {
            "id": request_id,
            "mode": "pointwise",
            "prompt": text_of(prompt),
            "candidates": [text_of(completion)],
            **evidence,
        }
    )


def score_of(verdict: Verdict) -> float | None:
    """The completion's score in [0, 1]; None when the judge could not rule (never a made-up default)."""
    return verdict.scores[0] if verdict.valid and verdict.scores else None


def numeric_score(verdict: Verdict) -> float:
    """`score_of` for trainers that need a number for every sample: 0.0 when the judge could not rule (the
    caller reports `valid` beside it, so the 0.0 is never mistaken for a ruling)."""
    score = score_of(verdict)
    return 0.0 if score is None else score
