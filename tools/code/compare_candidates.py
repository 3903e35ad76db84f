"""Differential testing in three steps, each testable alone: gather the inputs (the statement's examples, their
variations, values typed from the signature, a generator the judge's model writes), run every candidate's
program on them, and compare what they gave (where outputs differ, which candidates agree everywhere, who passes
the examples). `tools/differential_test.py` is the tool that strings them together."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from judgegraph.errors import ToolFailure
from judgegraph.sandboxes import SandboxPool
from judgegraph.settings import GENERATED_CASE_TIMEOUT_S
from judgegraph.tools._base import ToolContext
from judgegraph.tools.code.calls import calling, observe_function
from judgegraph.tools.code.candidate_code import CandidateCode
from judgegraph.tools.code.disagreements import (
    DifferentialResult,
    Disagreement,
    cut,
    exact_input,
    shown_output,
)
from judgegraph.tools.code.examples import example_outcome
from judgegraph.tools.code.inputs import call_inputs, from_signature, stdin_inputs
from judgegraph.tools.code.model_inputs import model_inputs
from judgegraph.tools.code.observe import Observations, Observed, observe_stdin, shown_args
from judgegraph.tools.code.statement import Statement

VARIED = 30
"""Inputs varied from the examples or typed from the signature, at most; a model's generator adds up to 10."""
SHOWN_DISAGREEMENTS = 5
"""Disagreements the tool's text shows (the result keeps four times as many)."""


@dataclass(frozen=True)
class Inputs:
    """What every candidate runs on: the examples' inputs first, then the generated ones (the model's last)."""

    style: Literal["call", "stdin"]
    runs: Sequence[str] | Sequence[tuple[object, ...]]
    """Standard inputs (stdin style) or each call's arguments (call style), in order."""
    shown: list[str]
    """Each input as a result quotes it."""
    examples: int
    """How many of them are the statement's examples' own."""
    written: int
    """How many of them (the last) a generator the judge's model wrote gave."""
    function: str | None = None
    """Call style: the function the candidates share (None: each one's own entry point)."""

    @property
    def generated(self) -> int:
        return len(self.runs) - self.examples


async def gather_inputs(
    ctx: ToolContext, statement: Statement, codes: list[CandidateCode], present: list[int], function: str | None
) -> Inputs:
    """The inputs to run: standard inputs where the statement reads them (or no function is shared), else calls
    of the shared function. A ToolFailure where nothing can be generated."""
    request, examples = ctx.request, statement.examples
    if statement.style == "stdin" or (statement.style is None and function is None):
        if not examples and ctx.model is None:
            raise ToolFailure("no examples, no function to call and no model to write a generator: nothing to vary")
        # without samples, only the model's generator writes inputs (from the statement's input format)
        shown = [e.stdin or "" for e in examples]
        varied = stdin_inputs(shown, request.prompt)[:VARIED]
        written = [w for w in await model_inputs(ctx, "stdin", None, None) if isinstance(w, str)]
        runs = shown + varied + written
        inputs = Inputs("stdin", runs, runs, len(examples), len(written))
    else:
        for i in present:
            calling(codes[i].language)  # a NotCallable (a ToolFailure) for a language whose calls are not run
        example_args = [e.args for e in examples]
        generated_args = call_inputs(example_args, request.prompt) if examples else []
        if len(generated_args) < 10 and function is not None:
            for source in [request.prompt] + [codes[i].code or "" for i in present]:
                generated_args += from_signature(source, function)
                if generated_args:
                    break
        arities = {len(a) for a in example_args}
        arity = arities.pop() if len(arities) == 1 else None
        written_args = [w for w in await model_inputs(ctx, "call", function, arity) if isinstance(w, tuple)]
        calls: list[tuple[object, ...]] = example_args + generated_args[:VARIED] + written_args
        shown_calls = [shown_args(a) for a in calls]
        inputs = Inputs("call", calls, shown_calls, len(examples), len(written_args), function)
    if not inputs.generated:
        raise ToolFailure("no inputs could be generated from the statement, the signature or a generator")
    return inputs


async def run_candidates(
    pool: SandboxPool, statement: Statement, codes: list[CandidateCode], present: list[int], inputs: Inputs
) -> tuple[dict[int, list[Observed]], float]:
    """Every present candidate's program on every input (concurrently): what each gave, one per input (a program
    that did not load gives its error throughout; one stopped after its timeouts, `not_run` for the rest), and
    the runs' total time."""

    async def observe(c: CandidateCode) -> Observations:
        assert c.code is not None
        if inputs.style == "stdin":
            return await observe_stdin(pool, c.language, c.code, list(map(str, inputs.runs)), GENERATED_CASE_TIMEOUT_S)
        calls = [tuple(a) for a in inputs.runs]
        return await observe_function(
            pool, c.language, c.code, c.entry, statement, inputs.function, calls, GENERATED_CASE_TIMEOUT_S
        )

    runs = await asyncio.gather(*(observe(codes[i]) for i in present))
    n = len(inputs.runs)
    observed: dict[int, list[Observed]] = {}
    for i, run in zip(present, runs, strict=True):
        if run.load_error is not None:
            observed[i] = [Observed("error", message=run.load_error)] * n
        else:
            observed[i] = run.observed + [Observed("not_run")] * (n - len(run.observed))
    return observed, sum(r.duration_s for r in runs)


def compare_runs(
    statement: Statement,
    candidates: int,
    inputs: Inputs,
    observed: dict[int, list[Observed]],
    duration_s: float,
) -> DifferentialResult:
    """What the runs show: the generated inputs on which the candidates' outputs differ (an input no candidate
    accepts is most likely not a valid one, and is left out), the groups of candidates that agree on every input,
    and whether each passes the statement's examples."""
    present = sorted(observed)
    first_written = len(inputs.runs) - inputs.written
    disagreements = []
    for k in range(inputs.examples, len(inputs.runs)):
        row = [o for i in present if (o := observed[i][k]).status != "not_run"]  # stopped after its timeouts
        if len(row) < 2 or all(o.status != "ok" for o in row):
            continue
        if len({o.key(statement.any_case) for o in row}) > 1:
            outputs = [shown_output(observed[i][k]) if i in observed else "<no code>" for i in range(candidates)]
            origin: Literal["varied", "model"] = "model" if k >= first_written else "varied"
            shown, value = cut(inputs.shown[k]), exact_input(inputs.runs[k])
            disagreements.append(Disagreement(input=shown, value=value, outputs=outputs, origin=origin))
    groups: dict[tuple[str, ...], list[int]] = {}
    for i in present:
        groups.setdefault(tuple(o.key(statement.any_case) for o in observed[i]), []).append(i)
    passes = [
        _example_passes(statement, observed[i][: inputs.examples]) if i in observed else None for i in range(candidates)
    ]
    return DifferentialResult(
        style=inputs.style,
        inputs_tried=inputs.generated,
        model_inputs=inputs.written,
        disagreements=disagreements[: SHOWN_DISAGREEMENTS * 4],
        disagreement_count=len(disagreements),
        groups=sorted(groups.values(), key=lambda g: (-len(g), g)),
        passes_examples=passes,
        no_code=[i for i in range(candidates) if i not in observed],
        duration_s=duration_s,
    )


def _example_passes(statement: Statement, observed: list[Observed]) -> bool | None:
    decided = [
        example_outcome(example, o, statement.tolerance, statement.any_case)[0] in ("passed", "unsure")
        for example, o in zip(statement.examples, observed, strict=False)
        if example.decisive
    ]
    return all(decided) if decided else None
