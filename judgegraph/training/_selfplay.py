"""Self-play: the agentic judge samples up to k trajectories per training request at temperature > 0, the judge reward
labels them, and the best right one per request is kept for the next round of SFT (rejection sampling, after
ReST/RAFT: sample -> reward -> keep the best -> SFT again).

Every sample is a real run of the agentic judge's graph (real tools, the model served by the embedded llama.cpp
server), recorded in the store like any other run; the sample index is the sampling seed, so each sample
replays exactly with the spec it was drawn with. Only training-split requests are read."""

from __future__ import annotations

import asyncio
from collections import Counter, defaultdict
from pathlib import Path

from pydantic import BaseModel

from judgegraph.agents import JudgeSpec, judges
from judgegraph.backends import EmbeddedServer, ModelClient, backend_profiles
from judgegraph.runtime import Judge
from judgegraph.schema import JudgeRequest, ToolCall, Trajectory
from judgegraph.settings import Settings
from judgegraph.training._collect import stored_runs, training_requests
from judgegraph.training._explore import EXPLORE_BACKEND, ExploringModel, proposals

EXPLORE_SEED = 1000
"""Exploring runs' sampling seeds start here (the plain samples' seeds are 1, 2, ...): each is a spec version of
its own, so a round stopped midway resumes exploring where it was."""


class SelfPlay(BaseModel):
    """What a self-play round sampled."""

    requests: int
    samples: int
    """Trajectories per request at most (a request a sample settled is not sampled again)."""
    runs: int
    correct: int
    """Runs whose verdict agreed with the label."""
    solved: int
    """Requests with at least one right run (pass@k), the ones the round can learn from."""
    wall_s: float
    store: Path


def sampled_spec(base: JudgeSpec, temperature: float, seed: int) -> JudgeSpec:
    """`base` sampled at `temperature` with its own seed (a new spec version: its runs replay with it)."""
    sampling = base.sampling.model_copy(update={"temperature": temperature, "seed": seed})
    return base.model_copy(update={"sampling": sampling})


def cost(t: Trajectory) -> tuple[bool, int, int]:
    """How much a run spent to rule, fewer being better among right runs: first whether the evidence left the
    ruling to the model (a right ruling the evidence did not decide may be luck), then tool calls, then tokens."""
    turns = t.model_turns()
    by_model = t.verdict is None or t.verdict.decided_by != "evidence"
    return by_model, len(t.tool_results()), sum(m.usage.prompt_tokens + m.usage.completion_tokens for m in turns)


def best_runs(runs: list[Trajectory]) -> list[Trajectory]:
    """Per request, the cheapest right run (rejection sampling's "keep the best"); unsolved requests give none."""
    by_request: dict[str, list[Trajectory]] = defaultdict(list)
    for t in runs:
        if t.status == "complete" and t.correct:
            by_request[t.request.id].append(t)
    return [min(found, key=cost) for _, found in sorted(by_request.items())]


def settled(t: Trajectory) -> bool:
    """Whether `t` is right and its evidence decided the ruling: the model's plan worked, no luck involved."""
    return t.status == "complete" and bool(t.correct) and not cost(t)[0]


def explored(t: Trajectory) -> bool:
    """Whether `t` is an exploring run (it opened with a call a tool proposed, not one the model chose)."""
    return any(m.backend == EXPLORE_BACKEND for m in t.model_turns())


def weighted(kept: list[Trajectory], runs: list[Trajectory]) -> list[Trajectory]:
    """`kept` for SFT, each run exploration found repeated once more for every plain sample of its request that
    the evidence did not settle: those runs hold what the model does not do yet, and among runs it already makes
    (its loss on them starts near zero) one copy each barely moves it (measured: 2 such runs among 24 did not
    teach the zoom)."""
    missed = Counter(r.request.id for r in runs if not explored(r) and not settled(r))
    return [t for t in kept for _ in range(1 + missed[t.request.id] if explored(t) else 1)]


def to_sample(requests: list[JudgeRequest], runs: list[Trajectory]) -> list[JudgeRequest]:
    """The requests to sample again: those no run so far settled. Rejection sampling keeps one run of a settled
    request either way, and the samples of one request agree (make train: on all 28 requests both samples were
    settled or neither), so another sample would cost a judgment and teach nothing."""
    done = {t.request.id for t in runs if settled(t)}
    return [r for r in requests if r.id not in done]


def to_explore(
    requests: list[JudgeRequest], runs: list[Trajectory], tool_names: list[str]
) -> dict[str, list[ToolCall]]:
    """Request id -> the calls to explore for it: only where no run so far is right by its evidence (elsewhere the
    model knows the plan already, and each exploring run costs a judgment)."""
    return {r.id: found for r in to_sample(requests, runs) if (found := proposals(r, tool_names))}


async def self_play(
    model: Path,
    suites: list[str],
    per_suite: int,
    settings: Settings,
    store: Path,
    *,
    samples: int = 2,
    temperature: float = 0.8,
    concurrency: int = 1,
    explore: bool = True,
) -> SelfPlay:
    """Sample up to `samples` agentic runs of each training request with the GGUF `model` (until one is settled by
    its evidence), recorded in `store`; with `explore`, also one run per call the judge's tools propose to explore
    for each request no sample settled by its evidence (`_explore.py`).

    One judgment at a time by default: the embedded server runs one completion at a time, and interleaved
    conversations cost prompt re-reads (benchmarks/embedded.py)."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    requests = await training_requests(suites, per_suite)
    done = {(t.request.id, t.versions.judge) for t in stored_runs(store)}  # a round stopped midway resumes
    server = EmbeddedServer(model=model, n_threads=settings.embedded_threads)
    url = await server.start()
    try:
        # One server for every sampled spec: each judge connects to it rather than starting its own.
        served = settings.model_copy(update={"model_url": url, "backend": EmbeddedServer.profile})
        limit = asyncio.Semaphore(concurrency)
        base = judges.get("agentic")
        for seed in range(1, samples + 1):
            spec = sampled_spec(base, temperature, seed)
            unsettled = to_sample(requests, stored_runs(store))
            async with Judge.load(spec, settings=served, store=store) as judge:

                async def one(request: JudgeRequest, judge: Judge = judge) -> None:
                    async with limit:
                        await judge.arun(request)  # recorded and rewarded in the store

                await asyncio.gather(*(one(r) for r in unsettled if (r.id, spec.version) not in done))
        proposed = to_explore(requests, stored_runs(store), base.tools) if explore else {}
        for j in range(max((len(p) for p in proposed.values()), default=0)):
            spec = sampled_spec(base, temperature, EXPLORE_SEED + j)
            openings = {r.id: (r, p[j]) for r in requests if j < len(p := proposed.get(r.id, []))}
            inner = ModelClient(url, profile=backend_profiles.get(EmbeddedServer.profile), timeout_s=settings.timeout_s)
            explorer = ExploringModel(inner, openings, base.tools)
            async with Judge.load(spec, settings=served, store=store, client=explorer) as judge:

                async def opened(request: JudgeRequest, judge: Judge = judge) -> None:
                    async with limit:
                        await judge.arun(request)

                await asyncio.gather(
                    *(opened(r) for r in requests if r.id in openings and (r.id, spec.version) not in done)
                )
    finally:
        await server.stop()
    runs = stored_runs(store)
    return SelfPlay(
        requests=len(requests),
        samples=samples,
        runs=len(runs),
        correct=sum(bool(t.correct) for t in runs),
        solved=len(best_runs(runs)),
        wall_s=loop.time() - start,
        store=store,
    )
