"""`judgegraph mcp`: the tools and the judge over the Model Context Protocol (the official SDK), on stdio or
streamable HTTP, for agent runtimes and RL environments that take their tools from MCP servers.

Every registered tool (plugins' too) is served as `{"request": JudgeRequest, "arguments": {...}}`: a tool works on
a request's evidence (its candidates, tests, documents, images). `judge` takes `{"request": JudgeRequest}` and
returns the verdict and the recorded trajectory's id. The reward server's rules hold: 127.0.0.1 by default, a
limit on calls in flight, a time limit per call, no files from the server's disk unless allowed, inputs validated
by the same models; bad input is a tool error that says what is wrong, an unknown tool an MCP error.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import hmac
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgegraph._version import __version__
from judgegraph.errors import field_problems
from judgegraph.runtime._judge import Judge
from judgegraph.schema import JudgeRequest, ToolCall
from judgegraph.serving._server import local_files
from judgegraph.tools import tools

if TYPE_CHECKING:
    import mcp_types
    from mcp.server import Server, ServerRequestContext
    from starlette.types import ASGIApp, Receive, Scope, Send

JUDGE_TOOL = "judge"


class MCPConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    max_concurrency: int = Field(default=16, ge=1)
    """Calls in flight; one more is refused as busy."""
    timeout_s: float = Field(default=300.0, gt=0)
    """Per call."""
    allow_local_files: bool = False
    """Accept image and document paths on the server's disk (off: a client could make the server read any file)."""


@functools.cache
def _request_schema() -> dict[str, Any]:
    return JudgeRequest.model_json_schema()


def _input_schema(arguments: dict[str, Any] | None) -> dict[str, Any]:
    """`{"request": JudgeRequest}` (+ the tool's arguments), with the request's definitions at the root."""
    request = copy.deepcopy(_request_schema())
    definitions = request.pop("$defs", {})
    properties: dict[str, Any] = {"request": request}
    if arguments is not None:
        properties["arguments"] = arguments
    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": sorted(properties)}
    if definitions:
        schema["$defs"] = definitions
    return schema


def _listing() -> list[mcp_types.Tool]:
    import mcp_types as types

    served = [
        types.Tool(
            name=JUDGE_TOOL,
            description="Judge a request (a prompt and its candidate responses, with any evidence: tests, a "
            "reference, constraints, documents, images): the verdict and the id of its recorded trajectory.",
            input_schema=_input_schema(None),
        )
    ]
    for name in tools.names():
        spec = tools.get(name).openai_spec()["function"]
        served.append(
            types.Tool(
                name=name,
                description=f"{spec['description']}\n\nCalled on `request` (its candidates and evidence) with "
                "`arguments`.",
                input_schema=_input_schema(spec["parameters"]),
            )
        )
    return served


def _error(message: str) -> mcp_types.CallToolResult:
    import mcp_types as types

    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def create_mcp_server(judge: Judge, config: MCPConfig | None = None) -> Server[Any]:
    """An MCP server over `judge` (opened by the caller) and the tool registry."""
    import mcp_types as types
    from mcp.server import Server
    from mcp.shared.exceptions import MCPError

    config = config or MCPConfig()
    limit = asyncio.Semaphore(config.max_concurrency)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        return types.ListToolsResult(tools=_listing())

    async def call_tool(ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams) -> Any:
        name, given = params.name, params.arguments or {}
        if name != JUDGE_TOOL and name not in tools:
            raise MCPError(types.INVALID_PARAMS, f"no tool {name!r}; known: {', '.join([JUDGE_TOOL, *tools])}")
        try:
            if "request" not in given:
                return _error("missing `request`: the JudgeRequest to work on (its prompt, candidates and evidence)")
            request = JudgeRequest.model_validate(given["request"])
        except ValidationError as e:
            return _error(f"invalid request: {field_problems(e, 'request')}")
        if not config.allow_local_files and (paths := local_files(request)):
            return _error(
                f"this server does not read files from its disk ({', '.join(paths[:3])}): send images as data: "
                "URIs and documents as text, or start it with --allow-local-files"
            )
        if limit.locked():
            return _error(f"busy: {config.max_concurrency} calls in flight; try again")
        async with limit:
            try:
                async with asyncio.timeout(config.timeout_s):
                    return await _call(name, request, given)
            except TimeoutError:
                return _error(f"{name} took longer than {config.timeout_s:g}s")

    async def _call(name: str, request: JudgeRequest, given: dict[str, Any]) -> mcp_types.CallToolResult:
        if name == JUDGE_TOOL:
            trajectory = await judge.arun(request)
            assert trajectory.verdict is not None
            data = {"verdict": trajectory.verdict.model_dump(mode="json"), "trajectory_id": trajectory.id}
            summary = f"winner {trajectory.verdict.winner}, scores {trajectory.verdict.scores}"
            text = f"{summary}; {trajectory.verdict.rationale}\ntrajectory: {trajectory.id}"
            return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=data)
        arguments = given.get("arguments", {})
        if not isinstance(arguments, dict):
            return _error("arguments: an object of the tool's arguments")
        result = await judge.acall_tool(request, ToolCall(name=name, arguments=arguments, source="model"))
        return types.CallToolResult(
            content=[types.TextContent(text=result.text)],
            structured_content=result.model_dump(mode="json"),
            is_error=not result.ok,
        )

    return Server(
        "judgegraph",
        version=__version__,
        instructions="judgegraph's evidence tools and its judge: each tool runs on a JudgeRequest's evidence.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(judge: Judge, config: MCPConfig | None = None) -> None:
    """Serve over this process's stdin and stdout until the client closes them."""
    from mcp.server.stdio import stdio_server

    server = create_mcp_server(judge, config)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


class _RequireKey:
    """Refuse a request without the API key (`x-api-key` or a bearer token) before it reaches the MCP app."""

    def __init__(self, app: ASGIApp, key: str) -> None:
        self.app, self.key = app, key.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers", [])}
            given = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
            if not hmac.compare_digest(given.encode(), self.key):
                from starlette.responses import JSONResponse

                await JSONResponse({"detail": "a valid API key is required"}, status_code=401)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def http_app(judge: Judge, config: MCPConfig | None = None, *, host: str, api_key: str | None = None) -> ASGIApp:
    """The streamable HTTP app (at `/mcp`), guarded against DNS rebinding when bound to this machine."""
    app: ASGIApp = create_mcp_server(judge, config).streamable_http_app(host=host)
    return _RequireKey(app, api_key) if api_key else app
