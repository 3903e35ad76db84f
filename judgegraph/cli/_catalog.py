"""What is registered: judges, their graphs, tools."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from judgegraph.cli._common import err, fail, out
from judgegraph.cli._tables import Column, fitted
from judgegraph.errors import JudgegraphError
from judgegraph.output import DRAW_FORMATS


def judges(
    langgraph: Annotated[
        Path | None,
        typer.Option(help="Write a langgraph.json listing the judges (for LangGraph Studio) instead of the table."),
    ] = None,
    builtin: Annotated[bool, typer.Option("--builtin", help="Only the judges judgegraph ships.")] = False,
) -> None:
    """List the registered judges (built-in and plugins')."""
    from judgegraph.agents import builtin_judge_names
    from judgegraph.agents import judges as registry
    from judgegraph.graphs.studio import studio_config

    names = builtin_judge_names() if builtin else registry.names()
    if langgraph is not None:
        # LangGraph resolves a file path from langgraph.json's folder: one only where that folder is a checkout
        checkout = (langgraph.parent / "graphs" / "studio.py").is_file()
        langgraph.write_text(json.dumps(studio_config(names, checkout=checkout), indent=2) + "\n")
        out.print(f"wrote {langgraph} ({len(names)} judges)")
        return
    columns = [
        Column("judge", width=12, keep=9),
        Column("graph", width=14, keep=5),
        Column("tools", width=20, keep=3, wrap=True),
        Column("version", width=16, keep=2),
        Column("description", width=24, keep=6, wrap=True),
    ]
    cells = []
    for name in names:
        spec = registry.get(name)
        cells.append([name, spec.graph, ", ".join(spec.tools), spec.version, spec.description])
    out.print(fitted(columns, cells, out))


def graph(
    name: Annotated[str, typer.Argument(help="Judge name.")],
    fmt: Annotated[str, typer.Option("--format", help=" | ".join(DRAW_FORMATS))] = "mermaid",
    output: Annotated[Path | None, typer.Option("-o", "--output", help="File to write (default: stdout).")] = None,
) -> None:
    """Draw a judge's graph offline."""
    from judgegraph.agents import resolve_judge
    from judgegraph.graphs import build_graph
    from judgegraph.output import draw

    if fmt not in DRAW_FORMATS:
        raise fail(f"unknown format {fmt!r}; use {', '.join(DRAW_FORMATS)}")
    try:
        data = draw(build_graph(resolve_judge(name)).compiled, fmt)
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
    columns = [
        Column("tool", width=18, keep=9),
        Column("arguments", width=22, keep=5, wrap=True),
        Column("by rule", keep=3),
        Column("description", width=20, keep=4, wrap=True),
    ]
    cells = []
    for name, spec in zip(tools, specs, strict=True):
        params = spec["function"]["parameters"].get("properties", {})
        args = ", ".join(f"{k}: {_type_name(v)}" for k, v in params.items())
        planned = "yes" if tools.get(name).plan is not None else "no"
        cells.append([name, args, planned, _first_sentence(spec["function"]["description"])])
    out.print(fitted(columns, cells, out))


def _first_sentence(text: str) -> str:
    """A description's first sentence, whatever lines it spans."""
    flat = " ".join(text.split())
    end = flat.find(". ")
    return flat if end < 0 else flat[: end + 1]


def _type_name(schema: dict[str, Any]) -> str:
    """An argument's JSON-schema type as a person reads it: `integer`, `string | null` (optional), `array`."""
    if "type" in schema:
        return str(schema["type"])
    options = [_type_name(s) for s in schema.get("anyOf", schema.get("oneOf", []))]
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    return " | ".join(options) or "any"


def plugins() -> None:
    """List the installed plugins: every entry point of judgegraph's groups, its package, and whether it loaded
    (exit 1 when one failed)."""
    import judgegraph.agents
    import judgegraph.backends
    import judgegraph.output
    import judgegraph.sandboxes
    import judgegraph.tools  # noqa: F401  (these imports create the registries that take plugins)
    from judgegraph.registry import Registry

    table = Table(title="plugins (entry-point groups: " + ", ".join(sorted(Registry.by_group)) + ")")
    for col in ("group", "name", "package", "entry point", "status"):
        table.add_column(col, overflow="fold")
    failed = 0
    for group, registry in sorted(Registry.by_group.items()):
        for p in registry.plugins():
            failed += p.error is not None
            status = "loaded" if p.error is None else f"[red]failed[/red]: {escape(p.error)}"
            table.add_row(group, p.name, f"{p.distribution} {p.version}", p.value, status)
    out.print(table if table.row_count else f"no plugins installed; {table.title}")
    if failed:
        raise typer.Exit(1)
