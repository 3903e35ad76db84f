"""The proposition judge's room (after MARCH): a response's claims checked one by one against the evidence.
Importing it registers `propositions` and nothing else."""

from judgegraph.graphs.propositions.graph import ClaimTask, PropositionGraph, PropositionOptions

__all__ = ("ClaimTask", "PropositionGraph", "PropositionOptions")
