"""`differential_test`: where the statement's examples do not separate the candidates (all pass, or there are
none), run every candidate on generated inputs and report where their outputs differ.

A disagreement says at most one of them is right there, not which: it is a question for whoever can tell the
right output (a program the model writes, the model), never a verdict. With more than two candidates, the
candidates that agree on every input and pass the examples form groups (dual agreement, after CodeT).
"""

from __future__ import annotations

from pydantic import BaseModel

from judgegraph.errors import ToolFailure
from judgegraph.schema import CriterionResult, JudgeRequest, ToolCall, ToolResult
from judgegraph.tools._base import ToolContext, ToolOutput, candidate_criterion, reads, tool
from judgegraph.tools.code.candidate_code import candidate_code
from judgegraph.tools.code.compare_candidates import SHOWN_DISAGREEMENTS, compare_runs, gather_inputs, run_candidates
from judgegraph.tools.code.disagreements import (
    DifferentialResult,
    call_function,
    differential_applies,
)
from judgegraph.tools.code.statement import read_statement


class DifferentialArgs(BaseModel):
    """Arguments of `differential_test` (none: it runs every candidate)."""


def follow_differential(request: JudgeRequest, results: list[ToolResult]) -> list[ToolCall]:
    """After the first evidence left a code request without tests undecided (the statement's examples did not
    separate the candidates, or there were none): look for inputs on which the candidates disagree."""
    if not differential_applies(request):
        return []
    return [ToolCall(name="differential_test", arguments={}, reason="the statement's examples did not decide")]


AGREEMENT = "agrees_with_the_programs_that_agree"


@reads(DifferentialResult)
def differential_criterion(result: ToolResult, data: DifferentialResult) -> list[CriterionResult] | None:
    """Dual agreement (after CodeT): where two or more candidates pass the statement's examples and agree with each
    other on every generated input, and no other cluster as large does, each candidate that disagrees with them on
    some input fails (a lookup of the samples, a program right only where the examples look). The cluster itself
    is supported, not proven: it decides nothing about its own members."""
    if not data.disagreement_count:
        return None
    agreeing = [g for g in data.groups if len(g) >= 2 and all(data.passes_examples[i] is not False for i in g)]
    if not agreeing or (len(agreeing) > 1 and len(agreeing[1]) == len(agreeing[0])):
        return None
    cluster = agreeing[0]
    coded = [i for i in range(len(data.passes_examples)) if i not in data.no_code]
    return [
        candidate_criterion(
            result,
            AGREEMENT,
            i,
            False,
            0.0,
            f"candidate {i} disagrees on generated inputs with candidates {cluster}, which agree with each other",
        )
        for i in coded
        if i not in cluster
    ] or None


@tool(
    "differential_test",
    timeout_s=150.0,
    follow_up=follow_differential,
    applies=differential_applies,
    criterion=differential_criterion,
)
async def differential_test(args: DifferentialArgs, ctx: ToolContext) -> ToolOutput:
    """Run every candidate's code on generated inputs (variations of the statement's examples, small and edge
    values, and inputs from a generator the judge's model writes) and report the inputs on which their outputs
    differ. A difference shows that at most one is right there, not which."""
    request = ctx.request
    if ctx.services is None:
        raise ToolFailure("no sandbox is available to this judge")
    statement = read_statement(request.prompt)
    codes = [candidate_code(request, c.content) for c in request.candidates]
    present = [i for i, c in enumerate(codes) if c.code is not None]
    if len(present) < 2:
        raise ToolFailure("fewer than two candidates contain code")
    pool = await ctx.services.sandbox()
    inputs = await gather_inputs(ctx, statement, codes, present, call_function(request, statement, codes))
    observed, duration_s = await run_candidates(pool, statement, codes, present, inputs)
    result = compare_runs(statement, len(codes), inputs, observed, duration_s)
    return ToolOutput(text=_summary(result), data=result)


def _summary(r: DifferentialResult) -> str:
    if not r.disagreement_count:
        head = f"the candidates agree on all {r.inputs_tried} generated inputs"
    else:
        head = f"the candidates' outputs differ on {r.disagreement_count} of {r.inputs_tried} generated inputs"
    if r.model_inputs:
        head += f" ({r.model_inputs} of them from a generator the judge's model wrote)"
    lines = [head]
    for d in r.disagreements[:SHOWN_DISAGREEMENTS]:
        outputs = "; ".join(f"candidate {i}: {o!r}" for i, o in enumerate(d.outputs))
        lines.append(f"  input {d.input!r}: {outputs}")
    if len(r.groups) > 1:
        lines.append("groups that agree on every input: " + ", ".join(str(g) for g in r.groups))
    if any(p is not None for p in r.passes_examples):
        lines.append("passes the statement's examples: " + ", ".join(str(p) for p in r.passes_examples))
    return "\n".join(lines)
