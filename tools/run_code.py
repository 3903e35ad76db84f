"""`run_code`: run a candidate's code against the request's tests in a sandbox; report every test case."""

from __future__ import annotations

from pydantic import BaseModel, Field

from judgegraph.errors import ToolFailure
from judgegraph.schema import CriterionResult, JudgeRequest, ToolCall, ToolResult
from judgegraph.settings import CASE_TIMEOUT_S
from judgegraph.tools._base import ToolContext, ToolOutput, candidate_criterion, each_candidate, reads, tool
from judgegraph.tools.code.candidate_code import candidate_code
from judgegraph.tools.code.language import CaseResult, read_report, run_summary


class RunCodeArgs(BaseModel):
    """Arguments of `run_code`."""

    candidate: int = Field(ge=0, description="Index of the candidate (0-based) whose code to run against the tests.")


class RunCodeResult(BaseModel):
    """What `run_code` found for one candidate."""

    candidate: int
    language: str
    found_code: bool
    """False when the response contains no code to run."""
    entry_point: str | None
    cases: list[CaseResult]
    passed: int
    total: int
    all_passed: bool
    load_error: str | None
    """The code (or the tests' setup) failed before any test ran."""
    exit_code: int | None = None
    timed_out: bool = False
    oom_killed: bool = False
    stdout_tail: str = ""
    stderr_tail: str = ""
    backend: str = ""
    duration_s: float = 0.0


def plan_run_code(request: JudgeRequest) -> list[ToolCall]:
    """With tests, run every candidate's code against them."""
    return each_candidate("run_code", request, "the request has tests") if request.tests else []


@reads(RunCodeResult)
def run_code_criterion(result: ToolResult, data: RunCodeResult) -> CriterionResult | None:
    """Passing every test is deciding evidence; the score is the share of tests passed."""
    score = data.passed / data.total if data.total else 0.0
    return candidate_criterion(result, "passes_tests", data.candidate, data.all_passed, score)


def _summary(r: RunCodeResult) -> str:
    if not r.found_code:
        return f"candidate {r.candidate}: no code found in the response; 0/{r.total} tests passed"
    failures = [
        f"  test {case.index} {case.status}: {case.source.strip()[:200]} {case.message[:200]}".rstrip()
        for case in r.cases
        if case.status != "passed"
    ]
    return run_summary(f"candidate {r.candidate}: {r.passed}/{r.total} tests passed", r.load_error, failures)


@tool("run_code", timeout_s=180.0, plan=plan_run_code, criterion=run_code_criterion)
async def run_code(args: RunCodeArgs, ctx: ToolContext) -> ToolOutput:
    """Run one candidate's code against the request's tests in a sandbox and report each test case."""
    request = ctx.request
    if not request.tests:
        raise ToolFailure("this request has no tests")
    if ctx.services is None:
        raise ToolFailure("no sandbox is available to this judge")
    found = candidate_code(request, ctx.candidate(args.candidate))
    language, code, entry = found.language, found.code, found.entry
    program = language.program(code or "", request.tests, entry, CASE_TIMEOUT_S)
    if code is None:
        cases = [
            CaseResult(index=i, source=c, status="not_run", message="no code") for i, c in enumerate(program.cases)
        ]
        result = RunCodeResult(
            candidate=args.candidate,
            language=language.name,
            found_code=False,
            entry_point=None,
            cases=cases,
            passed=0,
            total=len(cases),
            all_passed=False,
            load_error="no code found",
        )
        return ToolOutput(text=_summary(result), data=result)
    pool = await ctx.services.sandbox()
    run = await pool.run(program.command, files=program.files, limits=program.limits)
    cases, load_error = read_report(program, run)
    passed = sum(c.status == "passed" for c in cases)
    stdout = "\n".join(line for line in run.stdout.splitlines() if not line.startswith(program.nonce))
    result = RunCodeResult(
        candidate=args.candidate,
        language=language.name,
        found_code=True,
        entry_point=entry,
        cases=cases,
        passed=passed,
        total=len(cases),
        # A run that was killed has not passed as a whole, whatever its report said before.
        all_passed=bool(cases)
        and passed == len(cases)
        and load_error is None
        and not run.timed_out
        and not run.oom_killed,
        load_error=load_error,
        exit_code=run.exit_code,
        timed_out=run.timed_out,
        oom_killed=run.oom_killed,
        stdout_tail=stdout[-2000:],
        stderr_tail=run.stderr[-2000:],
        backend=run.backend,
        duration_s=run.duration_s,
    )
    return ToolOutput(text=_summary(result), data=result)
