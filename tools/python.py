"""`python`: a program the judge's model writes, run in the same sandbox as candidates' code and under the same
limits (tool-integrated reasoning, after TIR-Judge): to compute the right output on an input where candidates
disagree, a math answer, or a check of a stated answer by substitution.

The model's code is as untrusted as a candidate's: no network, CPU, memory, time and output caps, a fresh
scratch directory, a non-root user. What it printed comes back, and an error cut to its last lines.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from judgegraph.errors import ToolFailure
from judgegraph.schema import JudgeRequest
from judgegraph.tools._base import ToolContext, ToolOutput, tool
from judgegraph.tools.code.python_runs import LIMITS, PythonResult, run_program

MAX_CODE = 20_000
DEFAULT_CALLS = 3
"""Calls a judgment may make (TIR-Judge's budget); a judge's options may set another."""


class PythonArgs(BaseModel):
    """Arguments of `python`."""

    code: str = Field(
        min_length=1,
        description="A complete Python 3 program (standard library, sympy, numpy). What it prints is returned.",
    )
    """No `maxLength` in the schema: a grammar-constrained decoder (llama.cpp) expands it into a rule of that many
    repetitions, and 20,000 of them crash the server. The tool refuses longer programs itself."""


def python_applies(request: JudgeRequest) -> bool:
    """Where the request brings no evidence a check could decide by (no tests, reference, constraints, documents
    or images): the judge's own program is then the way to check."""
    return not any(request.has_evidence(f) for f in ("tests", "reference", "constraints", "documents", "images"))


def _summary(r: PythonResult) -> str:
    parts = []
    if r.stdout.strip():
        parts.append(("output (its end):\n" if r.truncated else "output:\n") + r.stdout.rstrip())
    if r.timed_out:
        parts.append(f"the program was stopped after {LIMITS.wall_s:g}s")
    elif r.oom_killed:
        parts.append("the program ran out of memory")
    if r.error:
        parts.append("error:\n" + r.error)
    if not parts:
        parts.append(f"the program printed nothing (exit code {r.exit_code})")
    return "\n".join(parts)


@tool("python", timeout_s=60.0, max_output_chars=8000, applies=python_applies)
async def python(args: PythonArgs, ctx: ToolContext) -> ToolOutput:
    """Run a Python program you write (standard library, sympy and numpy; no network, 10 s) and read what it
    prints. Use it to compute the right output for an input, solve a problem by brute force, or check an answer
    by substitution; print the result."""
    if len(args.code) > MAX_CODE:
        raise ToolFailure(f"the program is {len(args.code)} characters long; at most {MAX_CODE} are run")
    if ctx.services is None:
        raise ToolFailure("no sandbox is available to this judge")
    result = await run_program(await ctx.services.sandbox(), args.code)
    return ToolOutput(text=_summary(result), data=result)
