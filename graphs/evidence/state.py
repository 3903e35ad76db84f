"""The judge graph's typed state: only what the judge has learned, so it serialises and replays."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from judgegraph.graphs._verdict_format import ModelRuling
from judgegraph.schema import JudgeRequest, ToolCall, ToolResult, Verdict


class JudgeState(TypedDict, total=False):
    """State of an evidence-first judge run."""

    request: JudgeRequest
    """The request, with its label removed: the judge never sees the answer key."""
    skill: str | None
    """The skill chosen for this request (skill judges only)."""
    planned: list[ToolCall]
    """Tool calls the deterministic evidence plan scheduled."""
    evidence: Annotated[list[ToolResult], operator.add]
    """Tool results, in the order they were planned (appended through the reducer)."""
    evidence_verdict: Verdict | None
    """The verdict the evidence alone supports, when it decides."""
    attempts: int
    """Model attempts at a verdict so far."""
    orders: list[str]
    """The candidate orders the model judges: `AB` alone, or `AB` and `BA` (pairwise, both orders)."""
    rulings: dict[str, ModelRuling]
    """Parsed rulings by order, in the request's candidate indices (a `BA` ruling is mapped back)."""
    problems: dict[str, str]
    """Why the last reply for an order was unusable (fed back on its retry)."""
    tournament_consistent: bool
    """Best-of-N: whether every pairwise comparison of the tournament agreed across orders."""
    own_answer: str | None
    """Commit-first: the model's own answer, written before it saw any response (None: it gave none)."""
    replies: dict[str, str]
    """The last raw reply for each order (shown back to the model on retry)."""
    verdict: Verdict
    """The final verdict."""
