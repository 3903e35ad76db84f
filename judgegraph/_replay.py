"""Replay: run a recorded trajectory's judge again from its recorded model turns and tool results (no model,
no tools), and compare. Identical path and verdict means the run is reproducible; a counterfactual replay
swaps one recorded tool result to see what the verdict would have been."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from judgegraph._trajectory import ModelTurn, ToolCallEvent, ToolResult, Trajectory


class ReplayReport(BaseModel):
    """How a replay compares with the run it replays."""

    original: str
    """The replayed trajectory's id."""
    replay: Trajectory
    identical: bool
    """Same path, same tool calls, same model replies, same verdict."""
    divergence: str | None = None
    """The first difference, when there is one."""
    unused_model_turns: int = 0
    unused_tool_results: int = 0


def _signature(t: Trajectory) -> list[str]:
    """What a run did, in order, without ids and timings."""
    out = []
    for e in t.events:
        if isinstance(e, ToolCallEvent):
            out.append(f"tool {e.call.name}({sorted(e.call.arguments.items())})")
        elif isinstance(e, ModelTurn):
            out.append(f"model {e.node}: {e.text!r}")
    return out


def first_divergence(a: Trajectory, b: Trajectory) -> str | None:
    """The first way run `b` differs from run `a` (None when they match)."""
    if a.request != b.request:
        return f"they judged different requests ({a.request.id} and {b.request.id})"
    if a.path != b.path:
        k = next(
            (i for i, (x, y) in enumerate(zip(a.path, b.path, strict=False)) if x != y), min(len(a.path), len(b.path))
        )
        got = b.path[k] if k < len(b.path) else "(end)"
        want = a.path[k] if k < len(a.path) else "(end)"
        return f"path step {k}: {want} in the original, {got} in the replay"
    sa, sb = sorted(_signature(a)), sorted(_signature(b))  # parallel nodes may finish in another order
    if sa != sb:
        missing = [x for x in sa if x not in sb]
        extra = [x for x in sb if x not in sa]
        return f"events differ: missing {missing[:2]}, extra {extra[:2]}"
    if (a.verdict and a.verdict.model_dump(exclude={"criteria"})) != (
        b.verdict and b.verdict.model_dump(exclude={"criteria"})
    ):
        return f"verdict: {a.verdict} in the original, {b.verdict} in the replay"
    return None


def replay_inputs(
    original: Trajectory, overrides: dict[int, ToolResult] | None, from_step: int | None = None, live: Any = None
) -> tuple[Any, Any]:
    """The recorded model and recorded tools that stand in for the live ones. With `from_step`, only what was
    recorded before that event is replayed; the model (`live`) and the tools answer the rest for real."""
    from judgegraph.backends import RecordedModel
    from judgegraph.tools import RecordedTools

    turns = [t for t in original.model_turns() if from_step is None or t.seq < from_step]
    model = RecordedModel(turns, backend=original.versions.backend, model=original.versions.model, live=live)
    return model, RecordedTools.from_events(original.events, overrides, before=from_step)


def _replay_chunk(args: tuple[str, str, list[str], dict[str, Any]]) -> tuple[list[tuple[str, bool, str | None]], float]:
    """Worker: replay some runs of one judge (in its own process, with its own event loop)."""
    import asyncio

    from judgegraph._judge import Judge
    from judgegraph.store import TrajectoryStore

    judge_name, store_path, ids, settings = args

    async def run() -> tuple[list[tuple[str, bool, str | None]], float]:
        import time

        store = TrajectoryStore(store_path)
        judge = Judge.load(judge_name, store=False, **settings)  # not opened: a replay needs no model
        try:
            out = []
            if ids:  # the first replay builds the replay graph: not part of the steady rate
                await judge.areplay(store.get(ids[0]))
            start = time.perf_counter()
            for run_id in ids:
                report = await judge.areplay(store.get(run_id))
                out.append((run_id, report.identical, report.divergence))
            return out, time.perf_counter() - start
        finally:
            await judge.aclose()

    return asyncio.run(run())


def replay_many(
    store_path: str, judge: str, ids: list[str], processes: int = 2, **settings: Any
) -> tuple[list[tuple[str, bool, str | None]], float]:
    """Replay many runs of one judge across `processes` worker processes.

    Returns (run id, identical, divergence) for each run and the steady replay time (the slowest worker's, after
    its start-up). Replays are CPU-bound, so throughput scales with processes; each worker loads the judge once.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    processes = max(1, min(processes, len(ids)))
    chunks = [ids[k::processes] for k in range(processes)]
    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        results = list(pool.map(_replay_chunk, [(judge, store_path, c, settings) for c in chunks]))
    return [r for chunk, _ in results for r in chunk], max(elapsed for _, elapsed in results)
