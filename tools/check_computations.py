"""`check_computations`: math without a reference, checked from inside. Every computation a response writes out
(`18 - 6 = 12`, `\\frac{3}{4} \\times 80 = 60`) is recomputed with exact arithmetic, no model and no reference
needed. A wrong one is deciding evidence against the response (a solution whose own arithmetic is false has not
shown its answer); none wrong supports it and proves nothing (most wrong solutions go wrong in their reasoning,
not their arithmetic).

Measured on ProcessBench and MATH solutions (`python -m benchmarks.real_data --only computations`, EVALS.md): a
false computation is found in 7-13% of solutions whose final answer is wrong and in 0-1.2% of those whose final
answer is right (most of those are real slips: `1 \\div 50 = 50`).
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field

from judgegraph.schema import CriterionResult, JudgeRequest, ToolCall, ToolResult
from judgegraph.tools._base import ToolContext, ToolOutput, candidate_criterion, each_candidate, reads, tool
from judgegraph.tools.math.computations import Computation, Finding, computations
from judgegraph.tools.math.unsettled import math_to_settle

SHOWN = 12
"""Computations listed in the text the model reads (the wrong ones first); the result keeps them all."""


class CheckComputationsArgs(BaseModel):
    """Arguments of `check_computations`."""

    candidate: int = Field(ge=0, description="Index of the candidate (0-based) whose computations to check.")


class CheckedComputation(BaseModel):
    """One computation as the response wrote it and what exact arithmetic finds."""

    written: str
    value: str
    """The left side's exact value."""
    finding: Finding


class CheckComputationsResult(BaseModel):
    """What `check_computations` found in one candidate."""

    candidate: int
    computations: list[CheckedComputation]
    wrong: int
    """How many are false."""


def plan_check_computations(request: JudgeRequest) -> list[ToolCall]:
    """Math to settle (no reference, the final answers differ, or one response): check each one's arithmetic."""
    if not math_to_settle(request):
        return []
    return each_candidate("check_computations", request, "no reference was given: check the worked arithmetic")


@reads(CheckComputationsResult)
def check_computations_criterion(result: ToolResult, data: CheckComputationsResult) -> CriterionResult | None:
    """A false computation decides against the candidate; none false supports it, never proves it."""
    passed = data.wrong == 0
    criterion = candidate_criterion(result, "computations_hold", data.candidate, passed, float(passed))
    return criterion.model_copy(update={"conclusive": False}) if passed else criterion


def _summary(candidate: int, found: list[Computation]) -> str:
    wrong = [c for c in found if c.finding == "wrong"]
    if not found:
        return f"candidate {candidate}: no computation written out that can be checked on its own"
    head = f"candidate {candidate}: {len(found)} computations checked with exact arithmetic, {len(wrong)} wrong"
    shown = sorted(found, key=lambda c: c.finding != "wrong")[:SHOWN]
    lines = [
        f"- {c.written}: " + (f"WRONG, the left side is {c.value}" if c.finding == "wrong" else c.finding)
        for c in shown
    ]
    more = len(found) - len(shown)
    return "\n".join([head, *lines] + ([f"... and {more} more"] if more > 0 else []))


@tool("check_computations", timeout_s=10.0, plan=plan_check_computations, criterion=check_computations_criterion)
async def check_computations(args: CheckComputationsArgs, ctx: ToolContext) -> ToolOutput:
    """Recompute, with exact arithmetic, every computation one candidate writes out (like `18 - 6 = 12` or
    `3/4 * 80 = 60`) and list the ones that are false. Needs no reference: use it on math answers."""
    text = ctx.candidate(args.candidate)
    found = await asyncio.to_thread(computations, text)
    result = CheckComputationsResult(
        candidate=args.candidate,
        computations=[CheckedComputation(written=c.written, value=c.value, finding=c.finding) for c in found],
        wrong=sum(c.finding == "wrong" for c in found),
    )
    return ToolOutput(text=_summary(args.candidate, found), data=result)
