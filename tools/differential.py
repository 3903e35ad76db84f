"""`differential_test`: where the statement's examples do not separate the candidates (all pass, or there are
none), run every candidate on generated inputs and report where their outputs differ.

A disagreement says at most one of them is right there, not which: it is a question for whoever can tell the
right output (a program the model writes, the model), never a verdict. With more than two candidates, the
candidates that agree on every input and pass the examples form groups (dual agreement, after CodeT).
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from pydantic import BaseModel

from judgegraph.errors import ToolFailure
from judgegraph.sandboxes import SandboxPool
from judgegraph.schema import CriterionResult, JudgeRequest, ToolCall, ToolResult
from judgegraph.tools import _foreign_calls as foreign_calls
from judgegraph.tools._base import ToolContext, ToolOutput, candidate_criterion, result_data, tool
from judgegraph.tools._candidate_code import CandidateCode, candidate_code
from judgegraph.tools._differential import (
    CASE_TIMEOUT_S,
    SHOWN,
    DifferentialResult,
    Disagreement,
    call_function,
    differential_applies,
    shown_output,
)
from judgegraph.tools._examples import call_target, example_outcome, resolve
from judgegraph.tools._inputs import call_inputs, from_signature, stdin_inputs
from judgegraph.tools._model_inputs import model_inputs
from judgegraph.tools._observe import Call, Observations, Observed, observe_calls, observe_stdin, shown_args
from judgegraph.tools._python_language import prelude_for
from judgegraph.tools._statement import Statement, read_statement

VARIED = 30
"""Inputs varied from the examples or typed from the signature, at most; a model's generator adds up to 10."""
SHOWN_DISAGREEMENTS = 5


class DifferentialArgs(BaseModel):
    """Arguments of `differential_test` (none: it runs every candidate)."""


def follow_differential(request: JudgeRequest, results: list[ToolResult]) -> list[ToolCall]:
    """After the first evidence left a code request without tests undecided (the statement's examples did not
    separate the candidates, or there were none): look for inputs on which the candidates disagree."""
    if not differential_applies(request):
        return []
    return [ToolCall(name="differential_test", arguments={}, reason="the statement's examples did not decide")]


def _example_passes(statement: Statement, observed: list[Observed]) -> bool | None:
    decided = [
        example_outcome(example, o, statement.tolerance, statement.any_case)[0] in ("passed", "unsure")
        for example, o in zip(statement.examples, observed, strict=False)
        if example.decisive
    ]
    return all(decided) if decided else None


AGREEMENT = "agrees_with_the_programs_that_agree"


def differential_criterion(result: ToolResult) -> list[CriterionResult] | None:
    """Dual agreement (after CodeT): where two or more candidates pass the statement's examples and agree with each
    other on every generated input, and no other cluster as large does, each candidate that disagrees with them on
    some input fails (a lookup of the samples, a program right only where the examples look). The cluster itself
    is supported, not proven: it decides nothing about its own members."""
    data = result_data(result, DifferentialResult)
    if data is None or not data.disagreement_count:
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
    style: Literal["call", "stdin"]
    examples = statement.examples
    generated: list[Any]
    function = call_function(request, statement, codes)
    if statement.style == "stdin" or (statement.style is None and function is None):
        if not examples and ctx.model is None:
            raise ToolFailure("no examples, no function to call and no model to write a generator: nothing to vary")
        style = "stdin"
        # without samples, only the model's generator writes inputs (from the statement's input format)
        generated = stdin_inputs([e.stdin or "" for e in examples], request.prompt)[:VARIED]
        written = await model_inputs(ctx, "stdin", None, None)
        generated += written
        inputs = [e.stdin or "" for e in examples] + generated

        async def observe(c: CandidateCode) -> Observations:
            assert c.code is not None
            return await observe_stdin(pool, c.language, c.code, inputs, CASE_TIMEOUT_S)

        shown_inputs = inputs
    else:
        style = "call"
        callable_languages = ("python", *foreign_calls.FOREIGN)
        if any(codes[i].language.name not in callable_languages for i in present):
            raise ToolFailure(f"calls are run on {', '.join(callable_languages)} code only")
        example_args = [e.args for e in examples]
        generated_args = call_inputs(example_args, request.prompt) if examples else []
        if len(generated_args) < 10 and function is not None:
            sources = [request.prompt] + [codes[i].code or "" for i in present]
            for source in sources:
                generated_args += from_signature(source, function)
                if generated_args:
                    break
        arities = {len(a) for a in example_args}
        written = await model_inputs(ctx, "call", function, arities.pop() if len(arities) == 1 else None)
        all_args: list[tuple[Any, ...]] = example_args + generated_args[:VARIED] + written
        generated = all_args[len(example_args) :]

        async def observe(c: CandidateCode) -> Observations:
            assert c.code is not None
            if c.language.name in foreign_calls.FOREIGN:
                return await _observe_foreign(pool, c, function, all_args)
            targets = [call_target(statement, e, c.code, c.entry) for e in examples]
            target = next((t for t in targets if t is not None), None) or (
                (resolve(function, c.code) or function) if function else c.entry
            )
            if target is None:
                return Observations([Observed("error", message="no function to call")] * len(all_args), None, 0.0)
            calls = [Call(target, a, {}) for a in all_args]
            return await observe_calls(pool, c.code, calls, CASE_TIMEOUT_S, prelude_for(statement))

        shown_inputs = [shown_args(a) for a in all_args]
    if not generated:
        raise ToolFailure("no inputs could be generated from the statement, the signature or a generator")
    first_written = len(shown_inputs) - len(written)
    runs = await asyncio.gather(*(observe(codes[i]) for i in present))
    observed: dict[int, list[Observed]] = {}
    for i, run in zip(present, runs, strict=True):
        if run.load_error is not None:
            observed[i] = [Observed("error", message=run.load_error)] * len(shown_inputs)
        else:
            observed[i] = run.observed + [Observed("not_run")] * (len(shown_inputs) - len(run.observed))
    n_examples = len(examples)
    disagreements = []
    for k in range(n_examples, len(shown_inputs)):
        row = [o for i in present if (o := observed[i][k]).status != "not_run"]  # stopped after its timeouts
        if len(row) < 2 or all(o.status != "ok" for o in row):
            continue  # an input no candidate accepts is most likely not a valid input
        if len({o.key(statement.any_case) for o in row}) > 1:
            outputs = [shown_output(observed[i][k]) if i in observed else "<no code>" for i in range(len(codes))]
            origin: Literal["varied", "model"] = "model" if k >= first_written else "varied"
            disagreements.append(Disagreement(input=_cut(shown_inputs[k]), outputs=outputs, origin=origin))
    signature: dict[int, tuple[str, ...]] = {
        i: tuple(observed[i][k].key(statement.any_case) for k in range(len(shown_inputs))) for i in present
    }
    groups: dict[tuple[str, ...], list[int]] = {}
    for i in present:
        groups.setdefault(signature[i], []).append(i)
    passes = [
        _example_passes(statement, observed[i][:n_examples]) if i in observed else None for i in range(len(codes))
    ]
    result = DifferentialResult(
        style=style,
        inputs_tried=len(generated),
        model_inputs=len(written),
        disagreements=disagreements[: SHOWN_DISAGREEMENTS * 4],
        disagreement_count=len(disagreements),
        groups=sorted(groups.values(), key=lambda g: (-len(g), g)),
        passes_examples=passes,
        no_code=[i for i in range(len(codes)) if i not in observed],
        duration_s=sum(r.duration_s for r in runs),
    )
    return ToolOutput(text=_summary(result), data=result)


async def _observe_foreign(
    pool: SandboxPool, c: CandidateCode, function: str | None, all_args: list[tuple[Any, ...]]
) -> Observations:
    """A C, C++, Java, JavaScript, Go or Rust answer's values on every input (`_foreign_calls`); `not_run`
    throughout where the judge cannot call it."""
    assert c.code is not None
    arities = {len(a) for a in all_args}
    arity = arities.pop() if len(arities) == 1 else -1
    name = foreign_calls.method_for(c.code, function, arity, c.language.name)
    runner = foreign_calls.program(c.language.name, c.code, name, all_args) if name else None
    if runner is None:
        return Observations(
            [Observed("not_run", message="the judge cannot call this answer")] * len(all_args), None, 0.0
        )
    return await foreign_calls.observe_foreign(pool, c.language, runner, len(all_args), CASE_TIMEOUT_S)


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN else text[:SHOWN] + "..."


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
