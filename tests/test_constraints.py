from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from judgegraph.schema import JudgeRequest, ToolCall
from judgegraph.schema.constraints import CONSTRAINT_KINDS, Constraint
from judgegraph.tools import ToolContext, call_tool

C = TypeAdapter(Constraint)

# kind settings -> (a response that follows it, one that does not)
CASES: list[tuple[dict[str, object], str, str]] = [
    (
        {"kind": "word_count", "relation": "at_most", "n": 5},
        "four words right here",
        "this has far more than five words in it",
    ),
    ({"kind": "sentence_count", "relation": "exactly", "n": 2}, "One. Two.", "One. Two. Three."),
    ({"kind": "paragraph_count", "n": 2}, "first para\n\nsecond para", "just one paragraph"),
    ({"kind": "paragraph_count", "n": 2, "separator": "***"}, "first\n***\nsecond", "first\n\nsecond"),
    ({"kind": "include_keywords", "keywords": ["ocean", "blue"]}, "The Ocean is blue.", "The sea is blue."),
    ({"kind": "exclude_keywords", "keywords": ["very"]}, "It is quite big.", "It is very big."),
    ({"kind": "keyword_frequency", "keyword": "cat", "relation": "at_least", "n": 2}, "cat and cat", "cat and dog"),
    ({"kind": "letter_frequency", "letter": "z", "relation": "at_least", "n": 3}, "pizza zoo", "pizza"),
    ({"kind": "json_format"}, '```json\n{"a": [1, 2]}\n```', "{a: 1}"),
    ({"kind": "no_commas"}, "no commas here", "one, two"),
    ({"kind": "all_lowercase"}, "all lower case", "Not all lower"),
    ({"kind": "all_uppercase"}, "ALL UPPER 42", "ALL UPPEr"),
    ({"kind": "starts_with", "phrase": "Dear team"}, "  dear Team, hello", "Hello, dear team"),
    (
        {"kind": "ends_with", "phrase": "Is there anything else?"},
        "Done. Is there anything else?",
        "Is there anything else? Done.",
    ),
    ({"kind": "bullet_count", "n": 2}, "* one\n* two", "* one\n* two\n- three"),
    ({"kind": "section_count", "n": 2}, "Section 1\nintro\nSECTION 2\nbody", "Section 1 only"),
    ({"kind": "placeholders", "n": 2}, "Send to [name] at [address].", "Send to [name]."),
    ({"kind": "quotation_wrapped"}, '"quoted answer"', "not quoted"),
    (
        {"kind": "response_language", "language": "fr"},
        "Bonjour, je suis très content de vous voir aujourd'hui.",
        "Hello, I am very happy to see you today.",
    ),
    ({"kind": "title"}, "<<A Poem>>\nroses", "A Poem\nroses"),
    ({"kind": "highlighted_sections", "n": 2}, "*one* and *two*", "**bold** only *one*"),
    ({"kind": "capital_word_frequency", "relation": "at_most", "n": 1}, "only ONE shout", "TWO LOUD words"),
    ({"kind": "postscript"}, "Body.\nP.S. see you", "Body without it"),
    (
        {
            "kind": "ifeval",
            "instruction_id": "length_constraints:number_words",
            "kwargs": {"num_words": 3, "relation": "less than"},
        },
        "two words",
        "three whole words",
    ),
    (
        {
            "kind": "ifbench",
            "instruction_id": "words:palindrome",
            "prompt": "Write a sentence with at least 10 palindromes.",
            "kwargs": {},
        },
        "level kayak radar civic madam refer rotor stats tenet racecar",
        "no palindromes in here",
    ),
]


def test_every_kind_is_covered_and_there_are_at_least_fifteen() -> None:
    assert len(CONSTRAINT_KINDS) >= 15
    assert {c[0]["kind"] for c in CASES} == set(CONSTRAINT_KINDS)


@pytest.mark.parametrize(("settings", "good", "bad"), CASES, ids=[f"{c[0]['kind']}-{i}" for i, c in enumerate(CASES)])
def test_each_kind_passes_and_fails_with_a_reason(settings: dict[str, object], good: str, bad: str) -> None:
    constraint = C.validate_python(settings)
    ok, not_ok = constraint.check(good), constraint.check(bad)
    assert ok.passed, ok
    assert not not_ok.passed, not_ok
    assert ok.why and not_ok.why and ok.kind == settings["kind"]


@pytest.mark.parametrize(
    "settings",
    [
        {"kind": "no_such_kind"},
        {"kind": "word_count"},
        {"kind": "letter_frequency", "letter": "ab", "n": 1},
        {"kind": "word_count", "n": 3, "relation": "roughly"},
        {"kind": "include_keywords", "keywords": []},
        {"kind": "no_commas", "surprise": 1},
    ],
)
def test_constraints_that_make_no_sense_are_refused(settings: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        JudgeRequest.model_validate({"id": "x", "prompt": "p", "candidates": ["a", "b"], "constraints": [settings]})


async def test_tool_reports_each_constraint() -> None:
    request = JudgeRequest.model_validate(
        {
            "id": "x",
            "prompt": "p",
            "candidates": ["hello world", "Hello, World"],
            "constraints": [
                {"kind": "all_lowercase"},
                {"kind": "no_commas"},
                {"kind": "word_count", "relation": "exactly", "n": 2},
            ],
        }
    )
    good = await call_tool(
        ToolCall(name="verify_constraints", arguments={"candidate": 0}), ToolContext(request=request)
    )
    bad = await call_tool(ToolCall(name="verify_constraints", arguments={"candidate": 1}), ToolContext(request=request))
    assert good.ok and good.data is not None and good.data["passed"] == 3
    assert (
        bad.data is not None
        and bad.data["passed"] == 1
        and "FAIL all_lowercase" in bad.text
        and "FAIL no_commas" in bad.text
    )
    none = await call_tool(
        ToolCall(name="verify_constraints", arguments={"candidate": 0}),
        ToolContext(request=request.model_copy(update={"constraints": []})),
    )
    assert not none.ok and "no constraints" in (none.error or "")
