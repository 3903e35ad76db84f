"""The rubric judge's room (after OpenRS): constraints as hard gates, a rubric written from where two responses
differ, each criterion compared on its own, the comparisons aggregated outside the model.
Importing it registers `rubric` and nothing else."""

from judgegraph.graphs.rubric.graph import RubricGraph, RubricOptions

__all__ = ("RubricGraph", "RubricOptions")
