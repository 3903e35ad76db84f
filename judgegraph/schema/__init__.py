"""The data that crosses judgegraph's boundaries: requests, verdicts, trajectories and their events."""

from judgegraph.schema._outcome import verdict_correct
from judgegraph.schema._reply import integer_range, reply_schema
from judgegraph.schema._request import (
    SCHEMA_VERSION,
    Candidate,
    Document,
    IOTest,
    JudgeRequest,
    Label,
    Mode,
    RubricCriterion,
)
from judgegraph.schema._trajectory import (
    ErrorEvent,
    Event,
    ModelRequest,
    ModelTurn,
    NodeEvent,
    RunStatus,
    ToolCall,
    ToolCallEvent,
    ToolErrorKind,
    ToolResult,
    ToolResultEvent,
    Trajectory,
    Usage,
    VerdictEvent,
    Versions,
    new_id,
)
from judgegraph.schema._verdict import CriterionResult, Verdict, ranking_of, sole_best
from judgegraph.schema.constraints import Constraint

__all__ = (
    "SCHEMA_VERSION",
    "Candidate",
    "Constraint",
    "CriterionResult",
    "Document",
    "ErrorEvent",
    "Event",
    "IOTest",
    "JudgeRequest",
    "Label",
    "Mode",
    "ModelRequest",
    "ModelTurn",
    "NodeEvent",
    "RubricCriterion",
    "RunStatus",
    "ToolCall",
    "ToolCallEvent",
    "ToolErrorKind",
    "ToolResult",
    "ToolResultEvent",
    "Trajectory",
    "Usage",
    "Verdict",
    "VerdictEvent",
    "Versions",
    "integer_range",
    "new_id",
    "ranking_of",
    "reply_schema",
    "sole_best",
    "verdict_correct",
)
