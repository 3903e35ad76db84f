"""The registry's tools as LangChain tools, so they plug into LangGraph's prebuilt `ToolNode`."""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.tools import StructuredTool

from judgegraph.schema import ToolCall, ToolResult
from judgegraph.tools._base import ToolContext, ToolDef, call_tool, tools


def as_langchain_tool(spec: ToolDef, context: Callable[[], ToolContext]) -> StructuredTool:
    """`spec` as a StructuredTool: content is the text the model reads, the artifact the full `ToolResult`.

    Failures come back as results (never exceptions), exactly as in judgegraph's own graphs.
    """

    async def run(**arguments: object) -> tuple[str, ToolResult]:
        result = await call_tool(ToolCall(name=spec.name, arguments=arguments, source="model"), context())
        return result.text, result

    return StructuredTool.from_function(
        coroutine=run,
        name=spec.name,
        description=spec.description,
        args_schema=spec.args_model,
        response_format="content_and_artifact",
    )


def langchain_tools(names: list[str], context: Callable[[], ToolContext]) -> list[StructuredTool]:
    """Several registered tools as LangChain tools (e.g. `ToolNode(langchain_tools([...], ctx))`)."""
    return [as_langchain_tool(tools.get(n), context) for n in names]
