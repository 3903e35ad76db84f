"""How judging flows: a shared floor and a room per judge.

The floor (this folder's modules) is what every judge graph stands on: the graph registry and protocol
(`_protocol`), the recorded graph every judge subclasses (`_recorded_graph`), the run context (`_context`), the
recorder (`_recorder`), running tools and attaching images (`_runs`), how candidates are shown (`_shown`), the
verdict format (`_verdict_format`) and weighing evidence into a verdict (`_aggregate`, `_strategies`). A room
(`evidence/`, `agentic/`, `rubric/`, `propositions/`) holds one judge's graph, state and nodes, and registers
only its own graphs; no room imports another, and the floor imports no room (`tests/test_architecture.py`).

Importing this package registers no graph: a judge's room is imported at its graph's first lookup (listing the
graphs imports every room), so importing one room registers that judge only.
"""

from typing import TYPE_CHECKING, Any

from judgegraph.errors import VerdictParseError
from judgegraph.graphs._aggregate import decide_from_evidence, verdict_from_ruling
from judgegraph.graphs._context import JudgeContext
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
from judgegraph.graphs._recorded_graph import RecordedGraph
from judgegraph.graphs._recorder import Recorder, recorded
from judgegraph.graphs._shown import as_shown, shown_in, shown_order, unshuffle
from judgegraph.graphs._strategies import CriterionPolicy, aggregations
from judgegraph.graphs._verdict_format import (
    LETTERS,
    RATIONALE_CHARS,
    ModelRuling,
    parse_verdict,
    verdict_format,
    verdict_schema,
)

ROOMS = {
    "evidence_first": "judgegraph.graphs.evidence",
    "skill": "judgegraph.graphs.evidence",
    "agentic": "judgegraph.graphs.agentic",
    "rubric": "judgegraph.graphs.rubric",
    "propositions": "judgegraph.graphs.propositions",
}
"""Each built-in graph and the room that registers it (`register_graph`, at the end of the room's `graph.py`)."""
graph_kinds.built_in(ROOMS)

_FROM_ROOMS = {
    "EvidenceFirstGraph": "evidence",
    "EvidenceOptions": "evidence",
    "JudgeState": "evidence",
    "AgenticGraph": "agentic",
    "AgenticOptions": "agentic",
    "AgentState": "agentic",
    "action_schema": "agentic",
    "RubricGraph": "rubric",
    "RubricOptions": "rubric",
    "ClaimTask": "propositions",
    "PropositionGraph": "propositions",
    "PropositionOptions": "propositions",
}

if TYPE_CHECKING:
    from judgegraph.graphs.agentic import AgenticGraph, AgenticOptions, AgentState, action_schema
    from judgegraph.graphs.evidence import EvidenceFirstGraph, EvidenceOptions, JudgeState
    from judgegraph.graphs.propositions import ClaimTask, PropositionGraph, PropositionOptions
    from judgegraph.graphs.rubric import RubricGraph, RubricOptions


def __getattr__(name: str) -> Any:
    # a room's names, imported with their room on first use (importing a room registers its judge)
    room = _FROM_ROOMS.get(name)
    if room is None:
        raise AttributeError(f"module 'judgegraph.graphs' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"judgegraph.graphs.{room}"), name)


__all__ = (
    "LETTERS",
    "RATIONALE_CHARS",
    "ROOMS",
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
