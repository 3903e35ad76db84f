"""How judging flows: LangGraph builders, typed state, nodes, routing and the recorder hook.

Importing this package registers the built-in graph builders (and, through its imports, the built-in
tools and judge specs).
"""

from judgegraph.graphs._agentic import AgenticGraph, AgentState
from judgegraph.graphs._aggregate import decide_from_evidence, verdict_from_ruling
from judgegraph.graphs._builder import EvidenceFirstGraph, RecordedGraph
from judgegraph.graphs._context import JudgeContext
from judgegraph.graphs._propositions import ClaimTask, PropositionGraph
from judgegraph.graphs._recorder import Recorder, recorded
from judgegraph.graphs._rubric import RubricGraph
from judgegraph.graphs._state import JudgeState
from judgegraph.graphs._strategies import CriterionPolicy, aggregations
from judgegraph.graphs._verdict_format import ModelRuling, VerdictParseError, parse_verdict, verdict_schema

__all__ = (
    "AgentState",
    "AgenticGraph",
    "ClaimTask",
    "CriterionPolicy",
    "EvidenceFirstGraph",
    "JudgeContext",
    "JudgeState",
    "ModelRuling",
    "PropositionGraph",
    "RecordedGraph",
    "Recorder",
    "RubricGraph",
    "VerdictParseError",
    "aggregations",
    "decide_from_evidence",
    "parse_verdict",
    "recorded",
    "verdict_from_ruling",
    "verdict_schema",
)
