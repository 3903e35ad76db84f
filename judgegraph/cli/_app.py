"""`judgegraph` commands (typer). Printing lives here and nowhere else."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from rich.console import Console
from rich.markup import escape
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
from rich.table import Table
from rich.text import Text

from judgegraph._gc import tune_gc
from judgegraph.backends import backend_profiles
from judgegraph.errors import JudgegraphError, RunNotFoundError
from judgegraph.output import DRAW_FORMATS, exporters
from judgegraph.runtime._batch import JudgeFileResult, judge_file
from judgegraph.sandboxes import sandbox_backends
from judgegraph.settings import Settings

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Agentic, tool-using LLM judges.")
model_app = typer.Typer(no_args_is_help=True, help="Start model servers.")
app.add_typer(model_app, name="model")
train_app = typer.Typer(no_args_is_help=True, help="Train the agentic judge on its own runs (needs the train extra).")
app.add_typer(train_app, name="train")
sandbox_app = typer.Typer(no_args_is_help=True, help="The code sandbox: build its image, see which backend runs.")
app.add_typer(sandbox_app, name="sandbox")
if TYPE_CHECKING:
    from judgegraph.evals._splits import Split
    from judgegraph.runtime._batch import JudgeRunner

out = Console()
err = Console(stderr=True)

StoreOpt = Annotated[Path | None, typer.Option("--store", help="Trajectory store (SQLite file).")]
EmbeddedModelOpt = Annotated[
    str | None,
    typer.Option(
        "--embedded-model",
        help="The embedded model: a GGUF file (a trained judge, any model) or a known name (`judgegraph model "
        "list`); default: JUDGEGRAPH_EMBEDDED_MODEL, else the bundled SmolLM2-135M.",
    ),
]
BudgetOpt = Annotated[
    float | None,
    typer.Option("--budget", min=0.001, help="Seconds per judgment; past it the verdict is invalid, saying so."),
]


def _settings(**overrides: Any) -> Settings:
    return Settings.from_env(**overrides)


class _RateColumn(ProgressColumn):
    """Judgments per second."""

    def render(self, task: Task) -> Text:
        return Text(f"{task.speed or 0.0:.1f}/s")


def _existing_store(store: Path | None) -> Path:
    """The trajectory store to read (the flag, else settings); a clear error when there is none yet."""
    path = _settings(store_path=store).store_path
    if not path.exists():
        raise _fail(f"no trajectory store at {path}")
    return path


def _fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[red]error:[/red] {escape(message)}")  # messages hold brackets (extras, paths), not markup
    return typer.Exit(code)


@app.command()
def judge(
    input: Annotated[Path, typer.Argument(help="JSONL file of JudgeRequests ('-' for stdin).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Where to write one result line per input.")],
    judge_name: Annotated[str, typer.Option("--judge", help="Which judge (see `judgegraph judges`).")] = "evidence",
    model: Annotated[
        str | None,
        typer.Option(
            "--model-url",
            "--model",
            help="OpenAI-compatible base URL, or several comma-separated; unset: the embedded CPU model.",
        ),
    ] = None,
    backend: Annotated[
        str | None, typer.Option("--backend", help=f"{' | '.join(backend_profiles)} (default: detect).")
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
        settings = _settings(
            model_url=model,
            backend=backend,
            store_path=store,
            sandbox=sandbox,
            checkpoints=checkpoints,
            budget_s=budget,
            embedded_model=embedded_model,
        )
    except ValueError as e:
        raise _fail(str(e)) from None
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
        raise _fail(f"interrupted: every finished line is in {output}; rerun with --resume to continue", 130) from None
    except (JudgegraphError, OSError) as e:
        raise _fail(str(e)) from None
    _print_results(result, settings)
    if result.failed:
        raise typer.Exit(1)


def _print_results(result: JudgeFileResult, settings: Settings) -> None:
    table = Table(title=f"{result.judged} judged, {result.failed} failed -> {result.output}")
    for col in ("id", "winner", "scores", "valid", "decided by", "label"):
        table.add_column(col, overflow="fold")
    table.add_column("trajectory", no_wrap=True, min_width=25)
    for line in result.lines:
        scores = ", ".join(f"{s:.2f}" for s in line.scores)
        correct = {True: "[green]correct[/green]", False: "[red]wrong[/red]", None: "-"}[line.correct]
        why = line.error or line.invalid_reason or ""
        valid = "yes" if line.valid else f"[red]no[/red] {why[:60]}"
        winner = "-" if line.winner is None else str(line.winner)
        table.add_row(
            line.id or f"line {line.line}",
            winner,
            scores,
            valid,
            line.decided_by or "-",
            correct,
            line.trajectory_id or "-",
        )
    out.print(table)
    first = next((line.trajectory_id for line in result.lines if line.trajectory_id), None)
    store = f" --store {settings.store_path}"
    prog = _program()
    out.print(f"Trajectories are in {settings.store_path}")
    out.print(f"  browse them: {prog} viz{store}")
    out.print(f"  list them:   {prog} runs{store}")
    if first:
        out.print(f"  look at one: {prog} show {first}{store}")


def _program() -> str:
    """How the user can run this command again: `.venv/bin/judgegraph` when it is not on PATH."""
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else "judgegraph"
    if os.path.basename(argv0) != "judgegraph" or shutil.which("judgegraph") == os.path.abspath(argv0):
        return "judgegraph"
    rel = os.path.relpath(argv0)
    return rel if not rel.startswith("..") else argv0


@app.command()
def runs(
    store: StoreOpt = None,
    judge_name: Annotated[str | None, typer.Option("--judge")] = None,
    correct: Annotated[bool | None, typer.Option("--correct", help="true/false: agrees with the label.")] = None,
    valid: Annotated[bool | None, typer.Option("--valid")] = None,
    tool: Annotated[str | None, typer.Option("--tool", help="Runs that called this tool.")] = None,
    since: Annotated[datetime | None, typer.Option("--since")] = None,
    limit: Annotated[int, typer.Option(min=1)] = 50,
) -> None:
    """List recorded runs, newest first."""
    from judgegraph.store import TrajectoryStore

    path = _existing_store(store)
    st = TrajectoryStore(path)
    rows = st.list_runs(judge=judge_name, correct=correct, valid=valid, tool=tool, since=since, limit=limit)
    table = Table(title=f"{len(rows)} of {st.count()} runs in {path}")
    table.add_column("trajectory", no_wrap=True, min_width=25)
    for col in ("judge", "request", "status", "valid", "winner", "correct", "decided by", "started", "s"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(
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
        )
    out.print(table)


@app.command()
def show(
    run_id: Annotated[str, typer.Argument(help="Trajectory id (a unique prefix will do).")],
    store: StoreOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole trajectory as JSON.")] = False,
) -> None:
    """Print one recorded run: request, path, every event, verdict."""
    from judgegraph.cli._show import render_trajectory
    from judgegraph.store import TrajectoryStore

    path = _existing_store(store)
    try:
        trajectory = TrajectoryStore(path).get(run_id)
    except RunNotFoundError as e:
        raise _fail(str(e)) from None
    if as_json:
        sys.stdout.write(trajectory.model_dump_json(indent=2) + "\n")
    else:
        render_trajectory(trajectory, out)


@app.command()
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
    model: Annotated[str | None, typer.Option("--model-url", "--model", help="The live model for --from-step.")] = None,
) -> None:
    """Re-run a recorded judgement from its recorded model turns and tool results (no model, no tools).

    Exit 0 when the replay reproduces the run exactly, 1 at the first divergence (always reported).
    """
    from judgegraph.runtime._judge import Judge
    from judgegraph.schema import ToolResult
    from judgegraph.store import TrajectoryStore

    path = _existing_store(store)
    try:
        original = TrajectoryStore(path).get(run_id)
        overrides = {}
        for item in override or []:
            seq, _, file = item.partition("=")
            overrides[int(seq)] = ToolResult.model_validate_json(Path(file).read_text())
    except (RunNotFoundError, ValueError, OSError) as e:
        raise _fail(str(e)) from None

    async def run() -> Any:
        judge = Judge.load(original.judge, store=path, model_url=model)
        try:
            return await judge.areplay(original, overrides=overrides, from_step=from_step, record=save)
        finally:
            await judge.aclose()

    report = asyncio.run(run())
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


@app.command()
def diff(
    run_a: Annotated[str, typer.Argument(help="A trajectory id (or unique prefix).")],
    run_b: Annotated[str, typer.Argument(help="Another trajectory id: a replay, a counterfactual, a rerun.")],
    store: StoreOpt = None,
) -> None:
    """Compare two runs: paths, tool calls, model replies, verdicts; report the first divergence (exit 1)."""
    from judgegraph.runtime._replay import first_divergence
    from judgegraph.store import TrajectoryStore

    path = _existing_store(store)
    st = TrajectoryStore(path)
    try:
        a, b = st.get(run_a), st.get(run_b)
    except RunNotFoundError as e:
        raise _fail(str(e)) from None
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


@app.command()
def export(
    fmt: Annotated[str, typer.Option("--format", help=" | ".join(exporters))],
    output: Annotated[Path, typer.Option("-o", "--output", help="A .jsonl or .parquet file.")],
    store: StoreOpt = None,
    judge_name: Annotated[str | None, typer.Option("--judge")] = None,
    correct: Annotated[bool | None, typer.Option("--correct", help="true/false: agrees with the label.")] = None,
    valid: Annotated[bool | None, typer.Option("--valid")] = None,
    tool: Annotated[str | None, typer.Option("--tool", help="Runs that called this tool.")] = None,
    since: Annotated[datetime | None, typer.Option("--since")] = None,
    limit: Annotated[int, typer.Option(min=1)] = 100_000,
) -> None:
    """Export recorded runs as training data for the judge (JSONL, or Parquet by the file's suffix)."""
    from judgegraph.output import export as write_export
    from judgegraph.store import TrajectoryStore

    if fmt not in exporters:
        raise _fail(f"unknown format {fmt!r}; known: {', '.join(exporters)}")
    path = _existing_store(store)
    st = TrajectoryStore(path)
    found = st.list_runs(judge=judge_name, correct=correct, valid=valid, tool=tool, since=since, limit=limit)
    trajectories = [st.get(r.id) for r in found if r.status == "complete"]
    rows = write_export(trajectories, fmt, output)
    out.print(f"wrote {rows} {fmt} rows from {len(trajectories)} runs to {output}")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to bind (127.0.0.1: this machine only).")] = "127.0.0.1",
    port: int = 8080,
    judge_name: Annotated[str, typer.Option("--judge")] = "evidence",
    model: Annotated[
        str | None,
        typer.Option("--model-url", "--model", help="OpenAI-compatible URL(s), comma-separated; unset: embedded."),
    ] = None,
    store: StoreOpt = None,
    api_key: Annotated[str | None, typer.Option(envvar="JUDGEGRAPH_SERVER_KEY", help="Require this key.")] = None,
    max_concurrency: Annotated[int, typer.Option(min=1, help="Requests in flight before 429.")] = 64,
    allow_local_files: Annotated[
        bool, typer.Option(help="Let requests name image and document files on this machine.")
    ] = False,
    timeout: Annotated[float, typer.Option(help="Seconds per request before 504.")] = 300.0,
    budget: BudgetOpt = None,
    embedded_model: EmbeddedModelOpt = None,
    keep_alive: Annotated[
        int, typer.Option(min=1, help="Seconds an idle client connection stays open (longer than clients' pools).")
    ] = 75,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Server processes behind the one port (uvicorn's workers), one store. Default: the cores (at most "
            "8) with --model; 1 without (each worker would start its own embedded model).",
        ),
    ] = None,
) -> None:
    """Serve rewards over HTTP: OpenRLHF's /reward, /v1/judge, /v1/judge/batch, /health, /metrics."""
    import shutil
    import tempfile

    import uvicorn

    from judgegraph.serving import ServerConfig, create_app
    from judgegraph.serving._server import WORKER_SPEC

    config = ServerConfig(
        judge=judge_name,
        api_key=api_key,
        max_concurrency=max_concurrency,
        timeout_s=timeout,
        allow_local_files=allow_local_files,
    )
    given = {"model_url": model, "store": store, "budget_s": budget, "embedded_model": embedded_model}
    settings: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    n = workers or (min(8, os.cpu_count() or 1) if model else 1)
    # Uvicorn's default keep-alive (5 s) equals httpx's pool expiry: a client reusing a connection just as the
    # server closes it gets a ReadError (seen under load). A server that keeps idle connections longer than
    # its clients' pools do never closes one under a request. On SIGTERM or Ctrl-C, requests in flight finish
    # (up to the per-request timeout) before a worker exits.
    options: dict[str, Any] = {"host": host, "port": port, "log_level": "warning", "timeout_keep_alive": keep_alive}
    options["timeout_graceful_shutdown"] = int(timeout) + 5
    if n == 1:
        tune_gc()
        uvicorn.run(create_app(config, **settings), **options)
        return
    shared = Path(tempfile.mkdtemp(prefix="judgegraph-metrics-"))
    spec = {"config": config.model_dump(), "settings": settings, "metrics_dir": str(shared)}
    os.environ[WORKER_SPEC] = json.dumps(spec, default=str)
    err.print(f"serving with {n} worker processes on http://{host}:{port}")
    try:
        uvicorn.run("judgegraph.serving._server:app_from_environment", factory=True, workers=n, **options)
    finally:
        shutil.rmtree(shared, ignore_errors=True)


@app.command("eval")
def eval_(
    suite: Annotated[
        str, typer.Argument(help="A bundled set (code, math, ...), a benchmark (rewardbench, ... with --file), or all.")
    ],
    judge_name: Annotated[str, typer.Option("--judge", help="Which judge (eval all: every judge).")] = "evidence",
    model: Annotated[
        str | None, typer.Option("--model-url", "--model", help="OpenAI-compatible URL(s); unset: embedded.")
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Requests per set (bundled sets: default 20).")] = None,
    file: Annotated[Path | None, typer.Option("--file", help="The benchmark's file (JSON or JSONL).")] = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Report folder (default: evals/ beside the store).")
    ] = None,
    store: StoreOpt = None,
    concurrency: Annotated[int, typer.Option(min=1)] = 4,
    judges_: Annotated[
        str | None, typer.Option("--judges", help="eval all: comma-separated judges (default: every one).")
    ] = None,
    report: Annotated[
        Path, typer.Option("--report", help="eval all: the Markdown file whose comparison section to (re)write.")
    ] = Path("EVALS.md"),
    budget: BudgetOpt = None,
    embedded_model: EmbeddedModelOpt = None,
    split: Annotated[
        str | None,
        typer.Option(help="Bundled sets: only the `eval` or the `train` split (by request id); default: both."),
    ] = None,
) -> None:
    """Run a judge over an eval set, record every run, and write a report (JSON, Markdown, plots)."""
    from judgegraph.evals._compare import run_all
    from judgegraph.evals._harness import run_eval, suites

    if suite != "all" and suite not in suites():
        raise _fail(f"unknown suite {suite!r}; known: all, {', '.join(suites())}")
    if split not in (None, "train", "eval"):
        raise _fail(f"unknown split {split!r}; known: train, eval")
    chosen = cast("Split | None", split)
    settings = _settings(model_url=model, store_path=store, budget_s=budget, embedded_model=embedded_model)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    root = output or settings.store_path.parent / "evals"
    tune_gc()
    command = "judgegraph eval " + " ".join(sys.argv[2:]) if len(sys.argv) > 2 else f"judgegraph eval {suite}"
    try:
        if suite == "all":
            names = judges_.split(",") if judges_ else None
            text = asyncio.run(
                run_all(
                    settings,
                    root / f"all-{stamp}",
                    judges=names,
                    limit=limit,
                    concurrency=concurrency,
                    command=command,
                    report=report,
                    split=chosen,
                )
            )
            out.print(text, soft_wrap=True, highlight=False, markup=False)
            out.print(f"wrote {report}")
            return
        result = asyncio.run(
            run_eval(
                suite,
                judge_name,
                settings,
                root / f"{suite}-{judge_name}-{stamp}",
                limit=limit,
                file=file,
                concurrency=concurrency,
                command=command,
                split=chosen,
            )
        )
    except (ValueError, OSError, JudgegraphError) as e:
        raise _fail(str(e)) from None
    m = result.metrics
    acc = "–" if m.accuracy is None else f"{100 * m.accuracy:.1f}%"
    out.print(
        f"{judge_name} on {suite}: {m.n} judged, accuracy {acc}, valid {100 * m.valid_rate:.0f}%, failed {m.failed}"
    )
    if result.official is not None:
        out.print(f"official score: {result.official.get('score')}")
    out.print(f"report: {root / f'{suite}-{judge_name}-{stamp}' / 'report.md'}", soft_wrap=True)


@app.command()
def viz(
    store: StoreOpt = None,
    port: int = 8765,
    host: Annotated[str, typer.Option(help="Interface to bind (127.0.0.1: this machine only).")] = "127.0.0.1",
    evals: Annotated[
        Path | None, typer.Option(help="Folder of eval reports to show (default: evals/ beside the store).")
    ] = None,
) -> None:
    """Look at runs in the browser: the runs list, each run's path through its graph, events, images, diffs."""
    import socket

    import uvicorn

    from judgegraph.viz import create_app

    path = _existing_store(store)
    with socket.socket() as probe:  # a clear error now rather than a uvicorn traceback later
        if probe.connect_ex((host, port)) == 0:
            raise _fail(f"port {port} on {host} is taken: pick another with --port")
    app_ = create_app(path, evals_dir=evals or path.parent / "evals")
    out.print(f"judgegraph viz: open http://{host}:{port}/  (runs in {path}; Ctrl-C stops)", soft_wrap=True)
    uvicorn.run(app_, host=host, port=port, log_level="warning")


@app.command()
def judges() -> None:
    """List the registered judges."""
    from judgegraph.agents import judges as registry

    table = Table()
    for col in ("judge", "graph", "tools", "version", "description"):
        table.add_column(col)
    for name in registry:
        spec = registry.get(name)
        table.add_row(name, spec.graph, ", ".join(spec.tools), spec.version, spec.description)
    out.print(table)


@app.command()
def graph(
    name: Annotated[str, typer.Argument(help="Judge name.")],
    fmt: Annotated[str, typer.Option("--format", help=" | ".join(DRAW_FORMATS))] = "mermaid",
    output: Annotated[Path | None, typer.Option("-o", "--output", help="File to write (default: stdout).")] = None,
) -> None:
    """Draw a judge's graph offline."""
    from judgegraph.agents import judges
    from judgegraph.graphs import build_graph
    from judgegraph.output import draw

    if fmt not in DRAW_FORMATS:
        raise _fail(f"unknown format {fmt!r}; use {', '.join(DRAW_FORMATS)}")
    try:
        data = draw(build_graph(judges.get(name)).compiled, fmt)
    except JudgegraphError as e:
        raise _fail(str(e)) from None
    if output is not None:
        output.write_bytes(data)
        err.print(f"wrote {output}")
    elif fmt == "png":
        raise _fail("PNG output needs -o FILE")
    else:
        sys.stdout.write(data.decode() + ("" if data.endswith(b"\n") else "\n"))


@model_app.command("vllm")
def model_vllm(
    model: Annotated[
        str,
        typer.Argument(
            help="A model folder or id on this machine, a GGUF file, or a known model name (`judgegraph model "
            "list`); GGUF files and names are dequantized into a Hugging Face folder first (vLLM's CPU build "
            "cannot load GGUF)."
        ),
    ],
    port: int = 8000,
    host: str = "127.0.0.1",
    tool_call_parser: Annotated[str | None, typer.Option(help="Default: the parser for the model family.")] = None,
    chat_template: Annotated[
        str | None, typer.Option(help="Default: the bundled tool-aware one where the family's own ignores tools.")
    ] = None,
    max_model_len: int | None = None,
    gpu_memory_utilization: float | None = None,
    tensor_parallel_size: int = 1,
    served_model_name: str | None = None,
    cpu: Annotated[
        bool, typer.Option("--cpu", help="vLLM's CPU build (`make vllm`): eager, bfloat16, every core.")
    ] = False,
    python: Annotated[
        str | None,
        typer.Option(help="The interpreter of vLLM's environment (default with --cpu: .venv-vllm/bin/python)."),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the command instead of running it.")] = False,
) -> None:
    """Serve a model with vLLM (a GPU machine, or vLLM's CPU build with --cpu), with the flags judgegraph's tool
    calls need."""
    import shlex
    import shutil

    from judgegraph.backends import VllmLaunch, local_models, model_file, vllm_command
    from judgegraph.backends._embedded import model_alias
    from judgegraph.backends._vllm import vllm_environment

    if model in local_models or model.endswith(".gguf"):
        from judgegraph.training import to_hf

        try:
            gguf = model_file(model)
            served_model_name = served_model_name or (model_alias(model) if model in local_models else gguf.stem)
            err.print(f"converting {gguf} to a Hugging Face folder for vLLM (once per file)...")
            model = str(to_hf(gguf))
        except JudgegraphError as e:
            raise _fail(str(e)) from None
    if cpu and python is None:
        python = ".venv-vllm/bin/python"
    launch = VllmLaunch(
        model=model,
        port=port,
        host=host,
        tool_call_parser=tool_call_parser,
        chat_template=chat_template,
        max_model_len=max_model_len,
        gpu_memory_utilization=gpu_memory_utilization,
        tensor_parallel_size=tensor_parallel_size,
        served_model_name=served_model_name,
        cpu=cpu,
        python=python,
    )
    cmd = vllm_command(launch)
    env = vllm_environment(launch)
    if dry_run:
        prefix = " ".join(f"{k}={v}" for k, v in env.items())
        out.print(f"{prefix} {shlex.join(cmd)}", soft_wrap=True, highlight=False)
        return
    if shutil.which(cmd[0]) is None:
        hint = "run `make vllm`" if cpu else "pip install vllm (on a GPU machine), or use --cpu"
        raise _fail(f"{cmd[0]} is not here: {hint}")
    err.print(f"point judgegraph at it with: --model http://{host}:{port}/v1")
    os.execvpe(cmd[0], cmd, {**os.environ, **env})


@model_app.command("embedded")
def model_embedded(
    threads: int | None = None,
    model: Annotated[
        str | None, typer.Option("--model", help="A known model's name or a GGUF file (default: the bundled one).")
    ] = None,
) -> None:
    """Serve the embedded CPU model (SmolLM2-135M-Instruct, or another GGUF) until Ctrl-C."""
    from judgegraph.backends import EmbeddedServer

    async def serve() -> None:
        async with EmbeddedServer(n_threads=threads, model=model) as server:
            out.print(f"serving the embedded model at {server.base_url} (Ctrl-C stops it)")
            await asyncio.Event().wait()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
    except JudgegraphError as e:
        raise _fail(str(e)) from None


@model_app.command("list")
def model_list() -> None:
    """The models `--embedded-model` knows by name, and whether each is here."""
    from judgegraph.backends import local_models, model_file

    for name in local_models:
        known = local_models.get(name)
        try:
            where = str(model_file(name))
        except JudgegraphError:
            where = f"not fetched: judgegraph model fetch {name}"
        out.print(f"{name}\t{known.title}\t{where}", soft_wrap=True, highlight=False)


@model_app.command("fetch")
def model_fetch(name: Annotated[str, typer.Argument(help="A known model's name (`judgegraph model list`).")]) -> None:
    """Download a model's hash-pinned wheels, rebuild its GGUF into judgegraph's cache and verify its SHA-256."""
    from judgegraph.backends import fetch_model

    try:
        path = fetch_model(name)
    except JudgegraphError as e:
        raise _fail(str(e)) from None
    out.print(f"{path}\njudge with it: judgegraph judge INPUT --embedded-model {name}", soft_wrap=True)


@app.command("tools")
def list_tools(
    as_json: Annotated[bool, typer.Option("--json", help="Print the OpenAI function specs as JSON.")] = False,
) -> None:
    """List the registered tools with the argument schemas the model sees."""
    import json

    from judgegraph.tools import tools

    specs = [tools.get(name).openai_spec() for name in tools]
    if as_json:
        sys.stdout.write(json.dumps(specs, indent=2) + "\n")
        return
    table = Table()
    for col in ("tool", "arguments", "planned by rule", "description"):
        table.add_column(col, overflow="fold")
    for name, spec in zip(tools, specs, strict=True):
        params = spec["function"]["parameters"].get("properties", {})
        args = ", ".join(f"{k}: {v.get('type', '?')}" for k, v in params.items())
        planned = "yes" if tools.get(name).plan is not None else "no"
        table.add_row(name, args, planned, spec["function"]["description"].splitlines()[0])
    out.print(table)


@train_app.command("run")
def train_run(
    run: Annotated[Path, typer.Option("--run", help="The run folder (resumed if it exists).")] = Path(
        ".judgegraph/train"
    ),
    sets: Annotated[
        str | None, typer.Option(help="Comma-separated bundled sets (default: the verifiable ones).")
    ] = None,
    per_set: Annotated[int, typer.Option(min=1, help="Training-split requests per set.")] = 4,
    epochs: Annotated[float, typer.Option(min=0.01)] = 1.0,
    max_steps: Annotated[int, typer.Option(help="Stop SFT after this many steps (-1: the epochs).")] = -1,
    rounds: Annotated[int, typer.Option(min=0, help="Rejection-sampling rounds after SFT (0: SFT only).")] = 1,
    samples: Annotated[
        int,
        typer.Option(
            min=1, help="Self-play runs per request in each round, at most (until one is settled by its evidence)."
        ),
    ] = 2,
    temperature: Annotated[float, typer.Option(min=0.0, help="Self-play sampling temperature.")] = 0.8,
    explore: Annotated[
        bool,
        typer.Option(
            help="Self-play also tries each call the tools propose to explore (an image's quarters, a named "
            "document's pages) where no sample settled the request."
        ),
    ] = True,
    evaluate: Annotated[
        int, typer.Option(min=0, help="Evaluation-split pairs a set to judge before and after training (0: none).")
    ] = 3,
    report: Annotated[
        Path | None, typer.Option(help="Also write the before/after table as a section of this Markdown file.")
    ] = None,
) -> None:
    """Collect teacher runs on the training split, fine-tune the embedded model on them (SFT), convert to GGUF;
    then rejection-sampling rounds: the trained judge samples its own runs, the best right run per request is
    kept, SFT again on those and the teacher's runs, convert again; then judge the evaluation split with the
    agentic judge before and after training, and with the trained model without tools (RUN/eval.md).

    Then judge with it: `judgegraph judge --judge agentic --embedded-model RUN/judge.gguf ...`."""
    from judgegraph.training import SFTSettings, recipe

    try:
        summary = recipe(
            run,
            sets=sets.split(",") if sets else None,
            per_set=per_set,
            sft=SFTSettings(epochs=epochs, max_steps=max_steps),
            rounds=rounds,
            samples=samples,
            temperature=temperature,
            explore=explore,
            evaluate=evaluate,
            report=report,
        )
    except (ValueError, OSError, JudgegraphError) as e:
        raise _fail(str(e)) from None
    import json

    out.print(json.dumps(summary, indent=1), soft_wrap=True, highlight=False, markup=False)
    if "evaluation" in summary:
        out.print(f"before and after training: {run / 'eval.md'}" + (f" (and {report})" if report else ""))
    out.print(f"judge with it: judgegraph judge INPUT --judge agentic --embedded-model {summary['gguf']}")


@sandbox_app.command("build")
def sandbox_build(
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if the image exists.")] = False,
) -> None:
    """Build the Docker sandbox image locally (debootstrap + docker import; no registry). Needs root."""
    import logging

    import docker

    from judgegraph.sandboxes import build_image

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        client = docker.from_env(timeout=600)
        client.ping()
    except Exception as e:
        raise _fail(
            f"no Docker engine answers ({e}); start dockerd (as root: `make services`, or scripts/test-services.sh)"
        ) from None
    try:
        tag = build_image(client, force=force)
    except JudgegraphError as e:
        raise _fail(str(e)) from None
    out.print(f"sandbox image: {tag}")


@sandbox_app.command("doctor")
def sandbox_doctor() -> None:
    """Say which sandbox backend is active here, and why."""
    from judgegraph.sandboxes import doctor

    report = asyncio.run(doctor())
    for b in report.backends:
        mark = "[green]available[/green]" if b.available else "[red]unavailable[/red]"
        out.print(f"{b.name:8} {mark}  {b.detail}")
    if report.active is None:
        raise _fail(report.reason)
    out.print(f"active: [bold]{report.active}[/bold] ({report.reason})")


def main() -> None:
    app()
