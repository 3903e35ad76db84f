"""The options several commands share, each defined once: a command names it by its type (`store: StoreOpt`)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

StoreOpt = Annotated[Path | None, typer.Option("--store", help="Trajectory store (SQLite file).")]
ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model-url",
        "--model",
        help="OpenAI-compatible base URL, or several comma-separated; unset: the embedded CPU model.",
    ),
]
JudgeOpt = Annotated[
    str,
    typer.Option(
        "--judge", help="Which judge: a name (see `judgegraph judges`) or a judge folder (judge.toml and prompts)."
    ),
]
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
# Which recorded runs (runs, export): each a field of the store's RunFilter.
RUN_FILTERS: dict[str, object] = {
    "judge": Annotated[str | None, typer.Option("--judge", help="Runs of this judge.")],
    "correct": Annotated[
        bool | None, typer.Option("--correct/--incorrect", help="Runs whose verdict agrees (or not) with the label.")
    ],
    "valid": Annotated[bool | None, typer.Option("--valid/--invalid", help="Runs whose verdict is valid (or not).")],
    "tool": Annotated[str | None, typer.Option("--tool", help="Runs that called this tool.")],
    "since": Annotated[datetime | None, typer.Option("--since", help="Runs started at or after this time.")],
}


def with_run_filters(command: Callable[..., None]) -> Callable[..., None]:
    """`command(..., where: RunFilter)` as the CLI shows it: the run filters (`RUN_FILTERS`) as its last options
    in place of `where`, gathered into the `RunFilter` it is called with. One list of filters for every command
    that reads recorded runs."""
    signature = inspect.signature(command, eval_str=True, locals={"RunFilter": object})  # `where` is replaced
    kept = [p for p in signature.parameters.values() if p.name != "where"]
    added = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=option)
        for name, option in RUN_FILTERS.items()
    ]

    @functools.wraps(command)
    def filtered(**given: object) -> None:
        from judgegraph.store import RunFilter

        command(
            **{k: v for k, v in given.items() if k not in RUN_FILTERS},
            where=RunFilter(**{name: given[name] for name in RUN_FILTERS}),
        )

    filtered.__signature__ = signature.replace(parameters=[*kept, *added])  # type: ignore[attr-defined]
    filtered.__annotations__ = {p.name: p.annotation for p in [*kept, *added]}
    return filtered
