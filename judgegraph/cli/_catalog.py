"""What is registered: judges, their graphs, tools."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from judgegraph.cli._common import (
    err,
    fail,
    out,
)
from judgegraph.errors import JudgegraphError
from judgegraph.output import DRAW_FORMATS

if TYPE_CHECKING:
    pass


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
        raise fail(f"unknown format {fmt!r}; use {', '.join(DRAW_FORMATS)}")
    try:
        data = draw(build_graph(judges.get(name)).compiled, fmt)
    except JudgegraphError as e:
        raise fail(str(e)) from None
    if output is not None:
        output.write_bytes(data)
        err.print(f"wrote {output}")
    elif fmt == "png":
        raise fail("PNG output needs -o FILE")
    else:
        sys.stdout.write(data.decode() + ("" if data.endswith(b"\n") else "\n"))


def list_tools(
    as_json: Annotated[bool, typer.Option("--json", help="Print the OpenAI function specs as JSON.")] = False,
) -> None:
    """List the registered tools with the argument schemas the model sees."""

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
