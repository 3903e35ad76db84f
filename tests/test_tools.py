from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from judgegraph.schema import JudgeRequest, ToolCall
from judgegraph.tools import ToolContext, ToolFailure, ToolOutput, call_tool, tool, tools


class _Args(BaseModel):
    n: int


@tool("test_slow", timeout_s=0.05)
async def _slow(args: _Args, ctx: ToolContext) -> ToolOutput:
    """Sleeps."""
    await asyncio.sleep(5)
    return ToolOutput(text="never")


@tool("test_buggy")
async def _buggy(args: _Args, ctx: ToolContext) -> ToolOutput:
    """Raises."""
    raise ZeroDivisionError("division by zero")


@tool("test_chatty", max_output_chars=10)
async def _chatty(args: _Args, ctx: ToolContext) -> ToolOutput:
    """Talks a lot."""
    return ToolOutput(text="x" * args.n)


@tool("test_refuses")
async def _refuses(args: _Args, ctx: ToolContext) -> ToolOutput:
    """Refuses."""
    raise ToolFailure("no such thing")


CTX = ToolContext(request=JudgeRequest(id="r", prompt="What is 6*7?", candidates=["It is 42.", ":"], reference="42"))


async def test_match_reference_reports_per_candidate() -> None:
    ok = await call_tool(ToolCall(name="match_reference", arguments={"candidate": 0}), CTX)
    assert ok.ok and ok.data is not None and ok.data["equivalent"] is True and ok.data["extracted"] == "It is 42"
    bad = await call_tool(ToolCall(name="match_reference", arguments={"candidate": 1}), CTX)
    assert bad.ok and bad.data is not None and bad.data["equivalent"] is False and bad.data["method"] == "none"


@pytest.mark.parametrize(
    ("call", "kind", "fragment"),
    [
        (ToolCall(name="nope"), "unknown_tool", "known:"),
        (ToolCall(name="match_reference", arguments={"candidate": "first"}), "invalid_arguments", "candidate"),
        (ToolCall(name="match_reference", arguments={"candidate": 9}), "execution", "does not exist"),
        (ToolCall(name="test_slow", arguments={"n": 1}), "timeout", "longer than"),
        (ToolCall(name="test_buggy", arguments={"n": 1}), "execution", "ZeroDivisionError"),
        (ToolCall(name="test_refuses", arguments={"n": 1}), "execution", "no such thing"),
    ],
)
async def test_failures_become_readable_results(call: ToolCall, kind: str, fragment: str) -> None:
    result = await call_tool(call, CTX)
    assert not result.ok
    assert result.error_kind == kind
    assert fragment in (result.error or "") and fragment in result.text
    assert result.call_id == call.id


async def test_tools_outside_the_allowed_set_are_unknown_to_the_judge() -> None:
    result = await call_tool(
        ToolCall(name="test_chatty", arguments={"n": 1}), CTX, allowed=frozenset({"match_reference"})
    )
    assert result.error_kind == "unknown_tool" and "match_reference" in (result.error or "")


async def test_output_is_capped_and_flagged() -> None:
    result = await call_tool(ToolCall(name="test_chatty", arguments={"n": 100}), CTX)
    assert result.ok and result.truncated and result.text.startswith("x" * 10) and "truncated" in result.text


def test_openai_spec_comes_from_the_argument_model_and_docstring() -> None:
    spec = tools.get("match_reference").openai_spec()
    fn = spec["function"]
    assert spec["type"] == "function" and fn["name"] == "match_reference"
    assert "reference answer" in fn["description"]
    assert fn["parameters"]["required"] == ["candidate"]
    assert fn["parameters"]["properties"]["candidate"]["minimum"] == 0


def test_registration_is_checked_when_defined() -> None:
    with pytest.raises(TypeError, match="async"):

        @tool("test_sync")  # type: ignore[arg-type]
        def _sync(args: _Args, ctx: ToolContext) -> ToolOutput:
            """Sync."""
            return ToolOutput(text="")

    with pytest.raises(TypeError, match="docstring"):

        @tool("test_undocumented")
        async def _undocumented(args: _Args, ctx: ToolContext) -> ToolOutput:
            return ToolOutput(text="")

    with pytest.raises(ValueError, match="already registered"):

        @tool("match_reference")
        async def _again(args: _Args, ctx: ToolContext) -> ToolOutput:
            """Again."""
            return ToolOutput(text="")


def test_planner_schedules_one_check_per_candidate_only_with_a_reference() -> None:
    plan = tools.get("match_reference").plan
    assert plan is not None
    assert [c.arguments for c in plan(CTX.request)] == [{"candidate": 0}, {"candidate": 1}]
    assert plan(CTX.request.model_copy(update={"reference": None, "prompt": "How many jars?"})) == []
    # without one, the value of the one computation the prompt asks for stands in (`math.asked`)
    assert len(plan(CTX.request.model_copy(update={"reference": None}))) == 2
