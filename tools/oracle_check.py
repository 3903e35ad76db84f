"""`oracle_check`: who is right where candidates disagree. The judge's model writes a plain, obviously correct
(brute-force where need be) solution of the statement k times; the programs run on the disagreement inputs in the
sandbox, and the output most of them agree on is a derived expected output (evidence marked `derived`, never
ground truth). A candidate that differs from a majority-derived output there fails (deciding against it); one
that matches them all is supported, not proven.

The oracle programs are written and run once per statement and input set (the evidence cache), shared by every
candidate and both orders.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from typing import Literal

from pydantic import BaseModel, Field

from judgegraph.errors import ToolFailure
from judgegraph.schema import CriterionResult, JudgeRequest, ToolCall, ToolResult
from judgegraph.settings import CASE_TIMEOUT_S
from judgegraph.tools._base import ToolContext, ToolOutput, candidate_criterion, reads, tool
from judgegraph.tools._prompts import tool_prompt
from judgegraph.tools.code.calls import observe_function
from judgegraph.tools.code.candidate_code import candidate_code
from judgegraph.tools.code.disagreements import (
    DifferentialResult,
    call_function,
    differential_applies,
    shown_output,
)
from judgegraph.tools.code.language import Language, languages
from judgegraph.tools.code.literals import literal_call
from judgegraph.tools.code.observe import Observations, Observed, observe_stdin
from judgegraph.tools.code.outcomes import compare_outputs, compare_values
from judgegraph.tools.code.statement import Statement, read_statement

"""Oracle programs per statement (self-consistency's k)."""
MAX_INPUTS = 5


class OracleCheckArgs(BaseModel):
    """Arguments of `oracle_check`."""

    candidate: int = Field(ge=0, description="Index of the candidate (0-based) to check on the inputs.")
    inputs: list[str] = Field(
        min_length=1,
        max_length=MAX_INPUTS,
        description="Inputs to check on: a call's arguments as Python literals (`[1, 2], 3`), or a program's stdin.",
    )


class OracleCase(BaseModel):
    """One input: what the derived oracle printed, what the candidate did."""

    provenance: Literal["derived"] = "derived"
    input: str
    expected: str | None
    """The output most oracle programs agree on (None: no majority)."""
    votes: int
    got: str
    agrees: bool | None
    """None where there is no majority to compare with."""


class OracleCheckResult(BaseModel):
    """What `oracle_check` found for one candidate."""

    candidate: int
    cases: list[OracleCase]
    samples: int
    working: int
    """Oracle programs that ran on every input."""
    disagrees: int
    """Inputs where the candidate differs from a majority-derived output."""
    decisive: int
    """Inputs with a majority-derived output."""


def follow_oracle(request: JudgeRequest, results: list[ToolResult]) -> list[ToolCall]:
    """After differential testing found disagreement inputs: check every candidate on them against programs the
    model writes for the statement."""
    found = next((r for r in results if r.name == "differential_test" and r.ok and r.data), None)
    if found is None:
        return []
    data = DifferentialResult.model_validate(found.data)
    inputs = [d.value for d in data.disagreements if d.value][:MAX_INPUTS]  # the inputs themselves, never cut
    if not inputs:
        return []
    reason = "the candidates disagree on generated inputs; a derived oracle says which is right"
    return [
        ToolCall(name="oracle_check", arguments={"candidate": i, "inputs": inputs}, reason=reason)
        for i in range(len(request.candidates))
        if i not in data.no_code
    ]


@reads(OracleCheckResult)
def oracle_criterion(result: ToolResult, data: OracleCheckResult) -> CriterionResult | None:
    """Differing from a majority-derived output decides against (scoring 0, as every evidence that only decides
    against does); agreeing everywhere supports, never proves."""
    if data.decisive == 0:
        return None
    passed = data.disagrees == 0
    score = float(passed)
    criterion = candidate_criterion(result, "agrees_with_derived_oracle", data.candidate, passed, score)
    return criterion.model_copy(update={"conclusive": False}) if passed else criterion


def _parsed(inputs: list[str]) -> list[tuple[object, ...] | None]:
    out: list[tuple[object, ...] | None] = []
    for text in inputs:
        call = literal_call(f"f({text})")
        out.append(None if call is None or call[2] else call[1])
    return out


async def _run_on(
    ctx: ToolContext, style: str, code: str, language: Language, function: str | None, inputs: list[str]
) -> list[Observed]:
    """What `code` gives on each input: its output (stdin) or the value of its `function` called with it, in any
    language the judge calls (`code/calls.py`)."""
    assert ctx.services is not None
    pool = await ctx.services.sandbox()
    seen: Observations
    if style == "stdin":
        seen = await observe_stdin(pool, language, code, inputs, CASE_TIMEOUT_S)
    else:
        parsed = _parsed(inputs)
        statement = read_statement(ctx.request.prompt)
        readable = [args for args in parsed if args is not None]  # the calls' arity is theirs alone
        seen = await observe_function(pool, language, code, None, statement, function, readable, CASE_TIMEOUT_S)
        made = iter(seen.observed)
        unreadable = Observed("error", message="unreadable input")
        observed = [unreadable if args is None else next(made, Observed("not_run")) for args in parsed]
        seen = Observations(observed, seen.load_error, seen.duration_s)
    if seen.load_error is not None:
        return [Observed("error", message=seen.load_error)] * len(inputs)
    return seen.observed + [Observed("not_run")] * (len(inputs) - len(seen.observed))


async def _oracle(
    ctx: ToolContext, style: str, name: str | None, inputs: list[str], samples: int
) -> list[tuple[Observed | None, int, str]]:
    """Per input: the oracle output most programs agree on (None: no majority), its votes, and its text."""
    assert ctx.model is not None
    from judgegraph.backends import Sampling

    await ctx.model.connect()
    role = "stdin_task" if style == "stdin" else "call_task"
    task = tool_prompt("oracle_check", role, prompt=ctx.request.prompt, name=name)
    messages = [{"role": "system", "content": tool_prompt("oracle_check", "system")}, {"role": "user", "content": task}]

    async def one(i: int) -> list[Observed]:
        turn = await ctx.model.chat(messages, sampling=Sampling(temperature=0.7, max_tokens=700, seed=i))  # type: ignore[union-attr]
        if ctx.on_model_turn is not None:
            ctx.on_model_turn(turn)
        if turn.error is not None or not turn.text:
            return [Observed("error", message="no program")] * len(inputs)
        python = languages.get("python")
        return await _run_on(ctx, style, python.extract(turn.text, None) or turn.text, python, name, inputs)

    runs = await asyncio.gather(*(one(i) for i in range(samples)))
    any_case = read_statement(ctx.request.prompt).any_case
    out: list[tuple[Observed | None, int, str]] = []
    for k in range(len(inputs)):
        # a program that printed nothing answered nothing: it is no vote (a reply that is no program, run as one,
        # printed nothing k times and made a majority every candidate differed from)
        row = [run[k] for run in runs if run[k].status == "ok" and not (run[k].printed and not run[k].output.strip())]
        counts = Counter(o.key(any_case) for o in row)
        if not counts:
            out.append((None, 0, "<no oracle program ran>"))
            continue
        key, votes = counts.most_common(1)[0]
        majority = next(o for o in row if o.key(any_case) == key)
        out.append((majority if votes * 2 > samples else None, votes, shown_output(majority)))
    return out


def _reals_apart(a: str, b: str) -> bool:
    """Whether two outputs differ only in tokens that are both reals (at least one of a pair not an integer)."""
    x, y = a.split(), b.split()
    return len(x) == len(y) and all(p == q or _reals(p, q) for p, q in zip(x, y, strict=True))


def _reals(p: str, q: str) -> bool:
    """Whether both tokens are numbers, not both integers."""
    try:
        float(p), float(q)
    except ValueError:
        return False
    return not (p.lstrip("+-").isdigit() and q.lstrip("+-").isdigit())


def agrees_with(expected: Observed, got: Observed, statement: Statement) -> bool | None:
    """Whether a candidate's output matches the derived one, compared as the statement's examples are (reals
    within its tolerance, letters in any case where it says so); None where that cannot be told with certainty,
    or the candidate failed to run on the input (a generated input may break a constraint the oracle ignored)."""
    if got.status != "ok":
        return None
    if expected.printed:
        outcome = compare_outputs(expected.output, got.output, statement.tolerance, statement.any_case)
        if outcome == "failed" and statement.tolerance is None and _reals_apart(expected.output, got.output):
            return None  # the programs' printed precision is their own, not the statement's
    else:
        outcome = compare_values(expected.answer, got.answer, statement.tolerance)
    return {"passed": True, "failed": False}.get(outcome)


@tool(
    "oracle_check",
    timeout_s=600.0,
    follow_up=follow_oracle,
    criterion=oracle_criterion,
    applies=differential_applies,
)
async def oracle_check(args: OracleCheckArgs, ctx: ToolContext) -> ToolOutput:
    """Check one candidate's code on the given inputs against reference programs written for the task (several,
    by vote): where most agree on an output, the candidate should print or return it."""
    if ctx.model is None:
        raise ToolFailure("an oracle needs the judge's model, and this judge has none")
    if ctx.services is None:
        raise ToolFailure("no sandbox is available to this judge")
    request = ctx.request
    statement = read_statement(request.prompt)
    codes = [candidate_code(request, c.content) for c in request.candidates]
    found = candidate_code(request, ctx.candidate(args.candidate))
    if found.code is None:
        raise ToolFailure(f"candidate {args.candidate} contains no code")
    function = call_function(request, statement, codes)
    style = "stdin" if function is None else "call"
    samples = ctx.services.derived_samples
    key = (
        "oracle:"
        + hashlib.sha256(f"{samples}\0{style}\0{function}\0{request.prompt}\0{args.inputs}".encode()).hexdigest()
    )
    oracle = await ctx.services.once(key, lambda: _oracle(ctx, style, function, args.inputs, samples))
    mine = await _run_on(ctx, style, found.code, found.language, function, args.inputs)
    cases = []
    for text, (expected, votes, shown), got in zip(args.inputs, oracle, mine, strict=True):
        agrees = None if expected is None else agrees_with(expected, got, statement)
        cases.append(
            OracleCase(
                input=text,
                expected=shown if expected is not None else None,
                votes=votes,
                got=shown_output(got),
                agrees=agrees,
            )
        )
    result = OracleCheckResult(
        candidate=args.candidate,
        cases=cases,
        samples=samples,
        working=max((c.votes for c in cases), default=0),
        disagrees=sum(c.agrees is False for c in cases),
        decisive=sum(c.agrees is not None for c in cases),
    )
    return ToolOutput(text=_summary(result), data=result)


def _summary(r: OracleCheckResult) -> str:
    if r.decisive == 0:
        return f"candidate {r.candidate}: the {r.samples} reference programs agreed on no input (nothing to compare)"
    head = (
        f"candidate {r.candidate}: differs from the derived reference output on {r.disagrees} of {r.decisive} inputs"
        " (reference programs written for the task, by majority; evidence, not ground truth)"
    )
    lines = [head]
    for c in r.cases[:MAX_INPUTS]:
        if c.agrees is None:
            continue
        mark = "agrees" if c.agrees else "differs"
        lines.append(f"  input {c.input!r}: reference {c.expected!r} ({c.votes}/{r.samples}), got {c.got!r}: {mark}")
    return "\n".join(lines)
