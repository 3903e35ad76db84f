"""`judgegraph judge`: a batch of requests, one result line each."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from judgegraph._gc import tune_gc
from judgegraph.backends import backend_profiles, model_backends
from judgegraph.cli._common import err, fail, load_settings, out, program
from judgegraph.cli._options import BudgetOpt, EmbeddedModelOpt, JudgeOpt, ModelOpt, StoreOpt
from judgegraph.cli._tables import Column, fitted
from judgegraph.errors import JudgegraphError
from judgegraph.runtime._batch import JudgeFileResult, judge_file
from judgegraph.sandboxes import sandbox_backends
from judgegraph.settings import Settings

if TYPE_CHECKING:
    from judgegraph.runtime._batch import JudgeRunner


class _RateColumn(ProgressColumn):
    """Judgments per second."""

    def render(self, task: Task) -> Text:
        return Text(f"{task.speed or 0.0:.1f}/s")


def judge(
    input: Annotated[Path, typer.Argument(help="JSONL file of JudgeRequests ('-' for stdin).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Where to write one result line per input.")],
    judge_name: JudgeOpt = "evidence",
    model: ModelOpt = None,
    backend: Annotated[
        str | None,
        typer.Option(
            "--backend",
            help=f"{' | '.join(sorted({*model_backends, *backend_profiles}))} (default: openai, its profile detected, "
            "with --model; else embedded).",
        ),
    ] = None,
    store: StoreOpt = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Requests judged at once.")] = 4,
    sandbox: Annotated[str | None, typer.Option(help=f"Code sandbox: auto | {' | '.join(sandbox_backends)}.")] = None,
    checkpoints: Annotated[str | None, typer.Option(help="LangGraph checkpoints: off | incomplete | all.")] = None,
    budget: BudgetOpt = None,
    embedded_model: EmbeddedModelOpt = None,
    resume: Annotated[bool, typer.Option("--resume", help="Skip ids OUTPUT already has results for; append.")] = False,
    ray: Annotated[
        bool, typer.Option("--ray", help="Spread the batch over Ray actors (RAY_ADDRESS, else a local Ray).")
    ] = False,
    ray_address: Annotated[
        str | None, typer.Option("--ray-address", help="Ray cluster to use, e.g. ray://head:10001 (implies --ray).")
    ] = None,
    ray_actors: Annotated[
        int | None, typer.Option("--ray-actors", min=1, help="Judge actors (default: one per cluster CPU).")
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers", min=1, help="Judge in N processes on this machine (for CPU-bound batches); one store."
        ),
    ] = None,
) -> None:
    """Judge every request in INPUT; write a result line for each (bad lines get an error line).

    With --ray or --workers, --concurrency counts requests in flight across all actors or processes; results and
    trajectories are collected here, in one output file and one store.
    """
    try:
        settings = load_settings(
            model_url=model,
            backend=backend,
            store_path=store,
            sandbox=sandbox,
            checkpoints=checkpoints,
            budget_s=budget,
            embedded_model=embedded_model,
        )
    except ValueError as e:
        raise fail(str(e)) from None
    runner: JudgeRunner | None = None
    if ray or ray_address or ray_actors:
        from judgegraph.serving import RayJudge

        runner = RayJudge(judge_name, settings, address=ray_address, actors=ray_actors, concurrency=concurrency)
    elif workers is not None and workers > 1:
        from judgegraph.serving import ProcessJudge

        runner = ProcessJudge(judge_name, settings, workers=workers)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("failed {task.fields[failed]}"),
        _RateColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    tune_gc()
    try:
        with Progress(*columns, console=err, disable=not err.is_terminal) as progress:
            result = asyncio.run(
                judge_file(
                    input,
                    output,
                    judge_name,
                    settings,
                    concurrency=concurrency,
                    resume=resume,
                    progress=progress,
                    runner=runner,
                )
            )
    except KeyboardInterrupt:
        raise fail(f"interrupted: every finished line is in {output}; rerun with --resume to continue", 130) from None
    except (JudgegraphError, OSError) as e:
        raise fail(str(e)) from None
    _print_results(result, settings)
    if result.failed:
        raise typer.Exit(1)


def _print_results(result: JudgeFileResult, settings: Settings) -> None:
    columns = [
        Column("id", width=12, keep=8),
        Column("winner", keep=7),
        Column("scores", width=10, keep=6),
        Column("valid", width=5, keep=7, wrap=True),
        Column("decided by", keep=5),
        Column("label", keep=6),
        Column("trajectory", width=25, keep=3),
    ]
    cells = []
    for line in result.lines:
        scores = ", ".join(f"{s:.2f}" for s in line.scores)
        correct = {True: "[green]correct[/green]", False: "[red]wrong[/red]", None: "-"}[line.correct]
        why = line.error or line.invalid_reason or ""
        valid = "yes" if line.valid else f"[red]no[/red] {why[:60]}"
        winner = "-" if line.winner is None else str(line.winner)
        cells.append(
            [
                line.id or f"line {line.line}",
                winner,
                scores,
                valid,
                line.decided_by or "-",
                correct,
                line.trajectory_id or "-",
            ]
        )
    table = fitted(columns, cells, out, title=f"{result.judged} judged, {result.failed} failed -> {result.output}")
    out.print(table)
    first = next((line.trajectory_id for line in result.lines if line.trajectory_id), None)
    store = f" --store {settings.store_path}"
    prog = program()
    out.print(f"Trajectories are in {settings.store_path}")
    out.print(f"  browse them: {prog} viz{store}")
    out.print(f"  list them:   {prog} runs{store}")
    if first:
        out.print(f"  look at one: {prog} show {first}{store}")
