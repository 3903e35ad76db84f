"""Every registered judge's compiled graph, for LangGraph's own tooling (`langgraph.json` points here).

A judge is an attribute of this module by its name (`studio.evidence`, a plugin's `studio.concise`), compiled
when first asked for. `studio_config` writes the `langgraph.json` that lists them (`judgegraph judges --langgraph
FILE`); the repository's file lists the built-in judges, and a test holds it to the registry.

These are for drawing and inspecting. Running a judge needs its run context (model client, recorder, tool
services), which `judgegraph.Judge` supplies: use `Judge.load(name)` to judge.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from judgegraph.agents import judges
from judgegraph.graphs import build_graph

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph


@functools.cache
def compiled(name: str) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The compiled LangGraph graph of the judge `name`."""
    return build_graph(judges.get(name)).compiled


def studio_config(names: list[str], *, checkout: bool = True) -> dict[str, object]:
    """A `langgraph.json` listing the judges `names` as graphs of this module: in a checkout, by its file (the
    repository's own file, installed from `.`); anywhere else, by its import path in the installed package."""
    if checkout:
        return {
            "dependencies": ["."],
            "graphs": {n: f"./graphs/studio.py:{n}" for n in names},
            "python_version": "3.11",
        }
    graphs = {n: f"{__name__}:{n}" for n in names}
    return {"dependencies": ["judgegraph"], "graphs": graphs, "python_version": "3.11"}


def __getattr__(name: str) -> CompiledStateGraph[Any, Any, Any, Any]:
    if name.startswith("__") or name not in judges:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r} (and no judge of that name)")
    return compiled(name)
