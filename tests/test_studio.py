"""langgraph.json lists every built-in judge as the registry says (generated, never edited by hand), and each
entry, a plugin's judge too, is a compiled graph that draws offline."""

from __future__ import annotations

import importlib.util
import json
from types import ModuleType

from judgegraph.agents import builtin_judge_names, judges
from judgegraph.graphs.studio import studio_config
from tests.conftest import ROOT

PATH = ROOT / "graphs" / "studio.py"


def _studio() -> ModuleType:
    """graphs/studio.py loaded from its file, as LangGraph's tooling loads it."""
    spec = importlib.util.spec_from_file_location("studio_under_test", PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_langgraph_json_is_generated_from_the_judge_registry() -> None:
    config = json.loads((ROOT / "langgraph.json").read_text())
    assert set(builtin_judge_names()) <= set(judges.names())
    # Regenerate with: judgegraph judges --langgraph langgraph.json --builtin
    assert config == studio_config(builtin_judge_names()), "langgraph.json drifted from the judge registry"
    module = _studio()
    for name, target in config["graphs"].items():
        file, attr = target.split(":")
        assert (ROOT / file).resolve() == PATH.resolve()
        graph = getattr(module, attr).get_graph()
        assert "__start__" in graph.nodes and "__end__" in graph.nodes, name
        assert "graph TD" in graph.draw_mermaid()


def test_every_registered_judge_is_a_studio_graph() -> None:
    module = _studio()
    for name in judges.names():
        assert "__start__" in getattr(module, name).get_graph().nodes, name
    assert not hasattr(module, "no_such_judge")
