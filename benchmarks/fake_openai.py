"""A scripted fake OpenAI-compatible server for tests (a real HTTP server on 127.0.0.1, in a thread).

Each chat request takes the next scripted `Reply`; when the script runs out, `default` answers. Every
request body is kept in `requests` so tests can assert on exactly what was sent.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str | None = None
    tool_calls: list[tuple[str, str]] = field(default_factory=list)
    """(function name, raw arguments string) pairs."""
    status: int = 200
    delay_s: float = 0.0
    raw_body: str | None = None
    """Sent as-is instead of a well-formed completion."""
    finish_reason: str = "stop"
    token_ids: bool = False
    """Answer with vLLM's prompt_token_ids / token_ids fields."""
    logprobs: bool = False


class FakeOpenAI:
    def __init__(self, *, owned_by: str = "fake", model: str = "fake-model") -> None:
        self.owned_by = owned_by
        self.model = model
        self.script: list[Reply] = []
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        """Answers a request from its body (wins over the script): for replies that depend on what was asked."""
        self.default = Reply(content='{"winner": "A", "confidence": 0.9, "rationale": "fake"}')
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: str) -> None:
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    data = [{"id": fake.model, "object": "model", "owned_by": fake.owned_by, "created": 0}]
                    self._send(200, json.dumps({"object": "list", "data": data}))
                else:
                    self._send(404, "{}")

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                with fake._lock:
                    fake.requests.append(body)
                    if fake.responder is not None:
                        reply = fake.responder(body)
                    else:
                        reply = fake.script.pop(0) if fake.script else fake.default
                reply = _named_call(body, reply)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.raw_body is not None:
                    self._send(reply.status, reply.raw_body)
                    return
                if reply.status != 200:
                    self._send(reply.status, json.dumps({"error": {"message": f"scripted {reply.status}"}}))
                    return
                self._send(200, json.dumps(fake._completion(reply)))

        class Server(ThreadingHTTPServer):
            request_queue_size = 1024  # hundreds of concurrent clients connect at once in benchmarks

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that timed out and hung up is part of the script, not a failure

        self._server = Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _completion(self, reply: Reply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [
                {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
                for i, (n, a) in enumerate(reply.tool_calls)
            ]
        choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": reply.finish_reason}
        if reply.logprobs:
            choice["logprobs"] = {"content": [{"token": "x", "logprob": -0.1, "bytes": [120], "top_logprobs": []}]}
        out: dict[str, Any] = {
            "id": "cmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": self.model,
            "choices": [choice],
            "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
        }
        if reply.token_ids:
            out["prompt_token_ids"] = [1, 2, 3]
            choice["token_ids"] = [4, 5]
        return out

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _named_call(body: dict[str, Any], reply: Reply) -> Reply:
    """As vLLM answers a request whose `tool_choice` names a function: the reply is that function's call, its
    arguments the scripted content (so a script written for text replies still reads as real vLLM's would)."""
    choice = body.get("tool_choice")
    if not isinstance(choice, dict) or reply.tool_calls or reply.content is None or reply.raw_body is not None:
        return reply
    name = str(choice.get("function", {}).get("name", ""))
    return Reply(**{**reply.__dict__, "content": "", "tool_calls": [(name, reply.content)]})


def top_scores(body: dict[str, Any]) -> Reply:
    """A judge model that gives every response it is shown the top score (the worst case for a hack)."""
    shown = sorted(set(re.findall(r"<response_([A-Z])_", json.dumps(body.get("messages", [])))))
    if "scores" in json.dumps(body):
        return Reply(
            content=json.dumps({"scores": dict.fromkeys(shown or ["A"], 10), "confidence": 1.0, "rationale": "x"})
        )
    return Reply(content=json.dumps({"winner": "A", "confidence": 1.0, "rationale": "x"}))


def prefers(text: str, confidence: float = 0.9) -> Callable[[dict[str, Any]], Reply]:
    """A consistent pairwise judge: picks whichever response (A or B) contains `text`, in either order."""

    def respond(body: dict[str, Any]) -> Reply:
        user = body["messages"][1]["content"]
        a, b = user.find("<response_A_"), user.find("<response_B_")
        at = user.find(text)
        letter = "tie" if at < 0 else "A" if a <= at < b else "B"
        return Reply(content=json.dumps({"winner": letter, "confidence": confidence, "rationale": f"prefers {text}"}))

    return respond
