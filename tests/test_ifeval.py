"""IFEval natively: its rows load as they are, and judgegraph's checks agree with the official checker's code
(as `if_verifiable` ships it) on the same responses, strict and loose.

The comparison (benchmarks/real_data.py): real model responses (IFBench's shipped sample outputs) and edits of
them that follow an instruction. NLTK's punkt models cannot be downloaded here: the official code's two calls
into them (sentence counts, the tokenizer of capital-word counts) run with judgegraph's replacements on both
sides, so those two types compare judgegraph's logic around them, not punkt itself (EVALS.md says so)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.fake_openai import FakeOpenAI
from judgegraph.schema import JudgeRequest
from judgegraph.schema.ifeval import IFEVAL_CHECKS, IFEvalInstruction


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
def test_checks_agree_with_the_official_checker_on_real_responses(shared_data: Path, loose: bool) -> None:
    from benchmarks.real_data import ifeval_agreement  # the official code: if_verifiable, in the dev extra

    found = ifeval_agreement(shared_data, loose=loose)
    assert found.checked == (834 - 2) * 11  # every instruction on 11 responses, but two with a random letter
    assert found.positives > found.checked // 10  # both sides of the rules are exercised
    assert found.agreed == found.checked, found.disagreements[:5]


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
