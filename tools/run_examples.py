"""`run_examples`: where a request brings no tests, run a candidate on the examples its statement gives (doctests,
`Input:`/`Output:` examples, contest samples) and compare as the statement's judge would.

Failing an example is deciding evidence against the candidate; passing them all supports it and proves nothing
(the criterion is not conclusive). An example whose expected value cannot be read or compared with certainty
informs and never decides.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from pydantic import BaseModel, Field

from judgegraph.errors import ToolFailure
from judgegraph.sandboxes import SandboxPool
from judgegraph.schema import CriterionResult, JudgeRequest, ToolCall, ToolResult
from judgegraph.tools._base import ToolContext, ToolOutput, candidate_criterion, each_candidate, reads, tool
from judgegraph.tools.code.calls import NotCallable, calling, observe_calls
from judgegraph.tools.code.candidate_code import (
    CandidateCode,
    candidate_code,
    contains_code,
    foreign_program,
    shows_code,
)
from judgegraph.tools.code.examples import Outcome, example_outcome, shown_text
from judgegraph.tools.code.language import languages, run_summary
from judgegraph.tools.code.observe import Call, Observations, Observed, observe_stdin
from judgegraph.tools.code.special_cases import find_table
from judgegraph.tools.code.statement import Example, Statement, informing, read_statement

NO_CODE = "no code in the response"


def foreign_note(language: str) -> str:
    return (
        f"a program in {language}, which the judge does not run (it runs {', '.join(languages.names())}), "
        "where the prompt asks for no such language"
    )


class RunExamplesArgs(BaseModel):
    """Arguments of `run_examples`."""

    candidate: int = Field(ge=0, description="Index of the candidate (0-based) whose code to run on the examples.")


class ExampleCase(BaseModel):
    """One example of the statement, run."""

    index: int
    provenance: Literal["statement"] = "statement"
    """Where the case comes from: the task's own statement (not a test the user gave)."""
    input: str
    expected: str
    got: str
    outcome: Outcome
    decisive: bool
    """Whether this case may decide: its expected value was read and compared with certainty."""
    note: str = ""


class RunExamplesResult(BaseModel):
    """What `run_examples` found for one candidate."""

    candidate: int
    language: str
    style: Literal["call", "stdin"]
    found_code: bool
    target: str | None
    """The function or method called (call examples)."""
    cases: list[ExampleCase]
    passed: int
    failed: int
    """Decisive cases the candidate got wrong (wrong value, an error, a time-out)."""
    decisive: int
    load_error: str | None = None
    duration_s: float = 0.0
    special_cased: bool = False
    """It passed every example by answering them from a table of the examples (`code.special_cases`)."""


def plan_run_examples(request: JudgeRequest) -> list[ToolCall]:
    """A code request without tests whose statement gives examples: run every candidate on them. A code request
    is one a candidate answers with code, or one whose statement asks for a program whatever the candidates
    answer (`asks_for_a_program`): a response with no code to it fails its examples rather than abstain."""
    statement = read_statement(request.prompt)
    if request.tests or not statement.examples:
        return []
    if not asks_for_a_program(statement) and not any(
        contains_code(request, c.content) or foreign_program(request, c.content) for c in request.candidates
    ):
        return []
    return each_candidate("run_examples", request, "no tests were given; the statement has examples")


def asks_for_a_program(statement: Statement) -> bool:
    """The statement names what its answer must define (a `class Solution` starter's method, the function its
    examples call) or gives contest samples (stdin in, stdout out): only a program can pass its examples."""
    named = statement.style == "call" and any(e.function for e in statement.examples)
    return statement.method is not None or named or statement.style == "stdin"


@reads(RunExamplesResult)
def run_examples_criterion(result: ToolResult, data: RunExamplesResult) -> CriterionResult | None:
    """A failed decisive example decides against (scoring 0: a share of examples passed would pay a wrong answer
    more than a right one, whose passing only supports and abstains), as does answering them from a table of
    them; passing every decisive one otherwise supports, never proves."""
    if data.decisive == 0:
        return None
    if data.special_cased:
        detail = "answers the statement's examples from a table of them (their inputs and outputs, written in)"
        return candidate_criterion(result, "passes_statement_examples", data.candidate, False, 0.0, detail)
    failed = data.failed > 0
    score = 0.0 if failed else 1.0
    criterion = candidate_criterion(result, "passes_statement_examples", data.candidate, not failed, score)
    return criterion if failed else criterion.model_copy(update={"conclusive": False})


# ---------------------------------------------------------------- comparing


def _unsure_note(example: Example) -> str:
    if example.order == "unstated":
        return "the same items in another order, and the statement does not say whether the order counts"
    return "compared without certainty (reals, no tolerance given)"


def _outcome(statement: Statement, example: Example, observed: Observed) -> tuple[Outcome, str]:
    return example_outcome(example, observed, statement.tolerance, statement.any_case)


def _case(index: int, example: Example, outcome: Outcome, got: str) -> ExampleCase:
    decisive = example.decisive and outcome != "unsure"
    return ExampleCase(
        index=index,
        input=shown_text(example.shown),
        expected=shown_text(example.expected_text),
        got=got,
        outcome=outcome,
        decisive=decisive,
        note=example.note or (_unsure_note(example) if outcome == "unsure" else ""),
    )


def _summary(r: RunExamplesResult) -> str:
    if not r.found_code:
        return f"candidate {r.candidate}: {r.load_error or 'no code found in the response'}"
    head = f"candidate {r.candidate}: {r.passed}/{len(r.cases)} statement examples passed"
    if r.target:
        head += f" (calling {r.target})"
    if r.special_cased:
        head += "; it answers them from a table of the examples written into its source, and knows nothing else"
    failures = [
        f"  example {case.index} {case.outcome}{'' if case.decisive else ' (informs only)'}: input "
        f"{case.input!r} expected {case.expected!r} got {case.got!r}"
        for case in r.cases
        if case.outcome != "passed"
    ]
    return run_summary(head, r.load_error and r.load_error[:300], failures)


async def _call_examples(
    pool: SandboxPool, statement: Statement, found: CandidateCode, candidate: int
) -> tuple[list[ExampleCase], Observations, str | None]:
    """The call examples run on the answer, in whatever language it is (`code/calls.py`): each example whose
    function the answer defines, called as the statement's judge calls it. An example whose method the statement's
    starter names and the answer does not define fails: the judge calls that method, so a misnamed one is wrong
    (skipping its examples would let a wrong answer escape them by its name)."""
    assert found.code is not None
    try:
        language = calling(found.language)
        targets = [language.example_target(found.code, found.entry, statement, e) for e in statement.examples]
        runnable = [(e, t) for e, t in zip(statement.examples, targets, strict=True) if t is not None]
        calls = [Call(t, e.args, e.kwargs) for e, t in runnable]
        seen = await observe_calls(pool, found.language, found.code, calls, statement=statement)
    except NotCallable as e:
        raise ToolFailure(f"candidate {candidate}'s {e}") from e
    cases = []
    if statement.method is not None:
        undefined = f"the code defines no {statement.method}, the method the statement's starter names"
        lacking = [e for e, t in zip(statement.examples, targets, strict=True) if t is None and e.function is None]
        cases += [_case(i, e, "error", undefined) for i, e in enumerate(lacking, start=len(runnable))]
    for i, ((example, _), observed) in enumerate(zip(runnable, seen.observed, strict=True)):
        if observed.informs:
            got = shown_text(observed.message) if observed.status == "error" else ""
            cases.append(_case(i, informing(example, observed.message), "unsure", got))
        else:
            cases.append(_case(i, example, *_outcome(statement, example, observed)))
    return cases, seen, next((t for t in targets if t is not None), None)


@tool("run_examples", timeout_s=180.0, plan=plan_run_examples, criterion=run_examples_criterion)
async def run_examples(args: RunExamplesArgs, ctx: ToolContext) -> ToolOutput:
    """Run one candidate's code on the examples the task's statement gives (its doctests, Input/Output examples or
    sample cases) in a sandbox, and report each example: expected, got, passed or not."""
    request = ctx.request
    statement = read_statement(request.prompt)
    if statement.style is None or not statement.examples:
        raise ToolFailure("the statement gives no examples to run")
    if ctx.services is None:
        raise ToolFailure("no sandbox is available to this judge")
    found = candidate_code(request, ctx.candidate(args.candidate))
    style = statement.style
    base: dict[str, object] = {"candidate": args.candidate, "language": found.language.name, "style": style}
    if found.code is None:
        # where the statement asks for a program, a response that shows none fails every example (it cannot pass
        # one), as does a program in a language the judge does not run and the prompt did not ask for; one showing
        # code the judge could not read, or answering what is not a code request, is not judged
        text = ctx.candidate(args.candidate)
        foreign = foreign_program(request, text)
        failing = foreign is not None or (asks_for_a_program(statement) and not shows_code(text))
        why = NO_CODE if foreign is None else foreign_note(foreign)
        cases = [_case(i, e, "error" if failing else "not_run", why) for i, e in enumerate(statement.examples)]
        unpassed = sum(c.decisive for c in cases) if failing else 0
        result = RunExamplesResult(
            **base,
            found_code=False,
            target=None,
            cases=cases,
            passed=0,
            failed=unpassed,
            decisive=unpassed,
            load_error=why,
        )
        return ToolOutput(text=_summary(result), data=result)
    pool = await ctx.services.sandbox()
    cases, seen, target = await _run(pool, statement, found, args.candidate)
    if seen.load_error is not None:  # nothing ran: every example failed as the program did
        cases = [c.model_copy(update={"outcome": "error", "got": shown_text(seen.load_error)}) for c in cases]
    decisive = [c for c in cases if c.decisive]
    result = RunExamplesResult(
        **base,
        found_code=True,
        target=target,
        cases=cases,
        passed=sum(c.outcome == "passed" for c in cases),
        failed=sum(c.outcome in ("failed", "error", "timeout") for c in decisive),
        decisive=len(decisive),
        load_error=seen.load_error,
        duration_s=seen.duration_s,
    )
    if result.decisive and result.failed == 0 and result.passed >= result.decisive:
        table = await _answers_from_table(pool, statement, found, args.candidate)
        result = result.model_copy(update={"special_cased": table})
    return ToolOutput(text=_summary(result), data=result)


async def _run(
    pool: SandboxPool, statement: Statement, found: CandidateCode, candidate: int
) -> tuple[list[ExampleCase], Observations, str | None]:
    """The statement's examples run on the answer: (each case, what was observed, the function called)."""
    if statement.style == "call":
        return await _call_examples(pool, statement, found, candidate)
    assert found.code is not None
    seen = await observe_stdin(pool, found.language, found.code, [e.stdin or "" for e in statement.examples])
    cases = [
        _case(i, example, *_outcome(statement, example, observed))
        for i, (example, observed) in enumerate(zip(statement.examples, seen.observed, strict=True))
    ]
    return cases, seen, None


async def _answers_from_table(pool: SandboxPool, statement: Statement, found: CandidateCode, candidate: int) -> bool:
    """The answer reads as a table of the examples (`code.special_cases`) and answers from it: run with the
    table's outputs changed, it gives the changed values on every example it was read for."""
    assert found.code is not None
    called = {n for n in (statement.method, found.entry, *(e.function for e in statement.examples)) if n}
    table = find_table(found.code, found.language.name, statement.examples, called)
    if table is None:
        return False
    changed = dataclasses.replace(statement, examples=table.changed_examples)
    cases, seen, _ = await _run(pool, changed, dataclasses.replace(found, code=table.changed_code), candidate)
    return seen.load_error is None and all(c.outcome == "passed" for c in cases)
