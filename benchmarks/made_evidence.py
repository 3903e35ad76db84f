"""Evidence the judge makes (issue #21): what the statement's examples and differential testing cost a pair.

On the `code-noref` set (HumanEval prompts without their tests), the `leetcode-noref` set (LeetCode statements,
answers run in LeetCode's environment) and the `contest-noref` set (ICPC problems read from stdin; C, C++, Java,
Python...: the compiled languages built on each run), on a warm sandbox pool of each backend: the wall time of
running both candidates on the statement's examples (in parallel, as the evidence node runs them), and of
differential testing (no model: the generated inputs alone), with the CPU the machine spent during it (all
processes, containers included: /proc/stat).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time

from benchmarks._util import table
from judgegraph.evals import build_set
from judgegraph.schema import JudgeRequest, ToolCall, ToolResult
from judgegraph.tools import ToolContext, ToolServices, call_tool

PAIRS = 20


def _cpu_s() -> float:
    """Seconds of CPU the whole machine has spent (user + system, every core), from /proc/stat."""
    with open("/proc/stat") as f:
        fields = f.readline().split()[1:]
    busy = sum(int(v) for k, v in enumerate(fields) if k not in (3, 4))  # not idle, not iowait
    return busy / os.sysconf("SC_CLK_TCK")


async def _pair(services: ToolServices, request: JudgeRequest) -> tuple[float, float, float, int]:
    ctx = ToolContext(request=request, services=services)
    start = time.perf_counter()
    examples: list[ToolResult] = await asyncio.gather(
        *(call_tool(ToolCall(name="run_examples", arguments={"candidate": i}), ctx) for i in range(2))
    )
    examples_s = time.perf_counter() - start
    assert all(r.ok or "no examples" in (r.error or "") for r in examples), [r.error for r in examples]
    cpu0, start = _cpu_s(), time.perf_counter()
    diff = await call_tool(ToolCall(name="differential_test", arguments={}), ctx)
    diff_s, diff_cpu = time.perf_counter() - start, _cpu_s() - cpu0
    tried = int(diff.data["inputs_tried"]) if diff.ok and diff.data else 0
    return examples_s, diff_s, diff_cpu, tried


async def bench() -> str:
    rows = []
    for name in ("code-noref", "leetcode-noref", "contest-noref"):
        requests = await build_set(name, PAIRS)
        for backend in ("docker", "process"):
            rows.append([name, *await _measured(backend, requests)])
    head = [
        "set",
        "sandbox",
        "pairs",
        "examples s a pair (median / max)",
        "differential s",
        "differential CPU s",
        "inputs",
    ]
    return (
        f"{PAIRS} pairs of each reference-free code set (the statement's examples and generated inputs are all "
        "there is), each candidate run in its own sandbox run, on a warm pool of 2.\n\n"
        + table(head, rows)
        + "\n\nTargets (issue #21): the statement's examples add at most 1 s a pair on the warm Docker pool; "
        "differential testing stays within 5 s of CPU a pair. The CPU column is the whole machine's during the "
        "call (both candidates' sandbox runs, the containers' processes included). The contest maxima are "
        "submissions the jury filed as too slow: an observed run stops after two timeouts (3 s each on the "
        "examples, 1 s on generated inputs); before it stopped, one took 18 s on its six samples and another 14 s "
        "(16 s of CPU) of differential testing."
    )


async def _measured(backend: str, requests: list[JudgeRequest]) -> list[str]:
    services = ToolServices(sandbox=backend, sandbox_pool_size=2)
    try:
        await _pair(services, requests[0])  # warm the pool
        results = [await _pair(services, r) for r in requests]
    finally:
        await services.aclose()
    ex = [r[0] for r in results]
    diff = [r[1] for r in results]
    cpu = [r[2] for r in results]
    tried = [r[3] for r in results]
    return [
        backend,
        str(len(results)),
        f"{statistics.median(ex):.2f} / {max(ex):.2f}",
        f"{statistics.median(diff):.2f} / {max(diff):.2f}",
        f"{statistics.median(cpu):.2f} / {max(cpu):.2f}",
        f"{statistics.mean(tried):.0f}",
    ]
