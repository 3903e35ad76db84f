"""`judgegraph serve`: rewards over HTTP."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Annotated, Any

import typer

from judgegraph._gc import tune_gc
from judgegraph.cli._common import err, fail, server_settings
from judgegraph.cli._options import BudgetOpt, EmbeddedModelOpt, JudgeOpt, ModelOpt, StoreOpt


def serve(
    host: Annotated[str, typer.Option(help="Interface to bind (127.0.0.1: this machine only).")] = "127.0.0.1",
    port: int = 8080,
    judge_name: JudgeOpt = "evidence",
    model: ModelOpt = None,
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
    undecided: Annotated[
        str | None,
        typer.Option(
            help="A reward where no evidence decides: abstain (the default: invalid, with its reason, unless the "
            "model is trusted) | model | zero. Also JUDGEGRAPH_UNDECIDED."
        ),
    ] = None,
    model_trusted: Annotated[
        bool | None,
        typer.Option(
            "--model-trusted/--model-untrusted",
            help="Whether the model scores what no evidence decides (default: a served --model is, the embedded "
            "one is not). Also JUDGEGRAPH_MODEL_TRUSTED.",
        ),
    ] = None,
) -> None:
    """Serve rewards over HTTP: OpenRLHF's /reward, /v1/judge, /v1/judge/batch, /health, /metrics."""
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
    if undecided not in (None, "abstain", "model", "zero"):
        raise fail(f"unknown --undecided {undecided!r}; use abstain, model or zero")
    settings = server_settings(
        "judgegraph serve",
        model=model,
        store=store,
        budget=budget,
        embedded_model=embedded_model,
        undecided=undecided,
        model_trusted=model_trusted,
    )
    n = workers or (min(8, os.cpu_count() or 1) if model else 1)
    # Uvicorn's default keep-alive (5 s) equals httpx's pool expiry: a client reusing a connection just as the
    # server closes it gets a ReadError (seen under load). A server that keeps idle connections longer than
    # its clients' pools do never closes one under a request. On SIGTERM or Ctrl-C, requests in flight finish
    # (up to the per-request timeout) before a worker exits.
    options: dict[str, Any] = {"host": host, "port": port, "log_level": "warning", "timeout_keep_alive": keep_alive}
    options["timeout_graceful_shutdown"] = int(timeout) + 5
    auth = "on" if api_key else "off"
    ready = f"judgegraph serve: ready on http://{host}:{port} (judge {judge_name}, {n} worker{'s' * (n > 1)}, "
    _say_when_up(host, port, ready + f"auth {auth}; Ctrl-C stops)")
    if n == 1:
        tune_gc()
        uvicorn.run(create_app(config, **settings), **options)
        return
    shared = Path(tempfile.mkdtemp(prefix="judgegraph-metrics-"))
    spec = {"config": config.model_dump(), "settings": settings, "metrics_dir": str(shared)}
    os.environ[WORKER_SPEC] = json.dumps(spec, default=str)
    try:
        uvicorn.run("judgegraph.serving._server:app_from_environment", factory=True, workers=n, **options)
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def _say_when_up(host: str, port: int, line: str, wait_s: float = 600.0) -> None:
    """Print `line` once the server answers /health (its judge loaded), from a thread beside uvicorn's loop: one
    line whatever the worker count, so a person or a script can tell it started, and where."""
    import threading
    import time

    import httpx

    where = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host

    def poll() -> None:
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://{where}:{port}/health", timeout=2).status_code == 200:
                    err.print(line, soft_wrap=True, highlight=False, markup=False)
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)

    threading.Thread(target=poll, name="judgegraph-ready", daemon=True).start()
