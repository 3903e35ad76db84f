"""`run_code`: run a candidate's code against the request's tests in a sandbox; report every test case."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from pydantic import BaseModel, Field

from judgegraph.errors import ToolFailure
from judgegraph.schema import CriterionResult, JudgeRequest, ToolCall, ToolResult
from judgegraph.tools._base import ToolContext, ToolOutput, candidate_criterion, each_candidate, result_data, tool
from judgegraph.tools._languages import CaseResult, Language, fenced_language, language_named, languages, read_report

CASE_TIMEOUT_S = 3.0


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


def entry_point_of(request: JudgeRequest, code: str) -> str | None:
    """The function under test: the request's `entry_point` (HumanEval's column, kept in metadata) if the code
    defines it, else the last function the prompt declares that the code defines, else the code's last."""
    defined: list[str] = re.findall(r"^def\s+(\w+)\s*\(", code, re.MULTILINE)
    if request.metadata.get("entry_point") in defined:
        return str(request.metadata["entry_point"])
    declared: list[str] = [n for n in re.findall(r"def\s+(\w+)\s*\(", request.prompt) if n in defined]
    if declared:
        return declared[-1]
    return defined[-1] if defined else None


def _defines(code: str, name: str) -> bool:
    return re.search(rf"^def\s+{re.escape(name)}\s*\(", code, re.MULTILINE) is not None


def _completion(request: JudgeRequest, text: str, code: str | None) -> str | None:
    """A response that continues the prompt's code (HumanEval's completion form: the function's body only),
    as the whole program: the prompt's code followed by the response, when that defines the function the
    prompt declares and the response's own code does not."""
    declared = re.findall(r"^def\s+(\w+)\s*\(", request.prompt, re.MULTILINE)
    if not declared or (code is not None and _defines(code, declared[-1])):
        return None
    for piece in (code, text):  # the fenced body, else the whole response
        if not piece:
            continue
        whole = request.prompt.rstrip("\n") + "\n" + piece.strip("\n")
        try:
            ast.parse(whole)
        except SyntaxError:
            continue
        if _defines(whole, declared[-1]):
            return whole
    return None


@dataclass(frozen=True)
class CandidateCode:
    """A candidate's program as the judge runs it."""

    language: Language
    code: str | None
    """None when the response contains no code."""
    entry: str | None
    """Python: the function under test."""


def candidate_code(request: JudgeRequest, text: str) -> CandidateCode:
    """The code in a response, in the request's language: for Python, the block defining the function under
    test, or the prompt completed by a body-only response (HumanEval's completion form)."""
    language = language_of(request, text)
    code = language.extract(text, request.metadata.get("entry_point"))
    entry = None
    if language.name == "python":
        entry = entry_point_of(request, code) if code else None
        if code is not None and entry is not None:
            code = language.extract(text, entry) or code
        completed = _completion(request, text, code)
        if completed is not None:
            code, entry = completed, entry_point_of(request, completed)
    return CandidateCode(language, code, entry)


_PROGRAM_LINE = re.compile(
    r"^\s*(?:async def |def |class |import |from \S+ import |#include|public |fn |func |package )"
    r"|\binput\(|\bprint\(|\bsys\.stdin",
    re.M,
)


def contains_code(request: JudgeRequest, text: str) -> bool:
    """Whether a response holds a program (a code fence, or code that defines, imports, reads or prints), not
    just an answer that happens to parse as code (`42`)."""
    try:
        found = candidate_code(request, text)
    except ToolFailure:
        return False
    return found.code is not None and ("```" in text or _PROGRAM_LINE.search(found.code) is not None)


def plan_run_code(request: JudgeRequest) -> list[ToolCall]:
    """With tests, run every candidate's code against them."""
    return each_candidate("run_code", request, "the request has tests") if request.tests else []


def run_code_criterion(result: ToolResult) -> CriterionResult | None:
    """Passing every test is deciding evidence; the score is the share of tests passed."""
    data = result_data(result, RunCodeResult)
    if data is None:
        return None
    score = data.passed / data.total if data.total else 0.0
    return candidate_criterion(result, "passes_tests", data.candidate, data.all_passed, score)


def _summary(r: RunCodeResult) -> str:
    head = f"candidate {r.candidate}: {r.passed}/{r.total} tests passed"
    if not r.found_code:
        return f"candidate {r.candidate}: no code found in the response; 0/{r.total} tests passed"
    if r.load_error:
        head += f"; the code failed to load: {r.load_error}"
    lines = [head]
    for case in r.cases:
        if case.status != "passed":
            lines.append(
                f"  test {case.index} {case.status}: {case.source.strip()[:200]} {case.message[:200]}".rstrip()
            )
    return "\n".join(lines[:12])


def language_of(request: JudgeRequest, text: str) -> Language:
    """The request's language, else the one the response's code fence names, else Python."""
    if request.language:
        try:
            return language_named(request.language)
        except KeyError as e:
            raise ToolFailure(str(e.args[0])) from None
    return fenced_language(text) or languages.get("python")


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
