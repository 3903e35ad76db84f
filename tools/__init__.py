"""One registry of evidence tools with typed arguments and results.

Adding a tool is one module here and one `@tool(...)` registration; importing this package registers the
built-in tools.
"""

from judgegraph.tools import match_reference as _match_reference  # noqa: F401  (registers the tool)
from judgegraph.tools import run_code as _run_code  # noqa: F401  (registers the tool)
from judgegraph.tools._answers import equivalent, extract_final_answer
from judgegraph.tools._base import ToolContext, ToolDef, ToolFailure, ToolOutput, call_tool, tool, tools
from judgegraph.tools._languages import CaseResult, Language, languages
from judgegraph.tools._services import ToolServices
from judgegraph.tools.match_reference import MatchReferenceArgs, MatchReferenceResult
from judgegraph.tools.run_code import RunCodeArgs, RunCodeResult

__all__ = (
    "CaseResult",
    "Language",
    "MatchReferenceArgs",
    "MatchReferenceResult",
    "RunCodeArgs",
    "RunCodeResult",
    "ToolContext",
    "ToolDef",
    "ToolFailure",
    "ToolOutput",
    "ToolServices",
    "call_tool",
    "equivalent",
    "extract_final_answer",
    "languages",
    "tool",
    "tools",
)
