"""Judge evaluation: bundled verifiable sets (generated and checked when built), loaders and official scoring
for standard reward benchmarks, and the harness behind `judgegraph eval` (reports with plots).
"""

from judgegraph.evals import _contest, _leetcode, _noref  # noqa: F401 - register the reference-free sets
from judgegraph.evals._benchmarks import Benchmark, benchmarks
from judgegraph.evals._harness import EvalReport, run_eval, suites
from judgegraph.evals._metrics import Metrics, Outcome, metrics
from judgegraph.evals._pairs import code_pairs, constraint_pairs, length_bias_pairs, math_pairs
from judgegraph.evals._sets import build_set, eval_sets

__all__ = (
    "Benchmark",
    "EvalReport",
    "Metrics",
    "Outcome",
    "benchmarks",
    "build_set",
    "code_pairs",
    "constraint_pairs",
    "eval_sets",
    "length_bias_pairs",
    "math_pairs",
    "metrics",
    "run_eval",
    "suites",
)
