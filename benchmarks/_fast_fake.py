"""A fast fake OpenAI-compatible server in its own process (aiohttp, 127.0.0.1) for the overhead benchmarks.

Every chat request gets the scripted step of a judgment after `latency_s`: a tool call (`match_reference` on
candidate 1) while no tool result is in the messages, else a verdict. It presents itself as vLLM, so judges
use native tool calls. Replies are pre-encoded: the server must cost far less than the clients it measures.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection

MODEL = "fake-vllm"


def _completion(message: dict[str, object], finish: str) -> bytes:
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 200, "completion_tokens": 20, "total_tokens": 220},
    }
    return json.dumps(body).encode()


TOOL_CALL = _completion(
    {
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "match_reference", "arguments": '{"candidate": 1}'},
            }
        ],
    },
    "tool_calls",
)
VERDICT = _completion(  # as vLLM answers when the verdict is a function the judge offers (tool_choice required)
    {
        "content": None,
        "tool_calls": [
            {
                "id": "call_2",
                "type": "function",
                "function": {
                    "name": "submit_verdict",
                    "arguments": json.dumps({"winner": "B", "confidence": 0.9, "rationale": "B matches"}),
                },
            }
        ],
    },
    "tool_calls",
)
MODELS = json.dumps({"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm", "created": 0}]})


def _serve(conn: Connection, latency_s: float, port: int) -> None:
    from aiohttp import web

    async def chat(request: web.Request) -> web.Response:
        raw = await request.read()
        if latency_s:
            await asyncio.sleep(latency_s)
        answered = b'"role": "tool"' in raw or b'"role":"tool"' in raw
        return web.Response(body=VERDICT if answered else TOOL_CALL, content_type="application/json")

    async def models(request: web.Request) -> web.Response:
        return web.Response(text=MODELS, content_type="application/json")

    app = web.Application(client_max_size=64 * 2**20)
    app.router.add_post("/v1/chat/completions", chat)
    app.router.add_get("/v1/models", models)

    async def main() -> None:
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port, backlog=2048).start()
        conn.send("ready")
        await asyncio.get_running_loop().run_in_executor(None, conn.recv)  # until the benchmark is done
        await runner.cleanup()

    asyncio.run(main())


@contextmanager
def fast_fake_model(latency_s: float) -> Iterator[str]:
    """Yields the base URL of the fake model, running in a child process."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe()
    process = ctx.Process(target=_serve, args=(theirs, latency_s, port), daemon=True)
    process.start()
    try:
        assert ours.recv() == "ready"
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        ours.send("stop")
        process.join(timeout=10)
