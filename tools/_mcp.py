"""Tools from MCP servers: each tool a server lists becomes a judgegraph tool (`<server>__<tool>`) with the server's
own JSON schema, constrained, recorded and replayed like every other; a call goes to the server over one connection
that lives as long as the judge's tool services.

Needs the `mcp` extra (the official SDK), imported only where an MCP server is named."""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import hashlib
import json
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, model_validator

from judgegraph.errors import ConfigError, ToolFailure
from judgegraph.settings import MCPSource
from judgegraph.tools._base import ToolContext, ToolDef, ToolOutput, tools

if TYPE_CHECKING:
    import mcp
    import mcp_types

SEPARATOR = "__"
"""Between a server's name and its tool's in the judgegraph tool's name (function names allow no dots)."""


def _sdk() -> Any:
    try:
        import mcp
    except ImportError as e:
        raise ConfigError("MCP tools need the official MCP SDK: pip install 'judgegraph[mcp]'") from e
    return mcp


def _target(source: MCPSource) -> Any:
    """What the SDK's `Client` connects to: a URL, or the command to start (stdio). A stdio server ends when its
    stdin closes, which the kernel does when this process ends in any way."""
    if source.url is not None:
        return source.url
    assert source.command is not None
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(command=source.command[0], args=source.command[1:], env=source.env or None)


class MCPConnection:
    """One MCP server, connected for as long as the services that own it. The SDK's client context is entered and
    left by a task of its own (anyio requires one task to do both), so a call may come from any run's task."""

    def __init__(self, source: MCPSource) -> None:
        self.source = source
        self._client: mcp.Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        self._lock = asyncio.Lock()

    async def call(self, tool: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        client = await self._connected()
        return await client.call_tool(tool, arguments, read_timeout_seconds=self.source.timeout_s)

    async def _connected(self) -> mcp.Client:
        async with self._lock:
            if self._task is None or self._task.done():  # first use, or the server went away: (re)connect
                ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                self._closing = asyncio.Event()
                self._task = asyncio.create_task(self._hold(ready), name=f"mcp:{self.source.name}")
                try:
                    await ready
                except Exception as e:
                    raise ToolFailure(f"MCP server {self.source.name!r} could not be reached: {e}") from None
            assert self._client is not None
            return self._client

    async def _hold(self, ready: asyncio.Future[None]) -> None:
        try:
            async with _sdk().Client(_target(self.source), read_timeout_seconds=self.source.timeout_s) as client:
                self._client = client
                ready.set_result(None)
                await self._closing.wait()
        except Exception as e:
            if not ready.done():
                ready.set_exception(e)
        finally:
            self._client = None

    async def aclose(self) -> None:
        self._closing.set()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None


class MCPArguments(BaseModel):
    """Arguments for an MCP tool: whatever its server's JSON schema allows (checked against that schema)."""

    model_config = ConfigDict(extra="allow")
    input_schema: ClassVar[dict[str, Any]] = {"type": "object"}
    validator: ClassVar[Any] = None
    """The schema's jsonschema validator, made once with the tool (`tool_def`)."""

    @model_validator(mode="before")
    @classmethod
    def _valid(cls, data: Any) -> Any:
        errors = sorted(cls.validator.iter_errors(data), key=str)
        if errors:
            raise ValueError("; ".join(f"{'.'.join(map(str, e.path)) or 'arguments'}: {e.message}" for e in errors[:5]))
        return data

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return copy.deepcopy(cls.input_schema)


class MCPResult(BaseModel):
    """What an MCP tool returned besides its text: its structured content, where it gave one."""

    structured: Any = None


def _text(result: mcp_types.CallToolResult) -> str:
    parts = []
    for block in result.content:
        text = getattr(block, "text", None)
        parts.append(text if isinstance(text, str) else f"[{getattr(block, 'type', 'content')} omitted]")
    return "\n".join(parts)


def tool_def(source: MCPSource, listed: mcp_types.Tool) -> ToolDef:
    """A judgegraph tool that calls `listed` on `source` through the run's services."""
    name = f"{source.name}{SEPARATOR}{listed.name}"
    import jsonschema

    schema = dict(listed.input_schema)
    fields = {"input_schema": schema, "validator": jsonschema.Draft202012Validator(schema), "__module__": __name__}
    args_model = type(f"MCPArguments_{name}", (MCPArguments,), fields)

    async def call(args: BaseModel, ctx: ToolContext) -> ToolOutput:
        if ctx.services is None:
            raise ToolFailure("MCP tools run with a judge's tool services")
        result = await ctx.services.mcp(source).call(listed.name, args.model_dump())
        text = _text(result)
        if result.is_error:
            raise ToolFailure(text or f"{listed.name} reported an error")
        data = MCPResult(structured=result.structured_content) if result.structured_content is not None else None
        return ToolOutput(text=text, data=data)

    blob = json.dumps([listed.description, schema], sort_keys=True).encode()
    return ToolDef(
        name=name,
        description=listed.description or f"{listed.name} (from the MCP server {source.name})",
        args_model=args_model,
        fn=call,
        timeout_s=source.timeout_s,
        version=hashlib.sha256(blob).hexdigest()[:12],
        metadata={"mcp_server": source.name, "mcp_tool": listed.name},
    )


async def _list(source: MCPSource) -> list[mcp_types.Tool]:
    listed: list[mcp_types.Tool] = []
    async with _sdk().Client(_target(source), read_timeout_seconds=source.timeout_s) as client:
        cursor: str | None = None
        for _ in range(100):  # pages; a server whose cursor never ends cannot hang the judge
            page = await client.list_tools(cursor=cursor)
            listed += page.tools
            if not (cursor := page.next_cursor):
                break
    if source.tools is not None:
        missing = sorted(set(source.tools) - {t.name for t in listed})
        if missing:
            raise ConfigError(f"MCP server {source.name!r} has no tool {', '.join(missing)}")
        listed = [t for t in listed if t.name in source.tools]
    return listed


def register_mcp_tools(sources: list[MCPSource]) -> list[str]:
    """List each server's tools and register them (`<server>__<tool>`, replacing an earlier listing); the
    names, in order. Runs the listing on a thread of its own, so it may be called from inside an event loop."""
    names: list[str] = []
    for source in sources:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            try:
                listed = pool.submit(asyncio.run, _list(source)).result()
            except ConfigError:
                raise
            except Exception as e:
                raise ConfigError(f"MCP server {source.name!r}: cannot list its tools: {type(e).__name__}: {e}") from e
        for t in listed:
            names.append(tools.register(f"{source.name}{SEPARATOR}{t.name}", tool_def(source, t), replace=True).name)
    return names
