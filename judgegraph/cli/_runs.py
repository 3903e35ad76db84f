"""Recorded runs: list, show, replay, diff."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from judgegraph.cli._common import existing_store, fail, out
from judgegraph.cli._options import ModelOpt, StoreOpt, with_run_filters
from judgegraph.cli._tables import Column, fitted
from judgegraph.errors import JudgegraphError, RunNotFoundError

if TYPE_CHECKING:
    from judgegraph.store import RunFilter


@with_run_filters
def runs(
    store: StoreOpt = None,
    limit: Annotated[int, typer.Option(min=1)] = 50,
    *,
    where: RunFilter,
) -> None:
    """List recorded runs, newest first."""
    from judgegraph.store import TrajectoryStore

    path = existing_store(store)
    with TrajectoryStore(path) as st:
        rows = st.list_runs(where=where, limit=limit)
        total = st.count()
    columns = [
        Column("trajectory", width=25, keep=9),
        Column("judge", keep=3),
        Column("request", width=10, keep=5),
        Column("status", keep=2),
        Column("valid", keep=7),
        Column("winner", keep=6),
        Column("correct", keep=6),
        Column("decided by", keep=4),
        Column("started", width=19, keep=1),
        Column("s", width=5, keep=2),
    ]
    cells = [
        [
            r.id,
            r.judge,
            r.request_id,
            r.status,
            str(r.valid),
            str(r.winner),
            str(r.correct),
            r.decided_by or "-",
            r.started_at.strftime("%Y-%m-%d %H:%M:%S"),
            f"{r.duration_s:.2f}" if r.duration_s is not None else "-",
        ]
        for r in rows
    ]
    table = fitted(columns, cells, out, title=f"{len(rows)} of {total} runs in {path}")
    out.print(table)


def show(
    run_id: Annotated[str, typer.Argument(help="Trajectory id (a unique prefix will do).")],
    store: StoreOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole trajectory as JSON.")] = False,
) -> None:
    """Print one recorded run: request, path, every event, verdict."""
    from judgegraph.cli._show import render_trajectory
    from judgegraph.store import TrajectoryStore

    path = existing_store(store)
    try:
        with TrajectoryStore(path) as st:
            trajectory = st.get(run_id)
    except RunNotFoundError as e:
        raise fail(str(e)) from None
    if as_json:
        sys.stdout.write(trajectory.model_dump_json(indent=2) + "\n")
    else:
        render_trajectory(trajectory, out)


def replay(
    run_id: Annotated[str, typer.Argument(help="Trajectory id (a unique prefix will do).")],
    store: StoreOpt = None,
    override: Annotated[
        list[str] | None,
        typer.Option(help="SEQ=FILE: replace the tool result recorded at event SEQ with the ToolResult JSON in FILE."),
    ] = None,
    save: Annotated[bool, typer.Option("--save", help="Store the replay as a new trajectory.")] = False,
    from_step: Annotated[
        int | None, typer.Option(help="Replay events before this seq; run the rest live (with --model, or embedded).")
    ] = None,
    model: ModelOpt = None,
    judge_folder: Annotated[
        Path | None, typer.Option("--judge", help="The judge's folder, for a run judged with --judge FOLDER.")
    ] = None,
) -> None:
    """Re-run a recorded judgement from its recorded model turns and tool results (no model, no tools).

    Exit 0 when the replay reproduces the run exactly, 1 at the first divergence (always reported).
    """
    from judgegraph.runtime._judge import Judge
    from judgegraph.schema import ToolResult
    from judgegraph.store import TrajectoryStore

    path = existing_store(store)
    try:
        with TrajectoryStore(path) as st:
            original = st.get(run_id)
        overrides = {}
        for item in override or []:
            seq, _, file = item.partition("=")
            overrides[int(seq)] = ToolResult.model_validate_json(Path(file).read_text())
    except (RunNotFoundError, ValueError, OSError) as e:
        raise fail(str(e)) from None

    async def run() -> Any:
        judge = Judge.load(judge_folder or original.judge, store=path, model_url=model)
        try:
            return await judge.areplay(original, overrides=overrides, from_step=from_step, record=save)
        finally:
            await judge.aclose()

    try:
        report = asyncio.run(run())
    except JudgegraphError as e:  # e.g. a judge that is not registered here (one judged from a folder: --judge)
        raise fail(str(e)) from None
    replayed = report.replay.verdict
    out.print(
        f"original {original.id}: winner={original.verdict.winner if original.verdict else None} "
        f"scores={original.verdict.scores if original.verdict else None}"
    )
    out.print(
        f"replay   {report.replay.id}: winner={replayed.winner if replayed else None} "
        f"scores={replayed.scores if replayed else None}{' (saved)' if save else ''}"
    )
    if report.identical:
        out.print("[green]identical[/green]: same path, same tool calls, same model replies, same verdict")
        return
    out.print(f"[yellow]diverged[/yellow]: {report.divergence}")
    raise typer.Exit(1)


def diff(
    run_a: Annotated[str, typer.Argument(help="A trajectory id (or unique prefix).")],
    run_b: Annotated[str, typer.Argument(help="Another trajectory id: a replay, a counterfactual, a rerun.")],
    store: StoreOpt = None,
) -> None:
    """Compare two runs: paths, tool calls, model replies, verdicts; report the first divergence (exit 1)."""
    from judgegraph.runtime._replay import first_divergence
    from judgegraph.store import TrajectoryStore

    path = existing_store(store)
    try:
        with TrajectoryStore(path) as st:
            a, b = st.get(run_a), st.get(run_b)
    except RunNotFoundError as e:
        raise fail(str(e)) from None
    for t in (a, b):
        v = t.verdict
        out.print(f"{t.id}  {t.judge}  {' -> '.join(t.path)}", soft_wrap=True, highlight=False)
        summary = f"winner={v.winner} scores={v.scores} valid={v.valid}" if v else "none"
        out.print(f"  verdict: {summary}")
    divergence = first_divergence(a, b)
    if divergence is None:
        out.print("[green]same[/green]: same path, tool calls, model replies and verdict")
        return
    out.print(f"[yellow]first divergence[/yellow]: {divergence}")
    raise typer.Exit(1)
