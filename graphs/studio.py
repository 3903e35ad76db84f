"""Every built-in judge's compiled graph, for LangGraph's own tooling (`langgraph.json` points here).

These are for drawing and inspecting. Running a judge needs its run context (model client, recorder, tool
services), which `judgegraph.Judge` supplies: use `Judge.load(name)` to judge.
"""

from __future__ import annotations

from typing import Any

from judgegraph.agents import judges
from judgegraph.graphs import build_graph

BUILTIN = ("evidence", "skill", "agentic", "rubric", "propositions", "llm")


def compiled(name: str) -> Any:
    """The compiled LangGraph graph of the judge `name`."""
    return build_graph(judges.get(name)).compiled


evidence = compiled("evidence")
skill = compiled("skill")
agentic = compiled("agentic")
rubric = compiled("rubric")
propositions = compiled("propositions")
llm = compiled("llm")
