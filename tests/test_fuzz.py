"""Property-based fuzzing (hypothesis) of what reads untrusted text: request parsing, verdict parsing, answer
extraction and equivalence, the constraint verifiers. Each must answer or refuse cleanly, never crash."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from judgegraph.errors import VerdictParseError
from judgegraph.graphs._verdict_format import parse_verdict
from judgegraph.schema import JudgeRequest
from judgegraph.schema.constraints import Constraint
from judgegraph.tools import equivalent, extract_final_answer
from judgegraph.tools.match_reference import _match

FUZZ = settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
answerish = st.one_of(
    st.text(max_size=60),
    st.from_regex(r"[-+]?\(?\d{1,4}(\.\d+)?\)?(\s*/\s*\d{1,3})?%?[.)\]]*", fullmatch=True),
    st.from_regex(r"(The answer is|#### |\\boxed\{)[ -~]{0,20}\}?", fullmatch=True),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)


@FUZZ
@given(answerish, answerish)
def test_answer_equivalence_never_crashes(a: str, b: str) -> None:
    m = equivalent(a, b)  # answer and reference have different roles (a letter reference, say): not symmetric
    assert isinstance(m.equivalent, bool) and m.method


@FUZZ
@given(st.text(max_size=300), answerish)
def test_answer_extraction_and_matching_never_crash(text: str, reference: str) -> None:
    got = extract_final_answer(text)
    assert got is None or isinstance(got, str)
    result = _match(text, reference, 0)
    assert result.candidate == 0 and isinstance(result.equivalent, bool)


@FUZZ
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "id",
                "prompt",
                "candidates",
                "mode",
                "reference",
                "label",
                "images",
                "documents",
                "constraints",
                "tests",
                "metadata",
            ]
        ),
        json_values,
        max_size=8,
    )
)
def test_request_parsing_accepts_or_refuses_cleanly(raw: dict[str, object]) -> None:
    try:
        request = JudgeRequest.model_validate(raw)
    except ValidationError:
        return
    assert JudgeRequest.model_validate_json(request.model_dump_json()) == request


@FUZZ
@given(
    st.one_of(st.text(max_size=200), json_values.map(json.dumps)),
    st.sampled_from(["pairwise", "scores", "steps"]),
    st.integers(1, 5),
)
def test_verdict_parsing_rules_or_says_why(text: str, fmt: str, n: int) -> None:
    try:
        ruling = parse_verdict(text, fmt, n)  # type: ignore[arg-type]
    except VerdictParseError as e:
        assert str(e)  # a reason the model is told on its retry
        return
    assert ruling.winner is None or ruling.winner in (0, 1)
    assert all(0 <= x <= 1 for x in (ruling.scores or []) + (ruling.step_scores or []))


constraints = TypeAdapter(Constraint)


@FUZZ
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "kind",
                "n",
                "relation",
                "keywords",
                "keyword",
                "letter",
                "language",
                "text",
                "phrase",
                "markers",
                "word",
                "frequency",
            ]
        ),
        json_values
        | st.sampled_from(
            [
                "bullet_count",
                "word_count",
                "all_lowercase",
                "no_commas",
                "keywords",
                "json_format",
                "at_least",
                "exactly",
            ]
        ),
        max_size=5,
    ),
    st.text(max_size=300),
)
def test_constraint_verifiers_check_or_refuse_cleanly(spec: dict[str, object], text: str) -> None:
    try:
        constraint = constraints.validate_python(spec)
    except ValidationError:
        return
    outcome = constraint.check(text)
    assert isinstance(outcome.passed, bool)


_values = st.integers(min_value=-999, max_value=999).map(str) | st.fractions(max_denominator=9).map(str)
_hedge_shapes = st.sampled_from(
    [
        "{a} or {b}",
        "{a}, {b}",
        "\\{{{a},{b}\\}}",
        "({a}, {b})",
        "{a} \\approx {b}",
        "{a} \\text{{ (or {b})}}",
        "either {a} or {b}",
        "{a} and {b}",
        "{a}/{b}",
        "{a}",
        "{b}",
    ]
)
_said = st.sampled_from(
    ["\\boxed{{{h}}}", "The answer is {h}.", "{h}", "#### {h}", "Work.\nA: {h}", "\\boxed{{{a}}} or \\boxed{{{b}}}"]
)


@FUZZ
@given(_values, _values, _hedge_shapes, _said, answerish)
def test_no_response_matches_two_different_references(a: str, b: str, shape: str, said: str, noise: str) -> None:
    """Whatever a response says (generated hedge shapes, or arbitrary text), it never matches two references
    whose values differ: hedging cannot raise a policy's hit rate."""
    if equivalent(a, b).equivalent or equivalent(b, a).equivalent:
        return
    for text in (said.format(h=shape.format(a=a, b=b), a=a, b=b), noise):
        assert not (_match(text, a, 0).equivalent and _match(text, b, 0).equivalent), (text, a, b)
