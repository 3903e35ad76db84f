"""The agentic judge (after ARM-Thinker and TIR-Judge): the model thinks, calls tools, reads their results and
rules; step and tool-call budgets end in an explicit forced verdict.

agent -> act (tools, in parallel) -> agent -> ... -> finalize, or -> force_verdict -> finalize.
Backends that parse tool calls (vLLM) get native `tools=`, with the verdict as one more function and
`tool_choice="required"` where the server takes it (then every turn is a call the strict schemas allow); others
(llama.cpp's default chat format) are asked for one JSON action per turn under a schema, so the same graph runs on
both.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from judgegraph.agents import JudgeSpec
from judgegraph.graphs._context import JudgeContext
from judgegraph.graphs._protocol import register_graph
from judgegraph.graphs._recorded_graph import RecordedGraph
from judgegraph.graphs._recorder import add_recorded_nodes
from judgegraph.graphs._verdict_format import ModelRuling
from judgegraph.graphs.agentic.nodes import (
    act,
    agent,
    close_order,
    finalize,
    force_verdict,
    intake,
    route_after_act,
    route_after_agent,
    route_after_close,
)
from judgegraph.graphs.agentic.turns import AgenticOptions, AgentState


class AgenticGraph(RecordedGraph):
    """intake -> agent <-> act ... -> [force_verdict] -> close_order -> (next order: agent ...) -> finalize."""

    def build(self, spec: JudgeSpec) -> StateGraph[Any, Any, Any, Any]:
        g = StateGraph(AgentState, context_schema=JudgeContext)
        add_recorded_nodes(g, {fn.__name__: fn for fn in (intake, agent, act, force_verdict, close_order, finalize)})
        g.add_edge(START, "intake")
        g.add_edge("intake", "agent")
        assert isinstance(self.options, AgenticOptions)
        g.add_conditional_edges("agent", route_after_agent(self.options))
        g.add_conditional_edges("act", route_after_act(self.options))
        g.add_edge("force_verdict", "close_order")
        g.add_conditional_edges("close_order", route_after_close)
        g.add_edge("finalize", END)
        return g


register_graph("agentic", AgenticGraph, options=AgenticOptions, checkpointed=(ModelRuling,))
