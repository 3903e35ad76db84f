"""`judgegraph viz`: the viewer."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judgegraph.cli._common import existing_store, fail, out
from judgegraph.cli._options import StoreOpt


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

    path = existing_store(store)
    with socket.socket() as probe:  # a clear error now rather than a uvicorn traceback later
        if probe.connect_ex((host, port)) == 0:
            raise fail(f"port {port} on {host} is taken: pick another with --port")
    app_ = create_app(path, evals_dir=evals or path.parent / "evals")
    out.print(f"judgegraph viz: open http://{host}:{port}/  (runs in {path}; Ctrl-C stops)", soft_wrap=True)
    uvicorn.run(app_, host=host, port=port, log_level="warning")
