"""One registry of evidence tools with typed arguments and results.

Adding a tool is one module here and one `@tool(...)` registration; importing this package registers the
built-in tools: `match_reference`, `run_code`, `zoom_image`, `retrieve`, `check_propositions`,
`verify_constraints`, `run_examples`, `differential_test`, `python`,
`derived_reference`, `oracle_check`, `check_computations`.
"""

from judgegraph.errors import ToolFailure
from judgegraph.tools._base import (
    Criterion,
    FollowUp,
    ImageBlob,
    Planner,
    ToolContext,
    ToolDef,
    ToolOutput,
    call_tool,
    candidate_criterion,
    each_candidate,
    reads,
    result_data,
    tool,
    tools,
)
from judgegraph.tools._langchain import as_langchain_tool, langchain_tools
from judgegraph.tools._recorded import RecordedTools
from judgegraph.tools._scope import RunScope, request_image_names
from judgegraph.tools._services import ArtifactSink, MemoryArtifacts, ToolServices

# Importing each tool module registers its tool.
from judgegraph.tools.check_computations import CheckComputationsArgs, CheckComputationsResult, CheckedComputation
from judgegraph.tools.check_propositions import CheckPropositionsArgs
from judgegraph.tools.claims.propositions import (
    Claim,
    ClaimCheckInput,
    ClaimVerdict,
    PropositionsResult,
    check_claim,
    split_claims,
)
from judgegraph.tools.claims.retrieval import Embedder, MiniLMEmbedder, Passage, PassageIndex, Retriever, passages_of
from judgegraph.tools.code import languages as _languages  # noqa: F401 - importing it registers every language
from judgegraph.tools.code.disagreements import DifferentialResult, Disagreement
from judgegraph.tools.code.language import CaseResult, Language, language_named, languages, read_report
from judgegraph.tools.code.python_runs import PythonResult
from judgegraph.tools.derived_reference import Derivation, DerivedReferenceArgs, DerivedReferenceResult
from judgegraph.tools.differential_test import DifferentialArgs
from judgegraph.tools.images.regions import open_image
from judgegraph.tools.match_reference import MatchReferenceArgs, MatchReferenceResult
from judgegraph.tools.math.answers import extract_final_answer
from judgegraph.tools.math.equivalence import equivalent
from judgegraph.tools.oracle_check import OracleCase, OracleCheckArgs, OracleCheckResult
from judgegraph.tools.python import PythonArgs
from judgegraph.tools.retrieve import RetrieveArgs, RetrieveResult
from judgegraph.tools.run_code import RunCodeArgs, RunCodeResult
from judgegraph.tools.run_examples import ExampleCase, RunExamplesArgs, RunExamplesResult
from judgegraph.tools.verify_constraints import ConstraintsResult, VerifyConstraintsArgs
from judgegraph.tools.zoom_image import ZoomImageArgs, ZoomResult

__all__ = (
    "ArtifactSink",
    "CaseResult",
    "CheckComputationsArgs",
    "CheckComputationsResult",
    "CheckPropositionsArgs",
    "CheckedComputation",
    "Claim",
    "ClaimCheckInput",
    "ClaimVerdict",
    "ConstraintsResult",
    "Criterion",
    "Derivation",
    "DerivedReferenceArgs",
    "DerivedReferenceResult",
    "DifferentialArgs",
    "DifferentialResult",
    "Disagreement",
    "Embedder",
    "ExampleCase",
    "FollowUp",
    "ImageBlob",
    "Language",
    "MatchReferenceArgs",
    "MatchReferenceResult",
    "MemoryArtifacts",
    "MiniLMEmbedder",
    "OracleCase",
    "OracleCheckArgs",
    "OracleCheckResult",
    "Passage",
    "PassageIndex",
    "Planner",
    "PropositionsResult",
    "PythonArgs",
    "PythonResult",
    "RecordedTools",
    "RetrieveArgs",
    "RetrieveResult",
    "Retriever",
    "RunCodeArgs",
    "RunCodeResult",
    "RunExamplesArgs",
    "RunExamplesResult",
    "RunScope",
    "ToolContext",
    "ToolDef",
    "ToolFailure",
    "ToolOutput",
    "ToolServices",
    "VerifyConstraintsArgs",
    "ZoomImageArgs",
    "ZoomResult",
    "as_langchain_tool",
    "call_tool",
    "candidate_criterion",
    "check_claim",
    "each_candidate",
    "equivalent",
    "extract_final_answer",
    "langchain_tools",
    "language_named",
    "languages",
    "open_image",
    "passages_of",
    "read_report",
    "reads",
    "request_image_names",
    "result_data",
    "split_claims",
    "tool",
    "tools",
)
