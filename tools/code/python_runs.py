"""Running a program the judge's model wrote (the python tool's, a derived reference's, an oracle's): in the
sandbox, under the same limits as a candidate's code, with its output's tail and its error's last lines back."""

from __future__ import annotations

from pydantic import BaseModel

from judgegraph.sandboxes import Limits, SandboxPool

LIMITS = Limits(wall_s=10.0, cpu_s=10, memory_mb=512, output_bytes=200_000)
SHOWN_OUTPUT = 4000
"""Characters of stdout the model reads back (the tail: a program prints its answer last)."""
ERROR_LINES = 6
"""Lines of stderr the model reads back (the end of a traceback says what went wrong)."""


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


def _tail_lines(text: str, n: int) -> str:
    return "\n".join(text.strip().splitlines()[-n:])


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
