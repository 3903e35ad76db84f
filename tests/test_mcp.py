"""MCP both ways, with the official SDK's own client and server: `judgegraph mcp` serves every tool and the judge
over stdio and streamable HTTP (bad input a clear error, judgments recorded and replayed exactly); a judge uses the
tools of another MCP server (a real server process), recorded in its trajectory and replayed from the record; and
LangGraph users load judgegraph's tools through langchain-mcp-adapters."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

from benchmarks.fake_openai import FakeOpenAI, Reply, prefers
from judgegraph import Judge
from judgegraph.backends._child import free_port
from judgegraph.schema import JudgeRequest, ToolCallEvent, ToolResultEvent
from judgegraph.settings import MCPSource
from judgegraph.store import TrajectoryStore
from judgegraph.tools import tools
from tests.conftest import ROOT, demo_rows

MATH = demo_rows()["math-mult"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "JUDGEGRAPH_SANDBOX": "process"}


def _judgegraph_mcp(fake: FakeOpenAI, store: Path, *more: str) -> list[str]:
    return [sys.executable, "-m", "judgegraph.cli", "mcp", "--model", fake.url, "--store", str(store), *more]


def _text(result: CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, TextContent)
    return block.text


async def _exercise(client: Client, store: Path) -> None:
    """What every transport must do: list every tool, call one, judge a request (recorded), refuse bad input."""
    listed = {t.name: t for t in (await client.list_tools()).tools}
    # every tool the server's process has: the built-in ones and the installed plugins' (not those that other
    # tests in this process registered for a while)
    served = {n for n in tools.names() if not n.startswith("test_") and "__" not in n}
    assert set(listed) == {"judge", *served}
    assert listed["run_code"].input_schema["required"] == ["arguments", "request"]
    assert "candidates" in json.dumps(listed["judge"].input_schema)

    checked = await client.call_tool("match_reference", {"request": MATH, "arguments": {"candidate": 1}})
    assert not checked.is_error and checked.structured_content["ok"] is True
    assert checked.structured_content["data"]["equivalent"] is False

    judged = await client.call_tool("judge", {"request": MATH})
    assert not judged.is_error and judged.structured_content["verdict"]["winner"] == 0
    trajectory = TrajectoryStore(store).get(judged.structured_content["trajectory_id"])
    assert trajectory.verdict is not None and trajectory.verdict.winner == 0

    bad = await client.call_tool("judge", {"request": {"prompt": "p", "candidates": "not a list"}})
    assert bad.is_error and "invalid request: request.candidates: " in _text(bad)
    assert "pydantic.dev" not in _text(bad) and "JudgeRequest" not in _text(bad)  # the caller's terms only
    missing = await client.call_tool("judge", {})
    assert missing.is_error and "request" in _text(missing) and "pydantic.dev" not in _text(missing)
    wrong_args = await client.call_tool("match_reference", {"request": MATH, "arguments": {"candidate": "x"}})
    assert wrong_args.is_error and "candidate" in _text(wrong_args)
    local = await client.call_tool("judge", {"request": {**MATH, "images": ["/etc/passwd"]}})
    assert local.is_error and "does not read files from its disk" in _text(local)
    with pytest.raises(MCPError, match="no tool 'nope'"):
        await client.call_tool("nope", {"request": MATH})


async def test_mcp_over_stdio_with_the_sdks_client(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = prefers("391")
    store = tmp_path / "runs.db"
    command = _judgegraph_mcp(fake_openai, store)
    server = StdioServerParameters(command=command[0], args=command[1:], env=ENV)
    async with Client(server) as client:
        await _exercise(client, store)
    # the judgment served over MCP replays exactly from its record
    (run,) = TrajectoryStore(store).list_runs()
    async with Judge.load("evidence", store=store, model_url=fake_openai.url) as judge:
        report = await judge.areplay(TrajectoryStore(store).get(run.id))
    assert report.identical


@pytest.fixture
def http_server(tmp_path: Path, fake_openai: FakeOpenAI) -> Iterator[tuple[str, Path]]:
    fake_openai.responder = prefers("391")
    store, port = tmp_path / "runs.db", free_port()
    process = subprocess.Popen(
        _judgegraph_mcp(fake_openai, store, "--transport", "http", "--port", str(port), "--api-key", "k3y"),
        env=ENV,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "judgegraph mcp --transport http did not start"
                time.sleep(0.2)
        yield url, store
    finally:
        process.terminate()
        process.wait(timeout=30)
        assert process.stderr is not None
        process.stderr.close()


async def test_mcp_over_streamable_http_with_the_sdks_client(http_server: tuple[str, Path]) -> None:
    url, store = http_server
    async with httpx.AsyncClient() as anonymous:  # the key is required
        assert (await anonymous.post(url, json={}, timeout=5)).status_code == 401
    async with httpx2.AsyncClient(headers={"x-api-key": "k3y"}) as http:  # the HTTP client the SDK takes
        from mcp.client.streamable_http import streamable_http_client

        async with Client(streamable_http_client(url, http_client=http)) as client:
            await _exercise(client, store)


# ----------------------------------------------------------------------------------- a judge using MCP tools
GLOSSARY_SERVER = '''
from mcp.server.mcpserver import MCPServer

server = MCPServer("glossary")
TERMS = {"idempotent": "an operation that has the same effect however many times it is applied"}


@server.tool()
def define(term: str) -> str:
    """The glossary's definition of a term."""
    if term.lower() not in TERMS:
        raise ValueError(f"no entry for {term!r}")
    return TERMS[term.lower()]


server.run("stdio")
'''


def _defines_then_rules(body: dict[str, Any]) -> Reply:
    said = json.dumps(body["messages"])
    if "same effect however many times" not in said:
        call = {"action": "call", "tool": "glossary__define", "arguments": {"term": "idempotent"}}
        return Reply(content=json.dumps(call))
    first = body["messages"][1]["content"]
    right = "A" if first.find("same result") < first.find("runs only once") else "B"
    return Reply(content=json.dumps({"action": "verdict", "winner": right, "confidence": 0.9, "rationale": "glossary"}))


async def test_a_judge_uses_the_tools_of_another_mcp_server(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    script = tmp_path / "glossary_server.py"
    script.write_text(GLOSSARY_SERVER)
    source = MCPSource(name="glossary", command=[sys.executable, str(script)])
    fake_openai.responder = _defines_then_rules
    request = JudgeRequest.model_validate(
        {
            "prompt": "What does idempotent mean?",
            "candidates": ["Applying it again gives the same result as applying it once.", "It runs only once."],
            "label": {"winner": 0},
        }
    )
    store = tmp_path / "runs.db"
    async with Judge.load("agentic", store=store, model_url=fake_openai.url, mcp_servers=(source,)) as judge:
        assert "glossary__define" in judge.spec.tools
        schema = tools.get("glossary__define").argument_schema(request)
        assert schema["properties"]["term"]["type"] == "string" and schema["required"] == ["term"]
        t = await judge.arun(request)
        assert t.verdict is not None and t.verdict.winner == 0
        calls = [e.call for e in t.events if isinstance(e, ToolCallEvent)]
        results = [e.result for e in t.events if isinstance(e, ToolResultEvent)]
        assert [c.name for c in calls][:1] == ["glossary__define"]
        assert results[0].ok and "same effect" in results[0].text
        bad = await judge.acall_tool(request, calls[0].model_copy(update={"arguments": {"term": "monad"}}))
        # the server's error, as it words it (this SDK server hides the exception's text), is a failed call
        assert not bad.ok and bad.error_kind == "execution" and "define" in (bad.error or "")
        invalid = await judge.acall_tool(request, calls[0].model_copy(update={"arguments": {}}))
        assert not invalid.ok and invalid.error_kind == "invalid_arguments" and "term" in (invalid.error or "")
        report = await judge.areplay(TrajectoryStore(store).get(t.id))
    assert report.identical  # the server's answers come from the record


def test_an_unreachable_mcp_server_is_a_clear_error(tmp_path: Path) -> None:
    from judgegraph.errors import ConfigError

    source = MCPSource(name="gone", command=[sys.executable, "-c", "raise SystemExit(3)"])
    with pytest.raises(ConfigError, match="MCP server 'gone': cannot list its tools"):
        Judge.load("agentic", store=False, mcp_servers=(source,))
    with pytest.raises(ValueError, match="exactly one of"):
        MCPSource(name="both", command=["x"], url="http://127.0.0.1:1/mcp")


ADAPTERS_ENV = ROOT / "build" / "venv-langchain-mcp"
"""langchain-mcp-adapters in an environment of its own: it pins the MCP SDK below 2, judgegraph serves with 2.x
(whose servers still speak the older handshake, which this test also proves)."""
ADAPTERS_SCRIPT = """
import asyncio, json, sys
from langchain_mcp_adapters.client import MultiServerMCPClient

async def main():
    command, env, request = json.loads(sys.argv[1])
    client = MultiServerMCPClient({"judgegraph": {"transport": "stdio", "command": command[0], "args": command[1:], "env": env}})
    loaded = {t.name: t for t in await client.get_tools()}
    out = await loaded["match_reference"].ainvoke({"request": request, "arguments": {"candidate": 0}})
    print(json.dumps({"tools": sorted(loaded), "out": str(out)}))

asyncio.run(main())
"""


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_langgraph_users_load_the_tools_with_langchain_mcp_adapters(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    python = ADAPTERS_ENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(ADAPTERS_ENV)], check=True)
        install = [str(python), "-m", "pip", "install", "-q", "langchain-mcp-adapters>=0.3,<0.4"]
        subprocess.run(install, check=True, capture_output=True, timeout=500)
    command = _judgegraph_mcp(fake_openai, tmp_path / "runs.db")
    done = subprocess.run(
        [str(python), "-c", ADAPTERS_SCRIPT, json.dumps([command, ENV, MATH])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"judge", "match_reference", "run_code"} <= set(found["tools"])
    assert "'391' matches the reference" in found["out"]
