"""The registry's tools inside LangGraph's prebuilt ToolNode."""

from __future__ import annotations

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from judgegraph.schema import JudgeRequest, ToolResult
from judgegraph.tools import ToolContext, langchain_tools, tools

REQUEST = JudgeRequest(id="t", prompt="What is 6*7?", candidates=["It is 42.", "It is 41."], reference="42")


async def test_tool_node_runs_registry_tools_and_keeps_failures_readable() -> None:
    node = ToolNode(langchain_tools(tools.names(), lambda: ToolContext(request=REQUEST)))
    message = AIMessage(
        content="",
        tool_calls=[
            {"name": "match_reference", "args": {"candidate": 0}, "id": "c1", "type": "tool_call"},
            {"name": "match_reference", "args": {"candidate": 7}, "id": "c2", "type": "tool_call"},
        ],
    )
    graph = StateGraph(MessagesState).add_node("tools", node).add_edge(START, "tools").add_edge("tools", END).compile()
    out = await graph.ainvoke({"messages": [message]})
    first, second = out["messages"][1:]
    assert isinstance(first, ToolMessage) and first.tool_call_id == "c1" and "matches the reference" in first.content
    assert isinstance(first.artifact, ToolResult) and first.artifact.ok
    assert "does not exist" in second.content and isinstance(second.artifact, ToolResult) and not second.artifact.ok


def test_every_tool_exports_an_openai_spec() -> None:
    for name in tools.names():
        spec = tools.get(name).openai_spec()
        assert spec["function"]["name"] == name and spec["function"]["parameters"]["type"] == "object"
        assert spec["function"]["description"]
