"""`judgegraph mcp`: the tools and the judge over the Model Context Protocol."""

from __future__ import annotations

from typing import Annotated

import typer

from judgegraph.cli._common import err, fail, require_extra, serve_until_stopped, server_settings
from judgegraph.cli._options import BudgetOpt, EmbeddedModelOpt, JudgeOpt, ModelOpt, StoreOpt


def mcp(
    transport: Annotated[str, typer.Option(help="stdio (a client starts this command) | http (streamable HTTP).")] = (
        "stdio"
    ),
    host: Annotated[str, typer.Option(help="http: interface to bind (127.0.0.1: this machine only).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="http: port; the endpoint is /mcp.")] = 8000,
    judge_name: JudgeOpt = "evidence",
    model: ModelOpt = None,
    store: StoreOpt = None,
    budget: BudgetOpt = None,
    embedded_model: EmbeddedModelOpt = None,
    api_key: Annotated[
        str | None, typer.Option(envvar="JUDGEGRAPH_SERVER_KEY", help="http: require this key (x-api-key or bearer).")
    ] = None,
    max_concurrency: Annotated[int, typer.Option(min=1, help="Calls in flight; more are refused as busy.")] = 16,
    timeout: Annotated[float, typer.Option(help="Seconds per call.")] = 300.0,
    allow_local_files: Annotated[
        bool, typer.Option(help="Let requests name image and document files on this machine.")
    ] = False,
) -> None:
    """Serve the tools (every registered one) and the judge over MCP, to agents and RL environments."""
    require_extra("judgegraph mcp", "mcp")
    from judgegraph.runtime._judge import Judge
    from judgegraph.serving._mcp import MCPConfig, http_app, serve_stdio

    if transport not in ("stdio", "http"):
        raise fail(f"unknown transport {transport!r}; use stdio or http")
    config = MCPConfig(max_concurrency=max_concurrency, timeout_s=timeout, allow_local_files=allow_local_files)
    settings = server_settings("judgegraph mcp", model=model, store=store, budget=budget, embedded_model=embedded_model)

    async def run() -> None:
        judge = Judge.load(judge_name, **settings)
        await judge.open()
        try:
            if transport == "stdio":
                await serve_stdio(judge, config)
                return
            import uvicorn

            app = http_app(judge, config, host=host, api_key=api_key)
            err.print(f"judgegraph mcp: http://{host}:{port}/mcp (judge {judge.name}; Ctrl-C stops)")
            await uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).serve()
        finally:
            await judge.aclose()

    serve_until_stopped(run())
