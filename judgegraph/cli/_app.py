"""`judgegraph`: the one place where commands are registered (each lives in a module of its group). Printing
lives in this package and nowhere else."""

from __future__ import annotations

import typer

from judgegraph.cli import _catalog, _eval, _export, _judge, _mcp, _model, _runs, _sandbox, _serve, _train, _viz

# Click's plain help, not rich's boxes: it wraps whole words at any width (80 columns, a pipe, a CI log), where
# the boxed table cut option names short (`--model-url,--mo…`) and split help into one-word lines.
app = typer.Typer(
    no_args_is_help=True, add_completion=False, help="Agentic, tool-using LLM judges.", rich_markup_mode=None
)


def _version(value: bool) -> None:
    if value:
        from judgegraph._version import __version__

        typer.echo(f"judgegraph {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print judgegraph's version and exit."
    ),
) -> None:
    """Agentic, tool-using LLM judges."""


for command in (
    _judge.judge,
    _runs.runs,
    _runs.show,
    _runs.replay,
    _runs.diff,
    _export.export,
    _serve.serve,
):
    app.command()(command)
app.command("eval")(_eval.eval_)
app.command()(_viz.viz)
app.command()(_catalog.judges)
app.command()(_catalog.graph)
app.command("tools")(_catalog.list_tools)
app.command()(_catalog.plugins)
app.command()(_mcp.mcp)

model_app = typer.Typer(no_args_is_help=True, help="Start model servers.", rich_markup_mode=None)
model_app.command("vllm")(_model.model_vllm)
model_app.command("embedded")(_model.model_embedded)
model_app.command("list")(_model.model_list)
model_app.command("fetch")(_model.model_fetch)
app.add_typer(model_app, name="model")

train_app = typer.Typer(
    no_args_is_help=True, help="Train the agentic judge on its own runs (needs the train extra).", rich_markup_mode=None
)
train_app.command("run")(_train.train_run)
app.add_typer(train_app, name="train")

sandbox_app = typer.Typer(
    no_args_is_help=True, help="The code sandbox: build its image, see which backend runs.", rich_markup_mode=None
)
sandbox_app.command("build")(_sandbox.sandbox_build)
sandbox_app.command("doctor")(_sandbox.sandbox_doctor)
app.add_typer(sandbox_app, name="sandbox")


def main() -> None:
    app()
