"""`python`: a program the judge's model writes, run in the same sandbox as candidates' code and under the same
limits (tool-integrated reasoning, after TIR-Judge): to compute the right output on an input where candidates
disagree, a math answer, or a check of a stated answer by substitution.

The model's code is as untrusted as a candidate's: no network, CPU, memory, time and output caps, a fresh
scratch directory, a non-root user. What it printed comes back, and an error cut to its last lines.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from judgegraph.errors import ToolFailure
from judgegraph.sandboxes import Limits, SandboxPool
from judgegraph.schema import JudgeRequest
from judgegraph.tools._base import ToolContext, ToolOutput, tool

LIMITS = Limits(wall_s=10.0, cpu_s=10, memory_mb=512, output_bytes=200_000)
SHOWN_OUTPUT = 4000
"""Characters of stdout the model reads back (the tail: a program prints its answer last)."""
ERROR_LINES = 6
"""Lines of stderr the model reads back (the end of a traceback says what went wrong)."""
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


class PythonResult(BaseModel):
    """What the program did."""

    code: str
    stdout: str
    """The tail of what it printed."""
    error: str
    """The last lines of stderr (a traceback's end), when it wrote any."""
    exit_code: int | None
    timed_out: bool = False
    oom_killed: bool = False
    truncated: bool = False
    backend: str = ""
    duration_s: float = 0.0


def python_applies(request: JudgeRequest) -> bool:
    """Where the request brings no evidence a check could decide by (no tests, reference, constraints, documents
    or images): the judge's own program is then the way to check."""
    return not any(request.has_evidence(f) for f in ("tests", "reference", "constraints", "documents", "images"))


def _tail_lines(text: str, n: int) -> str:
    return "\n".join(text.strip().splitlines()[-n:])


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


async def run_program(pool: SandboxPool, code: str) -> PythonResult:
    """Run a model's program in the sandbox under `LIMITS`: its output's tail and its error's last lines."""
    run = await pool.run(["python3", "-I", "main.py"], files={"main.py": code}, limits=LIMITS)
    stdout = run.stdout
    truncated = run.stdout_truncated or len(stdout) > SHOWN_OUTPUT
    return PythonResult(
        code=code,
        stdout=stdout[-SHOWN_OUTPUT:],
        error=_tail_lines(run.stderr, ERROR_LINES),
        exit_code=run.exit_code,
        timed_out=run.timed_out,
        oom_killed=run.oom_killed,
        truncated=truncated,
        backend=run.backend,
        duration_s=run.duration_s,
    )
