"""The agentic judge: think -> call tools -> observe -> rule, per candidate order, with budgets and a forced verdict."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from benchmarks.fake_openai import FakeOpenAI, Reply, prefers
from judgegraph import Judge
from judgegraph.agents import judges
from judgegraph.evals._metrics import Outcome, metrics
from judgegraph.schema import ModelTurn, ToolCallEvent

MATH = {"id": "m", "prompt": "6*7?", "candidates": ["It is 41.", "6*7 = 42"], "reference": "42", "label": {"winner": 1}}
AB_THEN_BA = ["intake", "agent", "act", "agent", "close_order", "agent", "act", "agent", "close_order", "finalize"]


def _server(owned_by: str) -> FakeOpenAI:
    return FakeOpenAI(owned_by=owned_by).start()


async def _run(server: FakeOpenAI, request: dict[str, Any], tmp_path: Path, judge: str = "agentic", **kw: Any):  # type: ignore[no-untyped-def]
    async with Judge.load(judge, store=tmp_path / "r.db", model_url=server.url, max_retries=0, **kw) as j:
        return await j.arun(request)


async def test_native_tool_calls_in_both_orders_share_the_evidence(tmp_path: Path) -> None:
    server = _server("vllm")
    verdict = prefers("6*7 = 42")

    def respond(body: dict[str, Any]) -> Reply:
        if any(m["role"] == "tool" for m in body["messages"]):
            return verdict(body)
        return Reply(
            tool_calls=[("match_reference", '{"candidate": 0}'), ("match_reference", '{"candidate": 1}')],
            finish_reason="tool_calls",
        )

    server.responder = respond
    try:
        t = await _run(server, MATH, tmp_path)
    finally:
        server.stop()
    assert t.path == AB_THEN_BA
    v = t.verdict
    assert v is not None and v.valid and v.winner == 1 and v.consistent and t.correct
    assert len(t.tool_results()) == 2  # the second order reused the first's results: no tool ran twice
    assert [e.call.source for e in t.events if isinstance(e, ToolCallEvent)] == ["model", "model"]
    first = server.requests[0]
    # Only what the evidence allows, and the verdict as a function: under "required", every turn is a valid call.
    assert [tool["function"]["name"] for tool in first["tools"]] == ["match_reference", "submit_verdict"]
    assert first["tool_choice"] == "required"
    assert first["tools"][1]["function"]["parameters"]["properties"]["winner"]["enum"] == ["A", "B", "tie"]
    function = first["tools"][0]["function"]
    assert function["strict"] is True and function["parameters"]["properties"]["candidate"]["enum"] == [0, 1]
    # Both candidates checked: the verdict is all that is left to say; the tools stay as the prompt began.
    assert server.requests[1]["tools"] == first["tools"]
    assert server.requests[1]["tool_choice"] == {"type": "function", "function": {"name": "submit_verdict"}}
    ba_tool_messages = [m["content"] for m in server.requests[3]["messages"] if m["role"] == "tool"]
    assert "response A" in ba_tool_messages[0] and " matches" in ba_tool_messages[0]  # named as the model sees them


async def test_a_model_that_repeats_a_call_is_asked_for_its_verdict(tmp_path: Path) -> None:
    server = _server("vllm")
    verdict = prefers("6*7 = 42")

    def respond(body: dict[str, Any]) -> Reply:
        if body.get("tool_choice") == "required":
            return Reply(tool_calls=[("match_reference", '{"candidate": 1}')], finish_reason="tool_calls")
        return verdict(body)

    server.responder = respond
    try:
        t = await _run(server, {**MATH, "id": "m-repeat"}, tmp_path)
    finally:
        server.stop()
    # Each order: a call, the same call again (answered from the cache), then the verdict function is named.
    assert t.path.count("act") == 4 and t.path.count("force_verdict") == 0
    assert [r["tool_choice"] for r in server.requests[:3]] == [
        "required",
        "required",
        {
            "type": "function",
            "function": {"name": "submit_verdict"},
        },
    ]
    assert t.verdict is not None and t.verdict.valid and t.verdict.winner == 1


async def test_a_native_verdict_call_rules_and_ends_the_order(tmp_path: Path) -> None:
    server = _server("vllm")

    def respond(body: dict[str, Any]) -> Reply:
        text = body["messages"][1]["content"]
        winner = "B" if text.index("It is 41.") < text.index("6*7 = 42") else "A"
        args = json.dumps({"winner": winner, "confidence": 0.9, "rationale": "42 is right"})
        return Reply(tool_calls=[("submit_verdict", args), ("match_reference", '{"candidate": 0}')])

    server.responder = respond
    try:
        t = await _run(server, MATH, tmp_path)
    finally:
        server.stop()
    assert t.path == [
        "intake",
        "agent",
        "close_order",
        "agent",
        "close_order",
        "finalize",
    ]  # the call beside it never ran
    v = t.verdict
    assert v is not None and v.valid and v.winner == 1 and v.consistent and not t.tool_results()


async def test_json_actions_where_the_backend_has_no_tool_parser(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    replies = iter(
        [
            Reply(content=json.dumps({"action": "call", "tool": "match_reference", "arguments": {"candidate": 1}})),
            Reply(content=json.dumps({"action": "call", "tool": "no_such_tool", "arguments": {}})),
            Reply(content=json.dumps({"action": "verdict", "winner": "B", "confidence": 0.8, "rationale": "checked"})),
            Reply(content=json.dumps({"action": "verdict", "winner": "A", "confidence": 0.8, "rationale": "same"})),
        ]
    )
    fake_openai.responder = lambda body: next(replies)
    t = await _run(fake_openai, MATH, tmp_path, backend="llama_cpp")
    assert t.path == [
        "intake",
        "agent",
        "act",
        "agent",
        "act",
        "agent",
        "close_order",
        "agent",
        "close_order",
        "finalize",
    ]
    assert t.verdict is not None and t.verdict.winner == 1 and t.verdict.decided_by == "model" and t.verdict.consistent
    sent = fake_openai.requests[0]
    assert "tools" not in sent

    def offered(request: dict[str, Any]) -> dict[str, list[int]]:
        """tool -> candidate positions the action schema lets the model name."""
        alternatives = request["response_format"]["schema"]["anyOf"]
        calls = [a["properties"] for a in alternatives if a["properties"]["action"]["const"] == "call"]
        assert [a["properties"]["action"]["const"] for a in alternatives][-1] == "verdict"
        return {c["tool"]["const"]: c["arguments"]["properties"]["candidate"]["enum"] for c in calls}

    # Only the tool the evidence allows, only candidates the request has; a candidate checked once in this
    # order's conversation is not offered again.
    assert offered(fake_openai.requests[0]) == {"match_reference": [0, 1]}
    assert offered(fake_openai.requests[1]) == {"match_reference": [0]}
    assert offered(fake_openai.requests[3]) == {"match_reference": [0, 1]}  # the second order starts afresh
    unknown = t.tool_results()[1]
    assert not unknown.ok and unknown.error_kind == "unknown_tool"
    assert "Result of no_such_tool" in fake_openai.requests[2]["messages"][-1]["content"]
    # The eval metrics: one of the model's two calls was refused; it chose the tool the reference needs.
    outcome = Outcome.of("m", "math", True, t, None)
    assert (outcome.model_calls, outcome.invalid_calls, outcome.tool_choice) == (2, 1, True)
    assert metrics([outcome]).tool_call_validity == 0.5 and metrics([outcome]).tool_choice == 1.0


async def test_tool_budget_forces_the_verdict(tmp_path: Path) -> None:
    base = judges.get("agentic")
    judges.register(
        "agentic_tight",
        base.model_copy(update={"name": "agentic_tight", "options": {**base.options, "max_tool_calls": 2}}),
        replace=True,
    )
    server = _server("vllm")
    verdict = prefers("6*7 = 42")

    def respond(body: dict[str, Any]) -> Reply:
        if body.get("tool_choice") == "required":
            return Reply(tool_calls=[("match_reference", '{"candidate": 0}')], finish_reason="tool_calls")
        return verdict(body)  # the forced call: the verdict function named (the fake answers as vLLM does)

    server.responder = respond
    try:
        t = await _run(server, MATH, tmp_path, judge="agentic_tight")
    finally:
        server.stop()
    assert t.path[:7] == ["intake", "agent", "act", "agent", "act", "force_verdict", "close_order"]
    assert t.path.count("force_verdict") == 2 and t.path[-1] == "finalize"
    forced = [r for r in server.requests if isinstance(r.get("tool_choice"), dict)]
    assert len(forced) == 2 and "budget for tool calls is spent" in forced[0]["messages"][-1]["content"]
    assert forced[0]["tools"] == server.requests[0]["tools"]  # the prompt's functions never change
    assert forced[0]["tool_choice"]["function"]["name"] == "submit_verdict"
    assert t.verdict is not None and t.verdict.valid and t.verdict.winner == 1


async def test_a_model_that_never_rules_ends_invalid_within_its_budget(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.default = Reply(content="Let me think about it some more.")
    t = await _run(fake_openai, {**MATH, "reference": None}, tmp_path)
    v = t.verdict
    steps = judges.get("agentic").options["max_steps"]
    assert v is not None and not v.valid and v.scores == [] and "no usable verdict" in (v.error or "")
    assert t.path.count("agent") == 2 * steps and t.path.count("force_verdict") == 2 and t.path[-1] == "finalize"
    assert len([e for e in t.events if isinstance(e, ModelTurn)]) == 2 * (steps + 2)


async def test_a_judgment_past_its_budget_stops_with_an_invalid_verdict_that_says_so(tmp_path: Path) -> None:
    from judgegraph.schema import ErrorEvent
    from judgegraph.store import TrajectoryStore

    server = _server("vllm")
    server.default = Reply(content="late", delay_s=2.0)
    try:
        start = time.perf_counter()
        t = await _run(server, MATH, tmp_path, budget_s=0.5, timeout_s=30)
        took = time.perf_counter() - start
    finally:
        server.stop()
    assert took < 1.5  # cut at the budget, not after the model's 30 s timeout
    v = t.verdict
    assert v is not None and not v.valid and v.error and "budget of 0.5 s" in v.error and v.scores == []
    assert t.status == "incomplete" and isinstance(t.events[-1], ErrorEvent) and t.events[-1].kind == "budget"
    stored = TrajectoryStore(tmp_path / "r.db").get(t.id)
    assert stored.status == "incomplete" and stored.verdict == v


async def test_the_task_lists_the_documents_a_page_read_can_name(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """A model that is not held to the action schema can still name an existing document and page: the task
    lists each document's id and its pages where known without reading a file. Without documents, no list."""
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(b"%PDF-1.4")  # listed by id only: its pages are known once it is read
    request = {
        "id": "d",
        "prompt": "How long is the bridge?",
        "candidates": ["It is 40 metres long.", "It is 90 metres long."],
        "documents": [
            {"id": "notes", "text": "The bridge is 40 metres long."},
            {"id": "varn-guide", "pages": ["The Varn Bridge.", "Its figures: 40 metres long.", "Visitors."]},
            {"id": "report", "path": str(pdf)},
        ],
    }
    verdict = Reply(content=json.dumps({"action": "verdict", "winner": "A", "confidence": 0.5, "rationale": "r"}))
    fake_openai.responder = lambda body: verdict
    await _run(fake_openai, request, tmp_path, backend="llama_cpp")
    task = fake_openai.requests[0]["messages"][1]["content"]
    assert "\nDocuments: notes (1 page), varn-guide (3 pages), report.\nTools you may call: retrieve," in task
    await _run(fake_openai, MATH, tmp_path, backend="llama_cpp")
    assert "Documents:" not in fake_openai.requests[-1]["messages"][1]["content"]


async def test_the_python_tool_runs_the_models_programs_up_to_its_limit(tmp_path: Path) -> None:
    """No tests and no reference: the agent writes programs (TIR-Judge); the fourth call of a judgment is refused
    with a result that says why, recorded like any call, and the tool is not offered again."""
    server = _server("vllm")
    # neither response commits to a final answer (a phrase, a box, a number alone): no derived reference to offer
    candidates = ["Picking in order: 720 ways.", "Order does not matter here: 120 ways."]
    request = {"id": "p", "prompt": "How many ways are there to choose 3 of 10 books?", "candidates": candidates}

    def respond(body: dict[str, Any]) -> Reply:
        ran = sum(m["role"] == "tool" for m in body["messages"])
        if ran < 4:  # a fourth call though the verdict was asked for (a server that does not hold to it)
            code = f"import math\nprint(math.comb(10, 3))  # try {ran}"  # a new program each time (a repeat is cached)
            return Reply(tool_calls=[("python", json.dumps({"code": code}))])
        return prefers("120")(body)

    server.responder = respond
    try:
        t = await _run(server, request, tmp_path, sandbox="process")
    finally:
        server.stop()
    assert [tool["function"]["name"] for tool in server.requests[0]["tools"]] == ["python", "submit_verdict"]
    results = [r for r in t.tool_results() if r.name == "python"]
    assert [r.ok for r in results][:4] == [True, True, True, False]  # the second order's calls are refused too
    assert all(r.error_kind == "limit" for r in results[3:])
    assert all(r.text.strip() == "output:\n120" for r in results[:3])
    assert results[3].error_kind == "limit" and "3 times a judgment" in (results[3].error or "")
    budget = [r.get("max_tokens", r.get("max_completion_tokens")) for r in server.requests]
    assert budget[:3] == [768] * 3 and budget[-1] == 200  # room for a program while python is offered
    asked = [r["tool_choice"] for r in server.requests]
    assert asked[:3] == ["required"] * 3 and all(c != "required" for c in asked[3:])  # spent: the verdict is next
    assert t.verdict is not None and t.verdict.winner == 1


def test_no_tool_asks_a_grammar_decoder_for_a_huge_repetition() -> None:
    """llama.cpp turns an action schema into a grammar; a `maxLength` of 20,000 became a rule of 20,000
    repetitions and the embedded server segfaulted on the first action. Every tool's constrained schema stays
    small enough to compile."""
    from judgegraph.schema import JudgeRequest
    from judgegraph.tools import tools

    request = JudgeRequest(id="x", prompt="p", candidates=["a", "b"])

    def bounds(node: Any) -> list[int]:
        if isinstance(node, dict):
            here = [v for k, v in node.items() if k in ("maxLength", "maxItems") and isinstance(v, int)]
            return here + [b for v in node.values() for b in bounds(v)]
        return [b for v in node for b in bounds(v)] if isinstance(node, list) else []

    for name in tools.names():
        schema = tools.get(name).argument_schema(request, described=False)
        assert all(b <= 2000 for b in bounds(schema)), (name, bounds(schema))


async def test_a_program_with_raw_tabs_in_its_json_action_still_runs(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """llama.cpp's JSON grammar lets a model leave a tab raw inside a string (a program's indentation): the
    action is still the one it meant, not an unusable reply."""
    code = "def f():\n\treturn 6 * 20\nprint(f())"
    replies = iter(
        [
            Reply(
                content='{"action": "call", "tool": "python", "arguments": {"code": "'
                + code.replace("\n", "\\n")
                + '"}}'
            ),
            Reply(content=json.dumps({"action": "verdict", "winner": "B", "confidence": 0.9, "rationale": "120"})),
        ]
    )
    fake_openai.responder = lambda body: next(replies, prefers("120")(body))
    request = {"id": "t", "prompt": "What is 5!?", "candidates": ["24", "120"]}
    t = await _run(fake_openai, request, tmp_path, backend="llama_cpp", sandbox="process")
    ran = [r for r in t.tool_results() if r.name == "python"]
    assert ran and ran[0].ok and ran[0].text.strip() == "output:\n120"
