"""A statement's examples against a candidate's code: how the candidate did on each, compared as the statement's
judge compares (what an example calls in the code is the language's: `calls.CallingLanguage`)."""

from __future__ import annotations

from typing import Literal

from judgegraph.tools.code.observe import Observed
from judgegraph.tools.code.outcomes import compare_outputs, compare_values
from judgegraph.tools.code.statement import Example, without_order

SHOWN = 300
"""Characters of an input, an expected value or an output quoted in a result."""

Outcome = Literal["passed", "failed", "unsure", "error", "timeout", "not_run"]


def shown_text(text: str) -> str:
    return text if len(text) <= SHOWN else text[:SHOWN] + "..."


def example_outcome(
    example: Example, observed: Observed, tolerance: float | None, any_case: bool = False
) -> tuple[Outcome, str]:
    """How a candidate did on one example (as the statement's judge compares), and what it gave. A run that
    failed (a library this sandbox lacks among the reasons: `LIBRARY_PACKAGES` names those it has) failed it:
    what the answer imports is its own choice."""
    if observed.status != "ok":
        return observed.status, shown_text(observed.message)
    if observed.printed:
        return compare_outputs(example.expected_text, observed.output, tolerance, any_case), shown_text(observed.output)
    value = observed.value if example.expected is None else observed.answer  # an expected None is returned
    if example.order == "free":
        return compare_values(without_order(example.expected), without_order(value), tolerance), shown_text(repr(value))
    outcome = compare_values(example.expected, value, tolerance)
    reordered = example.order == "unstated" and outcome == "failed" and not _arranges_an_argument(example)
    if reordered and compare_values(without_order(example.expected), without_order(value), tolerance) == "passed":
        outcome = "unsure"  # the same items in another order, where the order may not count
    return outcome, shown_text(repr(value))


def _arranges_an_argument(example: Example) -> bool:
    """Whether the expected list is an argument's items arranged anew (reversed, rotated, shuffled, sorted): the
    order is then what the task is about, so a difference in order alone fails (a wrong answer that returns its
    argument as it came once turned its failure into "inform only")."""
    expected = without_order(example.expected)
    arguments = [*example.args, *example.kwargs.values()]
    return any(isinstance(a, list | tuple) and without_order(a) == expected for a in arguments)
