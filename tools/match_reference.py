"""`match_reference`: does a candidate's final answer equal the reference answer? The reference is the user's, or,
where none is given and the prompt asks for one closed arithmetic computation (`What is 6 * 7?`), its exact value
(`math.asked`): computed from the prompt, never from a response, and compared the same way."""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import BaseModel, Field

from judgegraph.errors import ToolFailure
from judgegraph.schema import CriterionResult, JudgeRequest, ToolCall, ToolResult
from judgegraph.tools._base import ToolContext, ToolOutput, candidate_criterion, each_candidate, reads, tool
from judgegraph.tools.math.answers import extract_final_answer, reference_answer
from judgegraph.tools.math.asked import Asked, asked_computation
from judgegraph.tools.math.choices import choice_options, equivalent_choice
from judgegraph.tools.math.equivalence import Method, NeedsSymbolic


class MatchReferenceArgs(BaseModel):
    """Arguments of `match_reference`."""

    candidate: int = Field(ge=0, description="Index of the candidate (0-based) whose final answer to check.")


class MatchReferenceResult(BaseModel):
    """What `match_reference` found for one candidate."""

    candidate: int
    extracted: str | None
    """The final answer found in the candidate (None: it commits to no answer)."""
    reference: str
    provenance: Literal["given", "computed"] = "given"
    """Where the reference comes from: the request, or the exact value of the computation the prompt asks for."""
    equivalent: bool
    method: Method
    detail: str


def plan_match_reference(request: JudgeRequest) -> list[ToolCall]:
    """With a reference answer, or a prompt that asks for one computation, check every candidate against it."""
    if request.has_evidence("reference"):
        return each_candidate("match_reference", request, "the request has a reference answer")
    if not request.tests and asked_computation(request.prompt) is not None:
        return each_candidate("match_reference", request, "the prompt asks for one computation: its exact value")
    return []


def _reference(request: JudgeRequest) -> tuple[str, Asked | None]:
    """The reference, and the computation it is the value of where the prompt's computation gave it."""
    if request.reference is not None and request.reference.strip():
        return reference_answer(request.reference), None
    asked = asked_computation(request.prompt)
    if asked is None:
        raise ToolFailure("this request has no reference answer, and its prompt asks for no one computation")
    return asked.reference, asked


@reads(MatchReferenceResult)
def match_reference_criterion(result: ToolResult, data: MatchReferenceResult) -> CriterionResult | None:
    """An answer equivalent to the reference is deciding evidence."""
    return candidate_criterion(result, "matches_reference", data.candidate, data.equivalent, float(data.equivalent))


def _match(
    text: str, reference: str, index: int, symbolic: bool = True, options: dict[str, str] | None = None
) -> MatchReferenceResult:
    """The check; with `symbolic=False`, only where plain comparisons settle it (else `NeedsSymbolic`). Where the
    statement lists multiple-choice `options`, answers compare as the option they name (`24` is `C` if C is 24)."""

    extracted = extract_final_answer(text)
    if extracted is None:
        return MatchReferenceResult(
            candidate=index,
            extracted=None,
            reference=reference,
            equivalent=False,
            method="none",
            detail="no final answer found",
        )
    m = equivalent_choice(extracted, reference, options or {}, symbolic=symbolic)
    return MatchReferenceResult(
        candidate=index,
        extracted=extracted,
        reference=reference,
        equivalent=m.equivalent,
        method=m.method,
        detail=m.detail,
    )


_NAMED = {"given": "reference", "computed": "value of the computation the prompt asks for"}


@tool("match_reference", timeout_s=10.0, plan=plan_match_reference, criterion=match_reference_criterion)
async def match_reference(args: MatchReferenceArgs, ctx: ToolContext) -> ToolOutput:
    """Check whether one candidate's final answer is equivalent to the reference answer.

    Understands numbers, fractions, percentages, symbolic expressions and multiple-choice letters.
    """
    request = ctx.request
    reference, asked = _reference(request)
    text = ctx.candidate(args.candidate)
    options = choice_options(request.prompt)
    try:  # most answers are settled by plain comparisons, in microseconds: here, without a thread's round trip
        result = _match(text, reference, args.candidate, symbolic=False, options=options)
    except NeedsSymbolic:  # sympy and math-verify are CPU-bound and can be slow: keep the event loop free
        result = await asyncio.to_thread(_match, text, reference, args.candidate, True, options)
    if asked is not None:
        result = result.model_copy(update={"provenance": "computed"})
        if not result.equivalent and result.extracted is not None and asked.rounded_as(result.extracted):
            detail = f"{result.extracted} is {reference} rounded as written"
            result = result.model_copy(update={"equivalent": True, "method": "numeric", "detail": detail})
    provenance = result.provenance
    verdict = "matches" if result.equivalent else "does not match"
    found = repr(result.extracted) if result.extracted is not None else "no final answer"
    against = _NAMED[provenance]
    return ToolOutput(
        text=f"candidate {args.candidate}: {found} {verdict} the {against} ({result.method}: {result.detail})",
        data=result,
    )
