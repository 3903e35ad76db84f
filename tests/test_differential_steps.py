"""Differential testing's three steps, each alone: gathering the inputs (no model: the statement's examples
varied), running the candidates (a real sandbox), and comparing what they gave (pure)."""

from __future__ import annotations

from pathlib import Path

from judgegraph.schema import JudgeRequest
from judgegraph.tools import ToolServices
from judgegraph.tools._base import ToolContext
from judgegraph.tools.code.candidate_code import candidate_code
from judgegraph.tools.code.compare_candidates import Inputs, compare_runs, gather_inputs, run_candidates
from judgegraph.tools.code.disagreements import call_function
from judgegraph.tools.code.observe import Observed
from judgegraph.tools.code.statement import read_statement

STATEMENT = (
    "Given two integers a and b, return their sum.\n\nExample 1:\nInput: a = 2, b = 3\nOutput: 5\n\n"
    "class Solution:\n    def addTwo(self, a: int, b: int) -> int:\n"
)
RIGHT = "```python\nclass Solution:\n    def addTwo(self, a, b):\n        return a + b\n```"
LOOKUP = "```python\nclass Solution:\n    def addTwo(self, a, b):\n        return {(2, 3): 5}.get((a, b), 0)\n```"


def _request(*candidates: str) -> JudgeRequest:
    return JudgeRequest.model_validate(
        {"id": "d", "mode": "pointwise", "prompt": STATEMENT, "candidates": list(candidates)}
    )


async def test_inputs_are_the_examples_then_their_variations(tmp_path: Path) -> None:
    request = _request(RIGHT, LOOKUP)
    statement = read_statement(request.prompt)
    codes = [candidate_code(request, c.content) for c in request.candidates]
    inputs = await gather_inputs(
        ToolContext(request=request), statement, codes, [0, 1], call_function(request, statement, codes)
    )
    assert inputs.style == "call" and inputs.examples == 1 and inputs.runs[0] == (2, 3)
    assert inputs.generated >= 5 and inputs.written == 0  # no model: no generator
    assert len(inputs.shown) == len(inputs.runs)


def test_comparing_finds_where_outputs_differ_and_who_agrees() -> None:
    statement = read_statement(STATEMENT)
    inputs = Inputs("call", [(2, 3), (1, 1), (0, 0), (4, 4)], ["2, 3", "1, 1", "0, 0", "4, 4"], examples=1, written=1)
    ok = [Observed("ok", value=v) for v in (5, 2, 0, 8)]
    lookup = [Observed("ok", value=v) for v in (5, 0, 0, 0)]
    result = compare_runs(statement, 3, inputs, {0: ok, 1: list(ok), 2: lookup}, 0.5)
    assert result.disagreement_count == 2 and [d.input for d in result.disagreements] == ["1, 1", "4, 4"]
    assert [d.origin for d in result.disagreements] == ["varied", "model"]  # the last input was the model's
    assert result.groups == [[0, 1], [2]] and result.passes_examples == [True, True, True]
    assert result.inputs_tried == 3 and result.no_code == []
    crashed = [Observed("error", message="boom")] * 4
    assert compare_runs(statement, 2, inputs, {0: crashed, 1: crashed}, 0.0).disagreement_count == 0


async def test_running_gives_each_candidate_one_observation_per_input(tmp_path: Path) -> None:
    request = _request(RIGHT, LOOKUP)
    statement = read_statement(request.prompt)
    codes = [candidate_code(request, c.content) for c in request.candidates]
    inputs = Inputs("call", [(2, 3), (10, 20)], ["2, 3", "10, 20"], examples=1, written=0, function="addTwo")
    services = ToolServices(sandbox="process")
    try:
        observed, _ = await run_candidates(await services.sandbox(), statement, codes, [0, 1], inputs)
    finally:
        await services.aclose()
    assert [o.value for o in observed[0]] == [5, 30] and [o.value for o in observed[1]] == [5, 0]


def test_a_long_input_reaches_the_oracle_whole() -> None:
    """A disagreement's input is quoted cut at 200 characters, and carried whole (`value`): the oracle runs on the
    input itself, a long one included, never on its display text parsed back."""
    from judgegraph.schema import ToolResult
    from judgegraph.tools.code.disagreements import SHOWN, DifferentialResult, Disagreement, cut, exact_input
    from judgegraph.tools.oracle_check import follow_oracle

    long_call = (list(range(200)), "x" * 50)
    long_stdin = "200\n" + " ".join(map(str, range(200))) + "\n"
    values = [exact_input(long_call), exact_input(long_stdin)]
    assert all(len(v) > SHOWN for v in values) and values[1] == long_stdin
    found = [Disagreement(input=cut(v), value=v, outputs=["1", "2"]) for v in values]
    assert all(d.input.endswith("...") for d in found)
    data = DifferentialResult(
        style="call",
        inputs_tried=2,
        disagreements=found,
        disagreement_count=2,
        groups=[[0], [1]],
        passes_examples=[True, True],
    )
    result = ToolResult(call_id="c", name="differential_test", ok=True, data=data.model_dump())
    calls = follow_oracle(_request(RIGHT, LOOKUP), [result])
    assert [c.arguments["inputs"] for c in calls] == [values, values]
    assert exact_input((float("nan"),)) == ""  # no literal reads back to it: not carried
