"""One registry of evidence tools with typed arguments and results.

Adding a tool is one module here and one `@tool(...)` registration; importing this package registers the
built-in tools.
"""

from judgegraph.tools import match_reference as _match_reference  # noqa: F401  (registers the tool)
from judgegraph.tools._answers import equivalent, extract_final_answer
from judgegraph.tools._base import ToolContext, ToolDef, ToolFailure, ToolOutput, call_tool, tool, tools
from judgegraph.tools.match_reference import MatchReferenceArgs, MatchReferenceResult

__all__ = (
    "MatchReferenceArgs",
    "MatchReferenceResult",
    "ToolContext",
    "ToolDef",
    "ToolFailure",
    "ToolOutput",
    "call_tool",
    "equivalent",
    "extract_final_answer",
    "tool",
    "tools",
)
