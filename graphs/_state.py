"""The judge graph's typed state: only what the judge has learned, so it serialises and replays."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from judgegraph.graphs._verdict_format import ModelRuling
from judgegraph.types import JudgeRequest, ToolCall, ToolResult, Verdict


class JudgeState(TypedDict, total=False):
    """State of an evidence-first judge run."""

    request: JudgeRequest
    """The request, with its label removed: the judge never sees the answer key."""
    planned: list[ToolCall]
    """Tool calls the deterministic evidence plan scheduled."""
    evidence: Annotated[list[ToolResult], operator.add]
    """Tool results; parallel tool nodes append through the reducer."""
    evidence_verdict: Verdict | None
    """The verdict the evidence alone supports, when it decides."""
    attempts: int
    """Model attempts at a verdict so far."""
    problem: str | None
    """Why the last model reply was unusable (fed back on retry)."""
    ruling: ModelRuling | None
    """The model's parsed ruling, once it gave a usable one."""
    verdict: Verdict
    """The final verdict."""


class ToolTaskState(TypedDict):
    """The input of one fanned-out tool call (`Send`)."""

    request: JudgeRequest
    call: ToolCall
