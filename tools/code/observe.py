"""What a candidate did on inputs, brought back for the judge to compare outside the sandbox: a call's value
(made by `calls.py`, values crossing as plain data) or a program's output on a stdin (any language run_code
runs). The statement's examples and differential testing both read candidates through here."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from judgegraph.sandboxes import SandboxPool
from judgegraph.schema import IOTest
from judgegraph.settings import CASE_TIMEOUT_S
from judgegraph.tools.code.language import Language, Program, capturing, read_report
from judgegraph.tools.in_sandbox.python_codec import encode

Status = Literal["ok", "error", "timeout", "not_run"]
STOP_AFTER_TIMEOUTS = 2
"""An observed run stops after this many timeouts: a program too slow for one input is mostly too slow for the
next, and each further timeout costs a full time limit to say nothing new."""


@dataclass(frozen=True)
class Call:
    """A call to observe: `function` is a top-level name or `Class.method` (called on a fresh instance)."""

    function: str
    args: tuple[object, ...]
    kwargs: dict[str, object]

    def shown(self) -> str:
        return f"{self.function.rpartition('.')[2]}({shown_args(self.args, self.kwargs)})"


def shown_args(args: tuple[object, ...], kwargs: dict[str, object] | None = None) -> str:
    """Arguments as a call writes them, cut at 300 characters."""
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in (kwargs or {}).items()]
    text = ", ".join(parts)
    return text if len(text) <= 300 else text[:300] + "..."


@dataclass(frozen=True)
class Observed:
    """What one input did: its value (a call's) or output (stdin's), or why there is none."""

    status: Status
    value: object = None
    after: list[object] | None = None
    """A call's arguments as the call left them (in-place answers)."""
    output: str = ""
    message: str = ""
    printed: bool = False
    """A stdin run's (the output is what counts), not a call's."""
    informs: bool = False
    """The judge could not make the call (a runner that did not build with the answer's types, a function the
    example names and the answer lacks): it informs, never decides. A value that is not data is the answer's and
    fails."""

    @property
    def answer(self) -> object:
        """What a call answered: its value, or, where it returned nothing, its first argument as it left it
        ("modify nums in place")."""
        if self.value is None and self.after:
            return self.after[0]
        return self.value

    def key(self, any_case: bool = False) -> str:
        """A canonical form for grouping equal behaviour: output by its tokens (lower-cased where the statement
        accepts any letter case); a value by its encoding (the arguments as the call left them where it returned
        nothing)."""
        if self.status != "ok":
            return f"<{self.status}>"
        if self.printed:
            tokens = " ".join(self.output.split())
            return tokens.lower() if any_case else tokens
        return json.dumps(_canonical(self.value if self.value is not None else self.after), sort_keys=True)


def _canonical(value: object) -> object:
    """Encoded, with reals rounded to 9 significant digits and tuples as lists (as a statement's JSON)."""
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    if isinstance(value, set | frozenset):
        return {"$set": sorted(json.dumps(_canonical(v), sort_keys=True) for v in value)}
    if isinstance(value, dict):
        return {"$dict": sorted(json.dumps([_canonical(k), _canonical(v)], sort_keys=True) for k, v in value.items())}
    return encode(value)


@dataclass(frozen=True)
class Observations:
    observed: list[Observed]
    load_error: str | None
    duration_s: float
    cpu_s: float | None = None


async def run_reported(pool: SandboxPool, program: Program) -> tuple[list[tuple[str, str]], str | None, float]:
    """One sandbox run of `program`: each case's (status, message), the load error, the run's time."""
    run = await pool.run(program.command, files=program.files, limits=program.limits)
    cases, load_error = read_report(program, run)
    if load_error is None and run.timed_out and all(c.status == "not_run" for c in cases):
        load_error = "the run was killed before it reported (a time limit)"
    return [(c.status, c.message) for c in cases], load_error, run.duration_s


async def observe_stdin(
    pool: SandboxPool, language: Language, code: str, inputs: list[str], case_timeout_s: float = CASE_TIMEOUT_S
) -> Observations:
    """Each input's printed output, from one sandbox run (built once) of the candidate's program; the inputs
    after `STOP_AFTER_TIMEOUTS` timeouts are `not_run`."""
    tests: list[str | IOTest] = [IOTest(input=i, output="") for i in inputs]
    program = capturing(language.program(code, tests, None, case_timeout_s), STOP_AFTER_TIMEOUTS)
    results, load_error, duration = await run_reported(pool, program)
    observed = [
        Observed("ok", output=message, printed=True)
        if status == "passed"
        else Observed(observed_status(status), message=message)
        for status, message in results
    ]
    return Observations(observed, load_error, duration)


def observed_status(case_status: str) -> Status:
    """What a report's case status (`passed` aside) says a run did."""
    return "timeout" if case_status == "timeout" else "not_run" if case_status == "not_run" else "error"
