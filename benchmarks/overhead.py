"""Client overhead: one judgment = model -> tool -> model -> verdict, against a fast fake server.

judgegraph (the agentic judge in one candidate order, recording to a durable SQLite store, or to no store)
against the floor and the usual ways to write the same loop, all measured in this run on the same server:
a raw aiohttp loop, a hand-written loop on the `openai` SDK, a hand-made LangGraph graph on the SDK (with and
without LangGraph's SQLite checkpointer), and langchain's `create_agent` with `ChatOpenAI`. Every client runs
the same tool (judgegraph's answer extraction and equivalence). Client CPU is this process's CPU time (all
threads) per judgment; the fake server runs in its own process.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal, TypedDict, cast

from benchmarks._fast_fake import MODEL, fast_fake_model
from benchmarks._util import rss_mib, table
from judgegraph.tools import equivalent, extract_final_answer

PROMPT = "What is 6*7?"
CANDIDATES = ["The answer is 41.", "6*7 = 42"]
REFERENCE = "42"
REQUEST = {"id": "q", "prompt": PROMPT, "candidates": CANDIDATES, "reference": REFERENCE}
TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": "match_reference",
            "description": "Whether a candidate's final answer matches the reference.",
            "parameters": {
                "type": "object",
                "properties": {"candidate": {"type": "integer"}},
                "required": ["candidate"],
            },
        },
    }
]
SYSTEM = "You are a judge. Call match_reference to check answers, then reply with JSON {winner, confidence, rationale}."
USER = f"Question: {PROMPT}\nA: {CANDIDATES[0]}\nB: {CANDIDATES[1]}\nReference: {REFERENCE}"
REPEATS = 3


def match_reference(candidate: int) -> str:
    got = extract_final_answer(CANDIDATES[candidate])
    ok = got is not None and equivalent(got, REFERENCE).equivalent
    return f"candidate {candidate}: {'matches' if ok else 'does not match'} the reference"


def _winner(content: str | None) -> str:
    return str(json.loads(content or "{}").get("winner"))


Judgment = Callable[[int], Awaitable[str]]


class Client:
    """One way to judge: `async with` it, then `await judgment(i)`."""

    name = ""

    def __init__(self, url: str, tmp: Path) -> None:
        self.url, self.tmp = url, tmp

    async def __aenter__(self) -> Judgment:
        raise NotImplementedError

    async def __aexit__(self, *exc: object) -> None:
        pass


class RawAiohttp(Client):
    name = "raw aiohttp loop (the floor)"

    async def __aenter__(self) -> Judgment:
        import aiohttp

        self.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        url = self.url + "/chat/completions"

        async def post(messages: list[dict[str, Any]]) -> dict[str, Any]:
            body = {"model": MODEL, "messages": messages, "tools": TOOLS}
            async with self.session.post(url, json=body) as r:
                return (await r.json())["choices"][0]["message"]  # type: ignore[no-any-return]

        async def judgment(i: int) -> str:
            messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER}]
            reply = await post(messages)
            messages.append(reply)
            for call in reply.get("tool_calls") or []:
                args = json.loads(call["function"]["arguments"])
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": match_reference(**args)})
            return _winner((await post(messages))["content"])

        return judgment

    async def __aexit__(self, *exc: object) -> None:
        await self.session.close()


class OpenAILoop(Client):
    name = "hand-written loop, `openai` SDK"

    async def __aenter__(self) -> Judgment:
        from openai import AsyncOpenAI

        self.client = AsyncOpenAI(base_url=self.url, api_key="EMPTY")

        async def judgment(i: int) -> str:
            messages: list[Any] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER}]
            reply = (await self.client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)).choices[0]
            messages.append(reply.message.model_dump(exclude_none=True))
            for call in reply.message.tool_calls or []:
                args = json.loads(call.function.arguments)  # type: ignore[union-attr]
                messages.append({"role": "tool", "tool_call_id": call.id, "content": match_reference(**args)})
            final = await self.client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
            return _winner(final.choices[0].message.content)

        return judgment

    async def __aexit__(self, *exc: object) -> None:
        await self.client.close()


class _State(TypedDict):
    messages: list[Any]
    verdict: str


class LangGraphLoop(Client):
    name = "hand-made LangGraph graph + `openai` SDK, no checkpointer"
    checkpoint = False

    async def __aenter__(self) -> Judgment:
        from langgraph.graph import END, START, StateGraph
        from openai import AsyncOpenAI

        self.client = AsyncOpenAI(base_url=self.url, api_key="EMPTY")

        async def model(state: _State) -> dict[str, Any]:
            r = await self.client.chat.completions.create(model=MODEL, messages=state["messages"], tools=TOOLS)
            message = r.choices[0].message.model_dump(exclude_none=True)
            return {
                "messages": [*state["messages"], message],
                "verdict": "" if message.get("tool_calls") else _winner(message.get("content")),
            }

        def tools(state: _State) -> dict[str, Any]:
            calls = state["messages"][-1]["tool_calls"]
            results = [
                {
                    "role": "tool",
                    "tool_call_id": c["id"],
                    "content": match_reference(**json.loads(c["function"]["arguments"])),
                }
                for c in calls
            ]
            return {"messages": [*state["messages"], *results]}

        g = StateGraph(_State)
        g.add_node("model", model)
        g.add_node("tools", tools)
        g.add_edge(START, "model")
        g.add_conditional_edges("model", lambda s: END if s["verdict"] else "tools", ["tools", END])
        g.add_edge("tools", "model")
        self.saver = None
        if self.checkpoint:
            import aiosqlite
            from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

            self.saver = AsyncSqliteSaver(await aiosqlite.connect(self.tmp / f"lg-{time.time_ns()}.db"))
            await self.saver.setup()
        graph = g.compile(checkpointer=self.saver)
        start = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER}]

        async def judgment(i: int) -> str:
            config = {"configurable": {"thread_id": f"t{i}-{time.time_ns()}"}} if self.saver else None
            state: Any = {"messages": start, "verdict": ""}
            out = await graph.ainvoke(state, config=cast(Any, config))
            return str(out["verdict"])

        return judgment

    async def __aexit__(self, *exc: object) -> None:
        await self.client.close()
        if self.saver is not None:
            await self.saver.conn.close()


class LangGraphCheckpointed(LangGraphLoop):
    name = "same + LangGraph SQLite checkpointer"
    checkpoint = True


class CreateAgent(Client):
    name = "langchain `create_agent` + `ChatOpenAI`"

    async def __aenter__(self) -> Judgment:
        from langchain.agents import create_agent
        from langchain_core.tools import tool
        from langchain_openai import ChatOpenAI

        @tool("match_reference")
        def match_tool(candidate: int) -> str:
            """Whether a candidate's final answer matches the reference."""
            return match_reference(candidate)

        agent = create_agent(
            model=ChatOpenAI(model=MODEL, base_url=self.url, api_key="EMPTY"), tools=[match_tool], system_prompt=SYSTEM
        )

        async def judgment(i: int) -> str:
            out = await agent.ainvoke({"messages": [{"role": "user", "content": USER}]})
            return _winner(out["messages"][-1].content)

        return judgment


class JudgegraphClient(Client):
    name = "judgegraph `agentic`, recording to a durable store"
    store = True

    async def __aenter__(self) -> Judgment:
        from judgegraph import Judge
        from judgegraph.agents import judges

        if "agentic-one-order" not in judges:
            spec = judges.get("agentic").model_copy(update={"name": "agentic-one-order", "both_orders": False})
            judges.register("agentic-one-order", spec)
        store: Path | Literal[False] = self.tmp / f"jg-{time.time_ns()}.db" if self.store else False
        self.judge = Judge.load("agentic-one-order", store=store, model_url=self.url, max_retries=0)
        await self.judge.open()

        async def judgment(i: int) -> str:
            t = await self.judge.arun(REQUEST)
            assert t.verdict is not None and t.verdict.valid, t.verdict
            return "B" if t.verdict.winner == 1 else str(t.verdict.winner)

        return judgment

    async def __aexit__(self, *exc: object) -> None:
        await self.judge.aclose()


class JudgegraphNoStore(JudgegraphClient):
    name = "judgegraph `agentic`, no store (trajectory in memory only)"
    store = False


CLIENTS: list[type[Client]] = [
    RawAiohttp,
    OpenAILoop,
    LangGraphLoop,
    LangGraphCheckpointed,
    CreateAgent,
    JudgegraphClient,
    JudgegraphNoStore,
]


async def _measure(judgment: Judgment, n: int, concurrency: int) -> tuple[float, float]:
    """(client CPU ms per judgment, judgments per second) over `n` judgments, `concurrency` in flight."""
    sem = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with sem:
            assert await judgment(i) == "B"

    await asyncio.gather(*(one(i) for i in range(min(n, 10))))  # warm: connections, caches, lazy imports
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(n)))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return 1000 * cpu / n, n / wall


async def run_client(cls: type[Client], url: str, tmp: Path, n: int, concurrency: int) -> tuple[float, float]:
    results = []
    for _ in range(REPEATS):
        async with cls(url, tmp) as judgment:
            results.append(await _measure(judgment, n, concurrency))
    return statistics.median(r[0] for r in results), statistics.median(r[1] for r in results)


def _tuned_gc_cpu(cls_name: str, url: str, n: int) -> float:
    """CPU ms per judgment at concurrency 32 in a fresh process that calls `judgegraph.tune_gc()` first
    (its own process: GC settings cannot be undone)."""
    code = (
        "import asyncio, sys, tempfile; from pathlib import Path; import judgegraph; "
        "from benchmarks import overhead as o; judgegraph.tune_gc(); "
        f"cls = next(c for c in o.CLIENTS if c.name == {cls_name!r}); "
        f"print(asyncio.run(o.run_client(cls, {url!r}, Path(tempfile.mkdtemp()), {n}, 32))[0])"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


async def at_scale(url_100ms: str, url_1s: str, tmp: Path) -> tuple[float, float, float, float]:
    """judgegraph (durable store) with 256 judgments in flight: (judgments/s at 100 ms latency, its ideal,
    MiB of resident memory per judgment in flight at 1 s latency, judgment alone at 100 ms in s)."""
    async with JudgegraphClient(url_100ms, tmp) as judgment:
        await _measure(judgment, 4, 1)
        t = time.perf_counter()
        for i in range(5):
            await judgment(i)
        alone = (time.perf_counter() - t) / 5
        _, rate = await _measure(judgment, 1024, 256)
    async with JudgegraphClient(url_1s, tmp) as judgment:
        await _measure(judgment, 16, 16)  # warm, so the measure is the in-flight state, not first-use caches
        before, peak = rss_mib(), 0.0
        runs = asyncio.gather(*(judgment(i) for i in range(256)))
        while not runs.done():
            peak = max(peak, rss_mib())
            await asyncio.sleep(0.05)
        await runs
    return rate, 256 / alone, (peak - before) / 256, alone


async def graph_floor(steps: int = 6, n: int = 3000) -> float:
    """CPU ms per invoke of LangGraph alone: a chain of `steps` no-op nodes over the agentic judge's state
    (its channels), 32 invokes in flight: what the graph machinery costs before any node does work."""
    from langgraph.graph import END, START, StateGraph

    from judgegraph.graphs.agentic import AgentState

    async def noop(state: Any) -> dict[str, Any]:
        return {"steps": state.get("steps", 0) + 1}

    g = StateGraph(AgentState)
    names = [f"n{i}" for i in range(steps)]
    for name in names:
        g.add_node(name, noop)
    g.add_edge(START, names[0])
    for a, b in itertools.pairwise(names):
        g.add_edge(a, b)
    g.add_edge(names[-1], END)
    graph = g.compile()
    sem = asyncio.Semaphore(32)

    async def one() -> None:
        async with sem:
            await graph.ainvoke({"steps": 0})

    await asyncio.gather(*(one() for _ in range(200)))
    cpu = time.process_time()
    await asyncio.gather(*(one() for _ in range(n)))
    return 1000 * (time.process_time() - cpu) / n


def import_time() -> float:
    """Median wall time of `python -c "import judgegraph"` in a fresh interpreter, in seconds."""
    times = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import judgegraph"], check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


async def bench() -> str:
    tmp = Path(tempfile.mkdtemp(prefix="judgegraph-overhead-"))
    scenarios = [(0.0, 1, 150), (0.0, 32, 600), (0.02, 1, 60), (0.02, 32, 600)]
    results: dict[str, dict[tuple[float, int], tuple[float, float]]] = {}
    for latency, concurrency, n in scenarios:
        with fast_fake_model(latency) as url:
            for cls in CLIENTS:
                print(f"  {cls.name} latency {latency} concurrency {concurrency}", file=sys.stderr)
                results.setdefault(cls.name, {})[(latency, concurrency)] = await run_client(
                    cls, url, tmp, n, concurrency
                )
    tuned: dict[str, float] = {}
    with fast_fake_model(0.0) as url:
        for cls in CLIENTS:
            print(f"  {cls.name} with tuned GC", file=sys.stderr)
            tuned[cls.name] = _tuned_gc_cpu(cls.name, url, 600)
    sdk = results[OpenAILoop.name][(0.0, 32)][0]
    agent = results[CreateAgent.name][(0.0, 32)][0]
    rows = []
    for cls in CLIENTS:
        r = results[cls.name]
        cpu = r[(0.0, 32)][0]
        rows.append(
            [
                cls.name,
                cpu,
                f"{cpu / sdk:.2f}x",
                f"{cpu / agent:.2f}x",
                tuned[cls.name],
                f"{tuned[cls.name] / tuned[OpenAILoop.name]:.2f}x",
                r[(0.0, 1)][1],
                r[(0.0, 32)][1],
                r[(0.02, 1)][1],
                r[(0.02, 32)][1],
            ]
        )
    header = [
        "client",
        "CPU ms / judgment",
        "vs SDK loop",
        "vs create_agent",
        "CPU ms, tuned GC",
        "vs SDK loop, tuned GC",
        "/s lat 0 c1",
        "/s lat 0 c32",
        "/s 20 ms c1",
        "/s 20 ms c32",
    ]
    with fast_fake_model(0.1) as url_100ms, fast_fake_model(1.0) as url_1s:
        print("  judgegraph at 256 in flight", file=sys.stderr)
        rate, ideal, mib, alone = await at_scale(url_100ms, url_1s, tmp)
    imp = import_time()
    floor = await graph_floor()
    ours = results[JudgegraphClient.name][(0.0, 32)][0]
    raw = results[RawAiohttp.name][(0.0, 32)][0]
    budget = 1000 * (os.cpu_count() or 1) / (0.9 * ideal)
    intro = (
        f"One judgment = model -> tool -> model -> verdict against the aiohttp fake server (own process). "
        f"CPU is the median over {REPEATS} runs of this process's CPU time per judgment at concurrency 32, "
        f"latency 0; throughput columns are judgments/s at (latency, concurrency). {os.cpu_count()} cores."
    )
    outro = (
        f"judgegraph (durable store) with 256 judgments in flight at 100 ms model latency: {rate:.0f} judgments/s "
        f"against an ideal of {ideal:.0f}/s (256 / {alone * 1000:.0f} ms, one judgment alone), "
        f"{100 * rate / ideal:.0f}% of ideal. Growth of resident memory with 256 judgments in flight at 1 s "
        f"latency, over a heap already warmed by earlier runs: {mib * 1024:.0f} KiB per judgment (Python reuses "
        "freed memory, so this is what in-flight state adds, not a fresh process's footprint).\n\n"
        f"`import judgegraph`: {imp:.2f} s (median of 5 fresh interpreters). The tuned-GC columns run each client "
        "in a fresh process after `judgegraph.tune_gc()` (what `judgegraph judge`, `serve` and `eval` do).\n\n"
        "Where judgegraph's CPU goes (cProfile and pyinstrument at latency 0, concurrency 32; "
        "`benchmarks/overhead.py` has the clients): LangGraph's Pregel loop is about half (preparing tasks, "
        "reading and writing channels and the callback manager it sets up for every invoke and every node, over "
        "the six super-steps of the agentic path: intake, agent, act, agent, close_order, finalize); the "
        "garbage collector about a fifth with default settings (what `tune_gc` removes); recording (node events "
        "with their state updates, model turns, the store's per-event JSON, written by a group-commit thread) "
        "about 0.6 ms; HTTP about 0.2 ms per model call on the lean aiohttp transport, against about 1 ms on the "
        "`openai` SDK, which the client no longer uses on the hot path.\n\n"
        f"LangGraph alone, measured in this run: a graph over the agentic judge's state with six no-op nodes costs "
        f"{floor:.1f} ms of CPU per invoke (32 in flight), {100 * floor / sdk:.0f}% of the SDK loop's whole judgment "
        f"and {100 * floor / ours:.0f}% of judgegraph's. That is the price of keeping the judge a LangGraph state "
        "machine (named nodes, conditional edges, checkpoints and the graph viewer depend on it): judgegraph "
        f"spends {ours - sdk:.1f} ms per judgment more than the SDK loop; that machinery alone costs {floor:.1f} ms. "
        f"90% of ideal at 256 in flight would need at most {budget:.2f} ms of CPU per judgment on these "
        f"{os.cpu_count()} cores, spread over processes; the graph machinery and the bare HTTP calls (the raw loop) "
        f"alone take {floor + raw:.1f} ms, leaving {max(0.0, budget - floor - raw):.1f} ms for everything else a "
        f"judgment does (its nodes, recording, the store), against {ours - floor - raw:.1f} ms now; more machines "
        "are the way there (`judgegraph judge --ray`). "
        "What would narrow the rest: fewer super-steps per judgment (folding intake and close_order into the "
        "agent loop), recording state updates by reference instead of as JSON per node, and a leaner path "
        "through LangGraph's callbacks, which it offers no switch for."
    )
    return intro + "\n\n" + table(header, rows) + "\n\n" + outro
