"""The rubric judge (OpenRS): gates, an adaptive rubric, criterion-wise comparisons in both orders, votes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.fake_openai import FakeOpenAI, Reply, prefers
from judgegraph import Judge

OPEN = {
    "id": "o",
    "prompt": "Explain recursion to a child.",
    "reference": "SECRET-REFERENCE",
    "candidates": ["A function that calls itself, like nesting dolls.", "Recursion is recursion."],
}
RUBRIC = {
    "criteria": [
        {"name": "clarity", "description": "easy to follow", "weight": 2},
        {"name": "accuracy", "description": "correct", "weight": 1},
    ]
}


def _responder(compare: Callable[[dict[str, Any]], Reply]) -> Callable[[dict[str, Any]], Reply]:
    def respond(body: dict[str, Any]) -> Reply:
        if body["response_format"]["json_schema"]["name"] == "rubric":
            return Reply(content=json.dumps(RUBRIC))
        return compare(body)

    return respond


async def _run(server: FakeOpenAI, request: dict[str, Any], tmp_path: Path):  # type: ignore[no-untyped-def]
    async with Judge.load("rubric", store=tmp_path / "r.db", model_url=server.url) as judge:
        return await judge.arun(request)


async def test_adaptive_rubric_compared_per_criterion_in_both_orders(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = _responder(prefers("nesting dolls"))
    t = await _run(fake_openai, OPEN, tmp_path)
    assert t.path[:2] == ["gate", "write_rubric"] and t.path.count("compare") == 4 and t.path[-1] == "aggregate"
    v = t.verdict
    assert v is not None and v.valid and v.winner == 0 and v.consistent and v.decided_by == "model"
    assert v.scores == [1.0, 0.0] and {c.name for c in v.criteria} == {"rubric: clarity", "rubric: accuracy"}
    writer = fake_openai.requests[0]["messages"][0]["content"]
    assert "Constitution v1" in writer and "SECRET-REFERENCE" not in writer  # the writer is denied the reference
    compares = [r["messages"][1]["content"] for r in fake_openai.requests[1:]]
    assert all(("clarity" in c) != ("accuracy:" in c) for c in compares)  # one criterion per comparison


async def test_disagreeing_orders_cast_no_vote(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = _responder(
        lambda body: Reply(content='{"winner": "A", "confidence": 1, "rationale": "first"}')
    )
    t = await _run(fake_openai, OPEN, tmp_path)
    v = t.verdict
    assert v is not None and v.valid and v.winner is None and v.consistent is False and v.scores == [0.5, 0.5]


async def test_constraints_are_hard_gates(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = _responder(prefers("nesting dolls"))  # the model likes the one that breaks the rule
    request = {**OPEN, "constraints": [{"kind": "no_commas"}]}
    t = await _run(fake_openai, request, tmp_path)
    v = t.verdict
    assert v is not None and v.winner == 1 and v.decided_by == "evidence"
    assert [r.name for r in t.tool_results()] == ["verify_constraints", "verify_constraints"]


async def test_a_response_that_says_nothing_passes_no_rubric(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = _responder(prefers("step by step"))  # the model is fooled by the master key
    request = {**OPEN, "candidates": ["Let's solve this problem step by step.", OPEN["candidates"][0]]}
    t = await _run(fake_openai, request, tmp_path)
    v = t.verdict
    assert v is not None and v.winner == 1 and v.decided_by == "evidence"
    gate = [c for c in v.criteria if c.name == "commits_to_something"]
    assert [(c.candidate, c.passed) for c in gate] == [(0, False)]


async def test_a_given_rubric_is_used_and_garbage_falls_back_to_the_constitution(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_openai.responder = prefers("nesting dolls")
    given = await _run(fake_openai, {**OPEN, "rubric": [{"name": "kindness", "description": "gentle tone"}]}, tmp_path)
    assert given.verdict is not None and {c.name for c in given.verdict.criteria} == {"rubric: kindness"}
    assert all(r["response_format"]["json_schema"]["name"] != "rubric" for r in fake_openai.requests)
    seen = len(fake_openai.requests)
    fake_openai.responder = lambda body: Reply(content="not json at all")
    broken = await _run(fake_openai, OPEN, tmp_path)
    v = broken.verdict
    assert v is not None and not v.valid and "no criterion could be compared" in (v.error or "")
    asked = [
        r["messages"][-1]["content"]
        for r in fake_openai.requests[seen:]
        if "ONE criterion" in r["messages"][-1]["content"]
    ]
    assert {a.split("ONE criterion only:\n")[1].split(":")[0] for a in asked} == {
        "correctness",
        "instructions",
        "helpfulness",
    }
