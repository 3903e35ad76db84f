"""How judging flows: LangGraph builders, typed state, nodes, routing and the recorder hook.

Importing this package registers the built-in graph builders (and, through its imports, the built-in
tools and judge specs).
"""

from judgegraph.errors import VerdictParseError
from judgegraph.graphs._agentic import AgenticGraph, AgenticOptions, AgentState, action_schema
from judgegraph.graphs._aggregate import decide_from_evidence, verdict_from_ruling
from judgegraph.graphs._builder import EvidenceFirstGraph, RecordedGraph
from judgegraph.graphs._context import JudgeContext
from judgegraph.graphs._nodes import EvidenceOptions
from judgegraph.graphs._propositions import ClaimTask, PropositionGraph, PropositionOptions
from judgegraph.graphs._protocol import (
    GraphKind,
    GraphOptions,
    JudgeGraph,
    RunEnd,
    build_graph,
    checkpointed_types,
    graph_kinds,
    graph_options,
    register_graph,
)
from judgegraph.graphs._recorder import Recorder, recorded
from judgegraph.graphs._rubric import RubricGraph, RubricOptions
from judgegraph.graphs._shown import as_shown, shown_in, shown_order, unshuffle
from judgegraph.graphs._state import JudgeState
from judgegraph.graphs._strategies import CriterionPolicy, aggregations
from judgegraph.graphs._verdict_format import (
    LETTERS,
    RATIONALE_CHARS,
    ModelRuling,
    parse_verdict,
    verdict_format,
    verdict_schema,
)

__all__ = (
    "LETTERS",
    "RATIONALE_CHARS",
    "AgentState",
    "AgenticGraph",
    "AgenticOptions",
    "ClaimTask",
    "CriterionPolicy",
    "EvidenceFirstGraph",
    "EvidenceOptions",
    "GraphKind",
    "GraphOptions",
    "JudgeContext",
    "JudgeGraph",
    "JudgeState",
    "ModelRuling",
    "PropositionGraph",
    "PropositionOptions",
    "RecordedGraph",
    "Recorder",
    "RubricGraph",
    "RubricOptions",
    "RunEnd",
    "VerdictParseError",
    "action_schema",
    "aggregations",
    "as_shown",
    "build_graph",
    "checkpointed_types",
    "decide_from_evidence",
    "graph_kinds",
    "graph_options",
    "parse_verdict",
    "recorded",
    "register_graph",
    "shown_in",
    "shown_order",
    "unshuffle",
    "verdict_format",
    "verdict_from_ruling",
    "verdict_schema",
)
