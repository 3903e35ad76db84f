"""Judge evaluation: bundled verifiable pairs (generated and checked when built) and the quality report.

`python -m judgegraph.evals.quality` judges the pairs in both candidate orders and writes EVALS.md.
"""

from judgegraph.evals._pairs import code_pairs, constraint_pairs, length_bias_pairs, math_pairs
from judgegraph.evals._quality import PairOutcome, build_pairs, evaluate, report, swapped

__all__ = (
    "PairOutcome",
    "build_pairs",
    "code_pairs",
    "constraint_pairs",
    "evaluate",
    "length_bias_pairs",
    "math_pairs",
    "report",
    "swapped",
)
