"""Commit-first deliberation: the model answers the task itself before it sees any response, and a response's
final answer is compared with that answer by rule, never by the model's reading of the response (a model that
reads first accepts confident wrong answers: false acceptance 71.9% against 1.2% commit-first, published)."""

from __future__ import annotations

from judgegraph.backends import Sampling
from judgegraph.graphs._verdict_format import RATIONALE_CHARS, ModelRuling
from judgegraph.schema import JudgeRequest
from judgegraph.tools.math.answers import committed_answer
from judgegraph.tools.math.choices import choice_options, same_answer
from judgegraph.tools.responses.silence import commits_to_nothing

OWN_ANSWER = Sampling(temperature=0.0, max_tokens=1024, seed=0)
"""Room to work the task out: the judge's own sampling (a short JSON verdict) would cut a solution off."""


def own_answer_of(text: str) -> str | None:
    """The model's own final answer in its reply to the `own_answer` prompt (None: it gave none, or said the task
    has no short answer)."""
    answer = committed_answer(text)
    return None if answer is None or answer.strip().strip(".").lower() in ("none", "n/a") else answer


def scored_against(request: JudgeRequest, i: int, own: str) -> float | None:
    """Response i's score against the model's own answer: 1.0 when its final answer says the same, 0.0 when it
    says otherwise or commits to nothing; None where it states no final answer (the model reads it instead)."""
    content = request.candidates[i].content
    if commits_to_nothing(content, request.prompt):
        return 0.0
    stated = committed_answer(content)
    if stated is None:
        return None
    return 1.0 if same_answer(stated, own, choice_options(request.prompt)) else 0.0


def ruling_against(request: JudgeRequest, own: str) -> ModelRuling | None:
    """The ruling on every response against the model's own answer; None unless each states a final answer."""
    scores = [scored_against(request, i, own) for i in range(len(request.candidates))]
    if any(s is None for s in scores):
        return None
    known = [s for s in scores if s is not None]
    said = ", ".join(f"{i}: {'matches' if s else 'differs'}" for i, s in enumerate(known))
    rationale = f"commit-first: my own answer, written before reading the responses, is {own!r} ({said})"
    if request.mode == "pairwise":
        winner = known.index(1.0) if known.count(1.0) == 1 else None
        return ModelRuling(winner=winner, rationale=rationale[:RATIONALE_CHARS])
    return ModelRuling(scores=known, rationale=rationale[:RATIONALE_CHARS])
