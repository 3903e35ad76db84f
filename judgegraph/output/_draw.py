"""Drawing a judge's graph offline: Mermaid text, or SVG/PNG through pygraphviz (which bundles graphviz).

Given a run's path, the drawing highlights the nodes it visited (with visit counts) and the edges it took.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import pairwise
from typing import Any, Literal, get_args

from judgegraph.errors import PrerequisiteError

DrawFormat = Literal["mermaid", "svg", "png"]
DRAW_FORMATS: tuple[DrawFormat, ...] = get_args(DrawFormat)
START, END = "__start__", "__end__"


def taken_edges(path: Sequence[str], edges: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The graph edges a run with this node `path` went along (parallel branches make consecutive nodes that
    are not joined by an edge; those pairs are not edges taken)."""
    if not path:
        return set()
    steps = [START, *path, END]
    return {(a, b) for a, b in pairwise(steps) if (a, b) in edges}


def draw(compiled: Any, fmt: DrawFormat, path: Sequence[str] = ()) -> bytes:
    """The compiled graph drawn as `fmt`, `path` highlighted. Never calls a web service (LangGraph's PNG
    default does)."""
    graph = compiled.get_graph()
    if fmt == "mermaid":
        return str(graph.draw_mermaid()).encode()
    try:
        import pygraphviz as pgv
    except ImportError as e:
        raise PrerequisiteError("drawing SVG/PNG needs pygraphviz: pip install 'judgegraph[graph]'") from e
    visits = Counter(path)
    edges = {(e.source, e.target) for e in graph.edges}
    taken = taken_edges(path, edges)
    g = pgv.AGraph(directed=True, rankdir="TB", fontname="Helvetica")
    g.node_attr.update(shape="box", style="rounded,filled", fillcolor="#eef3fb", fontname="Helvetica")
    for node_id, node in graph.nodes.items():
        attrs: dict[str, Any] = {"id": f"node-{node_id}", "label": node.name}
        if node_id in (START, END):
            attrs.update(label=node.name.strip("_"), shape="oval", fillcolor="#dddddd")
        if visits[node_id] or (path and node_id in (START, END)):
            attrs.update({"class": "visited", "fillcolor": "#ffe3a3", "penwidth": 2, "color": "#c26b00"})
            if visits[node_id]:
                attrs["label"] = f"{node.name}\n×{visits[node_id]}"
        g.add_node(node_id, **attrs)
    for edge in graph.edges:
        attrs = {"style": "dashed" if edge.conditional else "solid"}
        if (edge.source, edge.target) in taken:
            attrs.update({"class": "taken", "color": "#c26b00", "penwidth": 2.5})
        g.add_edge(edge.source, edge.target, id=f"edge-{edge.source}-{edge.target}", **attrs)
    g.layout(prog="dot")
    return bytes(g.draw(format=fmt))
