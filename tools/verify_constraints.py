"""`verify_constraints`: check a candidate against the request's programmatic instruction-following constraints."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field

from judgegraph.errors import ToolFailure
from judgegraph.schema import CriterionResult, JudgeRequest, ToolCall, ToolResult
from judgegraph.schema.constraints import Check
from judgegraph.tools._base import ToolContext, ToolOutput, candidate_criterion, each_candidate, reads, tool


class VerifyConstraintsArgs(BaseModel):
    """Arguments of `verify_constraints`."""

    candidate: int = Field(ge=0, description="Index of the candidate (0-based) to check against the constraints.")


class ConstraintsResult(BaseModel):
    candidate: int
    checks: list[Check]
    passed: int
    total: int


def plan_verify_constraints(request: JudgeRequest) -> list[ToolCall]:
    """With constraints, check every candidate against them."""
    return each_candidate("verify_constraints", request, "the request has constraints") if request.constraints else []


@reads(ConstraintsResult)
def verify_constraints_criterion(result: ToolResult, data: ConstraintsResult) -> CriterionResult | None:
    """Following every constraint is deciding evidence; the score is the share followed."""
    score = data.passed / data.total if data.total else 0.0
    passed = data.passed == data.total
    return candidate_criterion(
        result, "follows_constraints", data.candidate, passed, score, result.text.splitlines()[0]
    )


@tool("verify_constraints", timeout_s=30.0, plan=plan_verify_constraints, criterion=verify_constraints_criterion)
async def verify_constraints(args: VerifyConstraintsArgs, ctx: ToolContext) -> ToolOutput:
    """Check one candidate against every instruction-following constraint of the request; say which fail and why."""
    request = ctx.request
    if not request.constraints:
        raise ToolFailure("this request has no constraints")
    text = ctx.candidate(args.candidate)
    checks = await asyncio.to_thread(lambda: [c.check(text) for c in request.constraints])
    passed = sum(c.passed for c in checks)
    lines = [f"candidate {args.candidate}: {passed}/{len(checks)} constraints followed"]
    lines += [f"  {'ok  ' if c.passed else 'FAIL'} {c.kind}: {c.why}" for c in checks]
    result = ConstraintsResult(candidate=args.candidate, checks=checks, passed=passed, total=len(checks))
    return ToolOutput(text="\n".join(lines), data=result)
