"""The evidence-first and skill graphs: evidence (plan, run the calls in parallel, weigh them) -> [the end, where
the evidence decides | deliberate | tournament] -> finalize. Wiring only; the nodes hold the logic."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from judgegraph.agents import JudgeSpec
from judgegraph.graphs._context import JudgeContext
from judgegraph.graphs._protocol import register_graph
from judgegraph.graphs._recorded_graph import RecordedGraph
from judgegraph.graphs._recorder import add_recorded_nodes
from judgegraph.graphs._verdict_format import ModelRuling
from judgegraph.graphs.evidence import deliberation, nodes
from judgegraph.graphs.evidence.options import EvidenceOptions
from judgegraph.graphs.evidence.state import JudgeState


class EvidenceFirstGraph(RecordedGraph):
    """evidence (plan, run the calls in parallel, weigh them) -> [the end, where the evidence decides |
    deliberate (retry) | tournament] -> finalize. Where a check decides, that is one super-step."""

    selects_skill = False
    """Skill judges pick a skill first, in `evidence`; the rest of the wiring is shared."""

    def build(self, spec: JudgeSpec) -> StateGraph[Any, Any, Any, Any]:
        g = StateGraph(JudgeState, context_schema=JudgeContext)
        add_recorded_nodes(
            g,
            {
                "evidence": nodes.evidence(self.selects_skill),
                "deliberate": deliberation.deliberate,
                "tournament": deliberation.tournament,
                "finalize": nodes.finalize,
            },
            destinations={"evidence": nodes.EVIDENCE_NEXT, "deliberate": deliberation.DELIBERATE_NEXT},
        )
        g.add_edge(START, "evidence")
        g.add_edge("tournament", "finalize")
        g.add_edge("finalize", END)
        return g


register_graph("evidence_first", EvidenceFirstGraph, options=EvidenceOptions, checkpointed=(ModelRuling,))


class SkillGraph(EvidenceFirstGraph):
    """evidence (pick the skill; its resources, cheapest first; weighed by the skill's aggregation) -> [the end |
    deliberate, with the skill's guidance | tournament] -> finalize."""

    selects_skill = True


register_graph("skill", SkillGraph, options=EvidenceOptions, checkpointed=(ModelRuling,))
