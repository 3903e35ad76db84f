"""The agentic judge's room (after ARM-Thinker and TIR-Judge): the model thinks, calls tools, reads their results
and rules. Importing it registers `agentic` and nothing else."""

from judgegraph.graphs.agentic.graph import AgenticGraph
from judgegraph.graphs.agentic.turns import AgenticOptions, AgentState, action_schema

__all__ = ("AgentState", "AgenticGraph", "AgenticOptions", "action_schema")
