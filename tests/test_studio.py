"""langgraph.json lists every built-in judge, and each entry is a compiled graph that draws offline."""

from __future__ import annotations

import importlib.util
import json

from judgegraph.agents import judges
from tests.conftest import ROOT


def test_langgraph_json_lists_every_builtin_judge() -> None:
    config = json.loads((ROOT / "langgraph.json").read_text())
    builtin = {n for n in judges if "_" not in n}  # tests register variants with underscores
    assert set(config["graphs"]) == builtin
    path = ROOT / "graphs" / "studio.py"
    spec = importlib.util.spec_from_file_location("studio_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, target in config["graphs"].items():
        file, attr = target.split(":")
        assert (ROOT / file).resolve() == path.resolve()
        graph = getattr(module, attr).get_graph()
        assert "__start__" in graph.nodes and "__end__" in graph.nodes, name
        assert "graph TD" in graph.draw_mermaid()
