"""Math with nothing to settle it: no reference, no tests, no code, and final answers that differ. Where the
judge derives its own evidence (a derived reference, the computations checked)."""

from __future__ import annotations

from judgegraph.schema import JudgeRequest
from judgegraph.tools.code.candidate_code import contains_code
from judgegraph.tools.math.answers import committed_answer
from judgegraph.tools.math.asked import asked_computation
from judgegraph.tools.math.choices import as_choice, choice_options
from judgegraph.tools.math.equivalence import equivalent


def math_to_settle(request: JudgeRequest) -> bool:
    """Math with nothing to settle it: no reference, no tests, no candidate is code, each commits to a final
    answer, and they do not all commit to the same one (a single response: it commits to one)."""
    if request.has_evidence("reference") or request.tests or not request.candidates:
        return False
    if asked_computation(request.prompt) is not None:
        return False  # the prompt's own computation settles it (`match_reference`)
    if any(contains_code(request, c.content) for c in request.candidates):
        return False
    options = choice_options(request.prompt)
    answers = [as_choice(committed_answer(c.content), options) for c in request.candidates]
    if any(a is None for a in answers):
        return False
    first = answers[0]
    assert first is not None
    return len(answers) == 1 or not all(a is not None and equivalent(a, first).equivalent for a in answers[1:])
