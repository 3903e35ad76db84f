"""What the code-evidence tests share: a tool called on a request, a fenced answer, a fake model that
writes programs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from judgegraph.schema import JudgeRequest, ToolCall, ToolResult
from judgegraph.tools import ToolContext, ToolServices, call_tool


async def _call(services: ToolServices, request: dict[str, Any], name: str, **arguments: Any) -> ToolResult:
    ctx = ToolContext(request=JudgeRequest.model_validate({"id": "t", **request}), services=services)
    return await call_tool(ToolCall(name=name, arguments=arguments), ctx)


def _fenced(code: str, lang: str = "python") -> str:
    return f"```{lang}\n{code}\n```"


def scripted(marker: str, programs: Iterator[str]) -> Callable[[dict[str, Any]], Any]:
    """A fake model for a tool that asks the model for programs: a conversation whose system message holds
    `marker` gets the next program, fenced; any other (a ruling) a tie."""
    from benchmarks.fake_openai import Reply

    def respond(body: dict[str, Any]) -> Any:
        if marker in body["messages"][0]["content"]:
            return Reply(content=_fenced(next(programs)))
        return Reply(content='{"winner": "tie", "confidence": 0.1, "rationale": "unsure"}')

    return respond
