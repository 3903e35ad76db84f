"""IFEval natively: its rows load as they are, and judgegraph's checks agree with the official checker's code
(as `if_verifiable` ships it) on the same responses, strict and loose.

Responses: the real model responses IFBench ships (`../shared/data/ifbench/sample_output.jsonl`), and, so the
passing side of every rule is exercised too, simple edits of them that follow an instruction (lower or upper
case, quoted, no commas, a title, a postscript, the prompt repeated, two responses, a constrained answer).
NLTK's punkt models cannot be downloaded here: the official code's two calls into them (sentence counts and
the tokenizer of capital-word counts) run with judgegraph's replacements on both sides, so those two types
compare judgegraph's logic around them, not punkt itself (EVALS.md says so)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.fake_openai import FakeOpenAI
from judgegraph.schema import JudgeRequest
from judgegraph.schema.ifeval import IFEVAL_CHECKS, IFEvalInstruction, split_into_sentences, treebank_words


def _responses(shared_data: Path) -> list[str]:
    lines = (shared_data / "ifbench" / "sample_output.jsonl").read_text().splitlines()
    return [json.loads(line)["response"] for line in lines]


def _edits(text: str, prompt: str, other: str) -> list[str]:
    """A real response and edits of it that each follow some IFEval instruction."""
    return [
        text,
        text.lower(),
        text.upper(),
        f'"{text}"',
        text.replace(",", ""),
        f"<<A Title>>\n{text}\n\nP.S. I hope this helps.",
        f"{prompt}\n{text}",
        f"{text}\n******\n{other}",
        f"{text[:200]}\n\nMy answer is yes.",
        "```json\n" + json.dumps({"answer": text[:100]}) + "\n```",
        text.replace("\n\n", "\n\n***\n\n"),
    ]


@pytest.fixture(scope="module")
def official() -> Any:
    """The official checker's code, its punkt calls routed to judgegraph's replacements."""
    pytest.importorskip("if_verifiable")
    from if_verifiable.ifeval import instructions_registry, instructions_util

    saved = (instructions_util.count_sentences, instructions_util.nltk.word_tokenize)
    instructions_util.count_sentences = lambda text: len(split_into_sentences(text))
    instructions_util.nltk.word_tokenize = treebank_words
    yield instructions_registry.INSTRUCTION_DICT
    instructions_util.count_sentences, instructions_util.nltk.word_tokenize = saved


def _official(registry: Any, instruction_id: str, kwargs: dict[str, Any], prompt: str, text: str, loose: bool) -> bool:
    from judgegraph.schema.ifeval import loose_variants

    instruction = registry[instruction_id](instruction_id)
    instruction.build_description(**{k: v for k, v in kwargs.items() if v is not None})
    args = instruction.get_instruction_args()
    if args and "prompt" in args:
        instruction.build_description(prompt=prompt)
    readings = loose_variants(text) if loose else [text]
    return any(r.strip() and instruction.check_following(r) for r in readings)


def _random_in_official(instruction_id: str, kwargs: dict[str, Any]) -> bool:
    """The official code checks a random letter when the given one is not a-z (two IFEval instructions ask for
    '#'); judgegraph counts the character the instruction names."""
    letter = str(kwargs.get("letter") or "")
    return instruction_id == "keywords:letter_frequency" and not (
        len(letter) == 1 and letter.isascii() and letter.isalpha()
    )


def test_a_letter_the_official_code_would_replace_at_random_is_counted_as_given() -> None:
    rule = IFEvalInstruction(
        instruction_id="keywords:letter_frequency",
        kwargs={"letter": "#", "let_frequency": 4, "let_relation": "at least"},
    )
    assert rule.followed("# a\n# b\n# c\n# d") and not rule.followed("# a\n# b")


def test_ifeval_rows_load_as_they_are(shared_data: Path) -> None:
    rows = [json.loads(line) for line in (shared_data / "ifeval" / "input_data.jsonl").read_text().splitlines()]
    requests = [JudgeRequest.model_validate({**row, "response": "Hi."}) for row in rows]
    assert len(requests) == 541 and requests[0].id == str(rows[0]["key"])
    kinds = {c.instruction_id for r in requests for c in r.constraints if isinstance(c, IFEvalInstruction)}
    assert kinds == set(IFEVAL_CHECKS) and len(kinds) == 25
    assert sum(len(r.constraints) for r in requests) == sum(len(row["instruction_id_list"]) for row in rows)


@pytest.mark.parametrize("loose", [False, True], ids=["strict", "loose"])
def test_checks_agree_with_the_official_checker_on_real_responses(
    shared_data: Path, official: Any, loose: bool
) -> None:
    rows = [json.loads(line) for line in (shared_data / "ifeval" / "input_data.jsonl").read_text().splitlines()]
    responses = _responses(shared_data)
    checked = agree = passed = 0
    disagreements = []
    for n, row in enumerate(rows):
        base, other = responses[n % len(responses)], responses[(n + 1) % len(responses)]
        for text in _edits(base, row["prompt"], other):
            for instruction_id, kwargs in zip(row["instruction_id_list"], row["kwargs"], strict=True):
                if _random_in_official(instruction_id, kwargs):
                    continue
                ours = IFEvalInstruction(instruction_id=instruction_id, kwargs=kwargs, loose=loose).followed(text)
                theirs = _official(official, instruction_id, kwargs, row["prompt"], text, loose)
                checked, agree, passed = checked + 1, agree + (ours == theirs), passed + theirs
                if ours != theirs:
                    disagreements.append((instruction_id, kwargs, ours, text[:80]))
    assert checked == (834 - 2) * 11 and passed > checked // 10  # both sides of the rules are exercised
    assert agree == checked, disagreements[:5]


async def test_an_ifeval_row_is_judged_by_its_instructions(shared_data: Path, fake_openai: FakeOpenAI) -> None:
    from judgegraph import Judge

    row = json.loads((shared_data / "ifeval" / "input_data.jsonl").read_text().splitlines()[0])
    assert row["instruction_id_list"] == [
        "punctuation:no_comma",
        "detectable_format:number_highlighted_sections",
        "length_constraints:number_words",
    ]
    follows = "*Early life* *Reign* *Legacy* " + "Raymond ruled Tripoli for many years. " * 60
    breaks = "Raymond, count of Tripoli, ruled for many years."
    request = {**row, "chosen": follows, "rejected": breaks}
    async with Judge.load("evidence", store=False, model_url=fake_openai.url) as judge:
        verdict = await judge.ajudge(request)
    assert verdict.winner == 0 and verdict.decided_by == "evidence" and fake_openai.requests == []
