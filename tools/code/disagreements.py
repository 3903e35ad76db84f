"""What differential testing speaks of: where it applies, which function the candidates' programs share, what
one disagreement and one run's result are, how an output is shown. Its engine (`compare_candidates`), the tool
(`differential_test`, in `tools/differential_test.py`) and the oracle check all read them."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from judgegraph.schema import JudgeRequest
from judgegraph.tools.code.calls import NotCallable, calling
from judgegraph.tools.code.candidate_code import CandidateCode, contains_code
from judgegraph.tools.code.literals import literal_call
from judgegraph.tools.code.observe import Observed
from judgegraph.tools.code.statement import Statement


class Disagreement(BaseModel):
    """An input on which the candidates' outputs differ."""

    provenance: Literal["disagreement"] = "disagreement"
    input: str
    """The input as a result quotes it (its first `SHOWN` characters)."""
    value: str = ""
    """The input itself, never cut: the standard input, or the call's arguments as Python literals (what the
    oracle runs on); empty where it is past `MAX_VALUE_CHARS` or is no literal."""
    outputs: list[str]
    """Each candidate's output (or its error), in candidate order."""
    origin: Literal["varied", "model"] = "varied"
    """Where the input came from: the statement's examples varied or values typed from the signature, or a
    generator the judge's model wrote."""


class DifferentialResult(BaseModel):
    """What `differential_test` found."""

    style: Literal["call", "stdin"]
    inputs_tried: int
    """Generated inputs run on every candidate (the examples' own inputs not counted)."""
    model_inputs: int = 0
    """How many of them a generator the judge's model wrote gave."""
    disagreements: list[Disagreement]
    disagreement_count: int
    groups: list[list[int]]
    """Candidates that gave the same output on every input, largest group first."""
    passes_examples: list[bool | None]
    """Per candidate: passed every decisive statement example (None: there were none)."""
    no_code: list[int] = Field(default_factory=list)
    duration_s: float = 0.0
    """Sandbox time of all the candidates' runs, added up."""


def differential_applies(request: JudgeRequest) -> bool:
    """A code request with no tests and at least two candidates that contain code."""
    if request.tests or len(request.candidates) < 2:
        return False
    return sum(contains_code(request, c.content) for c in request.candidates) >= 2


def _function(request: JudgeRequest, statement: Statement, codes: list[CandidateCode]) -> str | None:
    """The function every candidate is called through, where the statement names none: the one the prompt
    declares, else the one every candidate defines as its entry, else the one the first call example reaches in
    every candidate (LeetCode's unnamed examples, each answer read in its own language)."""
    declared = re.findall(r"def\s+(\w+)\s*\(", request.prompt)
    if declared:
        return str(declared[-1])
    present = [c for c in codes if c.code is not None]
    entries = {c.entry for c in present}
    if len(entries) == 1 and None not in entries:
        return entries.pop()
    reached = {_reached(statement, c) for c in present}
    return reached.pop() if len(reached) == 1 else None


def _reached(statement: Statement, found: CandidateCode) -> str | None:
    """The function or method the statement's first call example reaches in this candidate's code."""
    if statement.style != "call" or not statement.examples or found.code is None:
        return None
    try:
        target = calling(found.language).example_target(found.code, found.entry, statement, statement.examples[0])
    except NotCallable:
        return None
    return target.rpartition(".")[2] if target else None


def call_function(request: JudgeRequest, statement: Statement, codes: list[CandidateCode]) -> str | None:
    """The function (or method) the task is called through, or None where candidates are programs on stdin."""
    if statement.style == "stdin":
        return None
    named = next((e.function for e in statement.examples if e.function), None) or statement.method
    return named or _function(request, statement, codes)


def shown_output(o: Observed) -> str:
    text = o.output if o.printed else repr(o.answer)
    return cut(text if o.status == "ok" else f"<{o.status}: {o.message.strip()[-120:]}>")


def cut(text: str) -> str:
    """An input or output as a result quotes it: its first `SHOWN` characters."""
    return text if len(text) <= SHOWN else text[:SHOWN] + "..."


SHOWN = 200
MAX_VALUE_CHARS = 100_000
"""An input longer than this is not carried on to the oracle (a generated input is far smaller)."""


def exact_input(run: str | tuple[object, ...]) -> str:
    """An input as the oracle is given it: a standard input as it is, a call's arguments as the Python literals that
    read back to them (`literal_call`); empty where they do not, or where it is past `MAX_VALUE_CHARS`."""
    if isinstance(run, str):
        return run if len(run) <= MAX_VALUE_CHARS else ""
    text = ", ".join(repr(a) for a in run)
    if len(text) > MAX_VALUE_CHARS:
        return ""
    call = literal_call(f"f({text})")
    return text if call is not None and not call[2] and call[1] == run else ""
