"""A tool call through `judgegraph mcp` against the same call in-process (issue #22).

`match_reference` (no sandbox: the protocol's own cost shows) and `run_code` on a warm Docker pool (a typical
sandboxed call), each called in-process (`Judge.acall_tool`), then through the MCP SDK's client to `judgegraph
mcp` over stdio and over streamable HTTP (a server process on this machine). Sequential calls, one client.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import httpx

from benchmarks._util import Stats, table
from judgegraph import Judge
from judgegraph.backends._child import free_port
from judgegraph.schema import JudgeRequest, ToolCall

CALLS = 200
ROOT = Path(__file__).resolve().parent.parent
MATH = {"prompt": "What is 17 * 23?", "candidates": ["The answer is 391.", "The answer is 381."], "reference": "391"}
CODE = {
    "prompt": "Write add(a, b).",
    "candidates": ["def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a - b\n"],
    "tests": "assert add(1, 2) == 3\nassert add(-1, 1) == 0",
}
CASES = {"match_reference": (MATH, {"candidate": 0}), "run_code": (CODE, {"candidate": 0})}


async def _timed(n: int, call: Callable[[], Awaitable[Any]]) -> Stats:
    await call()  # warm: a sandbox started, a connection made
    return await Stats.timed(call, n)


async def _through(client: Any, n: int) -> dict[str, Stats]:
    out = {}
    for name, (request, arguments) in CASES.items():

        async def call(
            name: str = name, request: dict[str, Any] = request, arguments: dict[str, Any] = arguments
        ) -> None:
            result = await client.call_tool(name, {"request": request, "arguments": arguments})
            assert not result.is_error, result.content

        out[name] = await _timed(n, call)
    return out


def _start_http(command: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    server = subprocess.Popen([*command, "--port", str(port)], env=env)
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(url, timeout=1)
            return server, url
        except httpx.TransportError:
            assert time.monotonic() < deadline and server.poll() is None, "judgegraph mcp did not start"
            time.sleep(0.2)


async def bench() -> str:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = {**os.environ, "PYTHONPATH": str(ROOT), "JUDGEGRAPH_SANDBOX": "docker"}
    results: dict[str, dict[str, Stats]] = {}
    with TemporaryDirectory() as tmp:
        async with Judge.load("evidence", store=False, sandbox="docker") as judge:
            inproc = {}
            for name, (request, arguments) in CASES.items():
                parsed = JudgeRequest.model_validate(request)

                async def call(
                    name: str = name, parsed: JudgeRequest = parsed, arguments: dict[str, Any] = arguments
                ) -> None:
                    result = await judge.acall_tool(parsed, ToolCall(name=name, arguments=arguments))
                    assert result.ok, result.error

                inproc[name] = await _timed(CALLS, call)
            results["in-process"] = inproc
        command = [sys.executable, "-m", "judgegraph.cli", "mcp", "--store", f"{tmp}/runs.db"]
        async with Client(StdioServerParameters(command=command[0], args=command[1:], env=env)) as client:
            results["MCP stdio"] = await _through(client, CALLS)
        server, url = await asyncio.to_thread(_start_http, [*command, "--transport", "http"], env)
        try:
            async with Client(url) as client:
                results["MCP streamable HTTP"] = await _through(client, CALLS)
        finally:
            server.terminate()
            await asyncio.to_thread(server.wait, 30)
    rows = []
    for way, by_tool in results.items():
        for name, s in by_tool.items():
            extra = s.p50_ms - results["in-process"][name].p50_ms
            overhead = "–" if way == "in-process" else f"+{extra:.2f}"
            rows.append([name, way, s.n, f"{s.p50_ms:.2f}", f"{s.p95_ms:.2f}", overhead])
    head = ["tool", "called", "calls", "p50 ms", "p95 ms", "p50 overhead ms"]
    return (
        f"{CALLS} sequential calls of each tool after one warm-up call, one client; `run_code` on a warm Docker pool "
        "(a candidate and two asserts). In-process is `Judge.acall_tool`, what `judgegraph mcp` runs for each call; "
        "the MCP rows go through the official SDK's client and server (a `judgegraph mcp` process) on this machine.\n\n"
        + table(head, rows)
    )
