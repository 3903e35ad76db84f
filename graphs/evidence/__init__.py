"""The evidence-first and skill judges' room: gather the deterministic evidence and weigh it, and ask the model
only where it does not decide (`evidence_first`); pick a skill first and weigh its resources (`skill`).
Importing it registers these two graphs and nothing else."""

from judgegraph.graphs.evidence.graph import EvidenceFirstGraph, SkillGraph
from judgegraph.graphs.evidence.options import EvidenceOptions
from judgegraph.graphs.evidence.state import JudgeState

__all__ = ("EvidenceFirstGraph", "EvidenceOptions", "JudgeState", "SkillGraph")
