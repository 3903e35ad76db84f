"""The agentic judge: think -> call tools -> observe -> rule, with budgets and a forced verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judgegraph import Judge
from judgegraph.agents import judges
from judgegraph.types import ModelTurn, ToolCallEvent
from tests.fake_openai import FakeOpenAI, Reply

MATH = {"id": "m", "prompt": "What is 6*7?", "candidates": ["The answer is 41.", "6*7 = 42"], "reference": "42",
        "label": {"winner": 1}}  # fmt: skip
VERDICT_B = '{"winner": "B", "confidence": 0.9, "rationale": "B matches the reference"}'


def _server(owned_by: str) -> FakeOpenAI:
    return FakeOpenAI(owned_by=owned_by).start()


async def _run(server: FakeOpenAI, request: dict[str, Any], tmp_path: Path, judge: str = "agentic"):  # type: ignore[no-untyped-def]
    async with Judge.load(judge, store=tmp_path / "r.db", model_url=server.url, max_retries=0) as j:
        return await j.arun(request)


async def test_native_tool_calls_then_a_verdict(tmp_path: Path) -> None:
    server = _server("vllm")
    server.script = [
        Reply(
            tool_calls=[("match_reference", '{"candidate": 0}'), ("match_reference", '{"candidate": 1}')],
            finish_reason="tool_calls",
        ),
        Reply(content=VERDICT_B),
    ]
    try:
        t = await _run(server, MATH, tmp_path)
    finally:
        server.stop()
    assert t.path == ["intake", "agent", "act", "agent", "finalize"]
    v = t.verdict
    assert v is not None and v.valid and v.winner == 1 and t.correct
    first, second = server.requests
    assert [tool["function"]["name"] for tool in first["tools"]] == ["match_reference"]  # only what the evidence allows
    assert first["tool_choice"] == "auto"
    tool_messages = [m for m in second["messages"] if m["role"] == "tool"]
    assert len(tool_messages) == 2 and "matches the reference" in tool_messages[1]["content"]
    assert [e.call.source for e in t.events if isinstance(e, ToolCallEvent)] == ["model", "model"]


async def test_json_actions_where_the_backend_has_no_tool_parser(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    replies = iter(
        [
            Reply(content=json.dumps({"action": "call", "tool": "match_reference", "arguments": {"candidate": 1}})),
            Reply(content=json.dumps({"action": "call", "tool": "no_such_tool", "arguments": {}})),
            Reply(content=json.dumps({"action": "verdict", "winner": "B", "confidence": 0.8, "rationale": "checked"})),
        ]
    )
    fake_openai.responder = lambda body: next(replies)
    async with Judge.load("agentic", store=tmp_path / "r.db", model_url=fake_openai.url, backend="llama_cpp") as j:
        t = await j.arun(MATH)
    assert t.path == ["intake", "agent", "act", "agent", "act", "agent", "finalize"]
    assert t.verdict is not None and t.verdict.winner == 1 and t.verdict.decided_by == "model"
    sent = fake_openai.requests[0]
    assert "tools" not in sent and sent["response_format"]["schema"]["properties"]["tool"]["enum"] == [
        "match_reference"
    ]
    unknown = t.tool_results()[1]
    assert not unknown.ok and unknown.error_kind == "unknown_tool"
    assert "Result of no_such_tool" in fake_openai.requests[2]["messages"][-1]["content"]


async def test_tool_budget_forces_the_verdict(tmp_path: Path) -> None:
    base = judges.get("agentic")
    judges.register("agentic_tight", base.model_copy(update={"name": "agentic_tight", "max_tool_calls": 2}))
    server = _server("vllm")

    def respond(body: dict[str, Any]) -> Reply:
        if body.get("tools"):
            return Reply(tool_calls=[("match_reference", '{"candidate": 0}')], finish_reason="tool_calls")
        return Reply(content=VERDICT_B)  # the forced call: no tools, schema-constrained

    server.responder = respond
    try:
        t = await _run(server, MATH, tmp_path, judge="agentic_tight")
    finally:
        server.stop()
    assert t.path == ["intake", "agent", "act", "agent", "act", "force_verdict", "finalize"]
    assert "budget for tool calls is spent" in server.requests[-1]["messages"][-1]["content"]
    assert "tools" not in server.requests[-1] and server.requests[-1]["response_format"]["type"] == "json_schema"
    assert t.verdict is not None and t.verdict.valid and t.verdict.winner == 1


async def test_a_model_that_never_rules_ends_invalid_within_its_budget(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.default = Reply(content="Let me think about it some more.")
    t = await _run(fake_openai, {**MATH, "reference": None}, tmp_path)
    v = t.verdict
    assert v is not None and not v.valid and v.scores == [] and "no usable verdict" in (v.error or "")
    assert t.path.count("agent") == judges.get("agentic").max_steps and t.path[-2:] == ["force_verdict", "finalize"]
    assert len([e for e in t.events if isinstance(e, ModelTurn)]) == judges.get("agentic").max_steps + 2
