"""Replay: run a recorded trajectory's judge again from its recorded model turns and tool results (no model,
no tools), and compare. Identical path and verdict means the run is reproducible; a counterfactual replay
swaps one recorded tool result to see what the verdict would have been."""

from __future__ import annotations

from pydantic import BaseModel

from judgegraph.backends import ChatModel, RecordedModel
from judgegraph.graphs import JudgeGraph
from judgegraph.runtime._finish import finish
from judgegraph.schema import ModelTurn, ToolCallEvent, ToolResult, Trajectory
from judgegraph.store import TrajectoryStore
from judgegraph.tools import RecordedTools


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


async def replay(
    graph: JudgeGraph,
    judge_version: str,
    original: Trajectory,
    overrides: dict[int, ToolResult] | None = None,
    from_step: int | None = None,
    live: ChatModel | None = None,
    store: TrajectoryStore | None = None,
) -> ReplayReport:
    """Run `original`'s request through `graph` again, its recorded model turns and tool results standing in
    for the live ones (passed with the run, so live runs of the same graph go on unaffected), and compare.

    Args:
        graph: the judge's compiled graph.
        judge_version: the judge's version now (a changed judge is a divergence in itself).
        overrides: event seq -> a tool result to use instead of the recorded one (counterfactual replay).
        from_step: replay only what was recorded before this event seq; the rest is answered live by `live`
            (the model) and the tools.
        store: record the replay there as a new trajectory (None: keep it in memory only).
    """
    # Turns a tool made come back with its recorded result; the model is asked only for the graph's own.
    turns = [t for t in original.model_turns() if (from_step is None or t.seq < from_step) and t.for_call is None]
    model = RecordedModel(turns, backend=original.versions.backend, model=original.versions.model, live=live)
    tools = RecordedTools.from_events(original.events, overrides, before=from_step)
    versions = original.versions.model_copy()
    replayed = Trajectory(judge=original.judge, request=original.request, label=original.label, versions=versions)
    if store is not None:
        await store.astart_run(replayed)
    await finish(replayed, await graph.arun(replayed, model, recorded=tools), store=store)
    divergence = None
    if original.versions.judge != judge_version:
        divergence = f"the judge changed since the run (version {original.versions.judge} -> {judge_version})"
    divergence = divergence or next(iter(model.misses + tools.misses), None) or first_divergence(original, replayed)
    return ReplayReport(
        original=original.id,
        replay=replayed,
        identical=divergence is None,
        divergence=divergence,
        unused_model_turns=model.unused(),
        unused_tool_results=tools.unused(),
    )
