"""Drawing a judge's graph offline: Mermaid text, or SVG/PNG through pygraphviz (which bundles graphviz)."""

from __future__ import annotations

from typing import Any, Literal

from judgegraph.errors import PrerequisiteError

DrawFormat = Literal["mermaid", "svg", "png"]


def draw(compiled: Any, fmt: DrawFormat) -> bytes:
    """The compiled graph drawn as `fmt`. Never calls a web service (LangGraph's PNG default does)."""
    graph = compiled.get_graph()
    if fmt == "mermaid":
        return str(graph.draw_mermaid()).encode()
    try:
        import pygraphviz as pgv
    except ImportError as e:
        raise PrerequisiteError("drawing SVG/PNG needs pygraphviz: pip install 'judgegraph[graph]'") from e
    g = pgv.AGraph(directed=True, rankdir="TB", fontname="Helvetica")
    g.node_attr.update(shape="box", style="rounded,filled", fillcolor="#eef3fb", fontname="Helvetica")
    for node_id, node in graph.nodes.items():
        label = node.name
        if node_id in ("__start__", "__end__"):
            g.add_node(node_id, label=label.strip("_"), shape="oval", fillcolor="#dddddd")
        else:
            g.add_node(node_id, label=label)
    for edge in graph.edges:
        g.add_edge(edge.source, edge.target, style="dashed" if edge.conditional else "solid")
    g.layout(prog="dot")
    return bytes(g.draw(format=fmt))
