"""IFBench natively: its rows load as they are (an id outside IFEval's 25 is IFBench's) and are checked by the
official checker's code, agreeing with the official evaluation of the same rows (benchmarks/real_data.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgegraph.schema import JudgeRequest, ToolCall
from judgegraph.schema.ifbench import IFBenchInstruction, ifbench_checkers
from judgegraph.schema.ifeval import IFEvalInstruction
from judgegraph.tools import ToolContext, call_tool


def test_ifbench_rows_load_as_they_are(shared_data: Path) -> None:
    rows = [json.loads(line) for line in (shared_data / "ifbench" / "IFBench_test.jsonl").read_text().splitlines()]
    requests = [JudgeRequest.model_validate({**row, "response": "Hi."}) for row in rows]
    assert len(requests) == 294 and requests[0].id == str(rows[0]["key"])
    rules = [c for r in requests for c in r.constraints]
    assert all(isinstance(c, IFBenchInstruction) for c in rules)
    instructions = [c for c in rules if isinstance(c, IFBenchInstruction)]
    assert len(rules) == sum(len(row["instruction_id_list"]) for row in rows)
    assert {c.instruction_id for c in instructions} <= set(ifbench_checkers()) and len(ifbench_checkers()) == 58
    assert all(c.prompt == r.prompt for r in requests for c in r.constraints if isinstance(c, IFBenchInstruction))


def test_ifeval_and_ifbench_ids_in_one_row_each_go_to_their_own_checker() -> None:
    request = JudgeRequest.model_validate(
        {
            "prompt": "Write about cats.",
            "response": "x",
            "instruction_id_list": ["change_case:english_lowercase", "count:word_count_range"],
            "kwargs": [{}, {"min_words": 1, "max_words": 12}],
        }
    )
    ifeval, ifbench = request.constraints
    assert isinstance(ifeval, IFEvalInstruction) and isinstance(ifbench, IFBenchInstruction)
    text = "the cat sat on the warm mat and watched the birds outside"
    assert ifeval.check(text).passed and ifbench.check(text).passed
    assert not ifeval.check(text.title()).passed and not ifbench.check(text + " all day long").passed
    with pytest.raises(ValueError, match="unknown IFBench instruction 'count:nonsense'"):
        JudgeRequest.model_validate(
            {"prompt": "p", "response": "r", "instruction_id_list": ["count:nonsense"], "kwargs": [{}]}
        )


@pytest.mark.parametrize("loose", [False, True], ids=["strict", "loose"])
def test_checks_agree_with_the_official_evaluation_on_real_responses(shared_data: Path, loose: bool) -> None:
    from benchmarks.real_data import ifbench_agreement

    agreement, unchecked = ifbench_agreement(shared_data, loose=loose)
    assert agreement.checked + unchecked == 335 and unchecked <= 25
    assert agreement.share == 1.0, agreement.disagreements
    assert 0 < agreement.positives < agreement.checked  # both sides of the rules are exercised


async def test_verify_constraints_decides_an_ifbench_pair() -> None:
    request = JudgeRequest.model_validate(
        {
            "id": "ifbench-pair",
            "prompt": "Describe a river.",
            "candidates": ["A river runs to the sea.", "A river, wide and slow, runs past the old mill to the sea."],
            "instruction_id_list": ["count:word_count_range"],
            "kwargs": [{"min_words": 3, "max_words": 8}],
        }
    )
    ctx = ToolContext(request=request)
    results = [await call_tool(ToolCall(name="verify_constraints", arguments={"candidate": k}), ctx) for k in (0, 1)]
    assert [r.data["passed"] == r.data["total"] for r in results if r.data] == [True, False], [r.text for r in results]
