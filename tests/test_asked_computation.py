"""The computation a prompt asks for (#57, item 5): where the whole question is one closed arithmetic expression
(`What is 6 * 7?`), its exact value decides each final answer as a reference would, so a confident wrong answer
earns 0 instead of escaping to abstention; anything more than one unambiguous computation is left unread."""

from __future__ import annotations

import asyncio
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgegraph import Judge
from judgegraph.adapters.trl import AsyncJudgeReward
from judgegraph.settings import Settings
from judgegraph.tools.math.asked import asked_computation

ASKED = {
    "What is 6 * 7?": 42,
    "what's 6 \\times 7": 42,
    "Compute $2^{10} - 1$.": 1023,
    "Evaluate \\frac{3}{4} \\cdot 80. Put your final answer in \\boxed{}.": 60,
    "Calculate 1/3 + 1/6. Think step by step.": Fraction(1, 2),
    "6 * 7 = ?": 42,
    "What is 7 x 8?": 56,
    "Question: What is the value of (2+3)*4?": 20,
    "Find $\\sqrt{144} + 1$.": 13,
}
NOT_ASKED = [
    "What is 6 * 7 in base 8?",  # a base
    "What is 20% of 50?",  # a word
    "What is 17 % 5?",  # percent or modulus
    "John has 3 apples. What is 3 + 4?",  # a story around it
    "What is 42?",  # no computation
    "What is $\\sqrt{2}$?",  # not exact
    "What is pi * 2?",  # a constant
    "What is -3^2?",  # -9 or 9
    "What is 2^3^2?",  # 512 or 64
    "Simplify 4/6.",  # asks for a form, not a value
    "Find x if 2x = 4.",  # an unknown
    "What is 1/0?",  # no value
    "What is 6 * 7? " + "Explain. " * 60,  # a prompt this long is a problem
]


@pytest.mark.parametrize("prompt", ASKED)
def test_the_one_computation_a_prompt_asks_for_is_read_exactly(prompt: str) -> None:
    asked = asked_computation(prompt)
    assert asked is not None and asked.value == ASKED[prompt]


@pytest.mark.parametrize("prompt", NOT_ASKED)
def test_anything_but_one_unambiguous_computation_is_left_unread(prompt: str) -> None:
    assert asked_computation(prompt) is None


def _rewards(prompts: list[str], responses: list[str]) -> list[float | None]:
    async def go() -> list[float | None]:
        async with Judge.load("evidence", settings=Settings()) as judge:
            return await AsyncJudgeReward(judge)(prompts, responses, ground_truth=[None] * len(prompts))

    return asyncio.run(go())


def test_without_a_reference_the_asked_value_decides_both_ways_through_the_reward_path() -> None:
    cases = [
        ("What is 6 * 7?", "The answer is 17.", 0.0),
        ("What is 6 * 7?", "The answer is 42.", 1.0),
        ("What is 6 * 7?", "forty-two", 1.0),
        ("What is 6 * 7?", "x \\geq 42", 0.0),  # a relation states no number
        ("What is 6 * 7?", "not 42", 0.0),
        ("Calculate 1/3 + 1/6.", "\\boxed{0.5}", 1.0),
        ("Compute $2^{10}-1$. Put your final answer in \\boxed{}.", "\\boxed{1024}", 0.0),
        ("What is 2/3?", "The answer is 0.67.", 1.0),  # rounded as written: 2/3 has no finite decimal form
        ("What is 2/3?", "\\boxed{0.666...}", 1.0),
        ("What is 2/3?", "The answer is 0.66.", 0.0),
        ("What is 1/2?", "The answer is 0.49.", 0.0),  # 1/2 has one: nothing to round
        ("What is 7/2?", "The answer is 3 1/2.", 1.0),  # a mixed number
        ("What is 7/2?", "\\boxed{3\\frac{1}{2}}", 1.0),
        ("What is 7/2?", "\\boxed{2\\frac{1}{2}}", 0.0),
        ("What is 6 * 7?", "\\boxed{41 1/1}", 0.0),  # no mixed number: a whole part and a proper fraction
    ]
    got = _rewards([p for p, _, _ in cases], [r for _, r, _ in cases])
    assert got == [want for _, _, want in cases]


def test_a_word_problem_without_a_reference_still_abstains() -> None:
    """Nothing computes a story's answer from its text: where no evidence decides, the reward abstains."""
    assert _rewards(["Tom has 3 apples and buys 4 more. How many?"], ["The answer is 8."]) == [None]


_OPS = st.sampled_from(["+", "-", "*"])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 999), min_size=2, max_size=4), st.lists(_OPS, min_size=3, max_size=3), st.data())
def test_a_wrong_value_never_earns_the_reward_and_the_right_one_always_does(
    numbers: list[int], ops: list[str], data: st.DataObject
) -> None:
    terms = [str(numbers[0])] + [f"{o} {n}" for o, n in zip(ops, numbers[1:], strict=False)]
    expression = " ".join(terms)
    value = eval(expression)  # trusted: the test's own integers and operators
    wrong = value + data.draw(st.integers(-50, 50).filter(lambda d: d != 0))
    prompt = f"What is {expression}?"
    assert _rewards([prompt, prompt], [f"The answer is {value}.", f"The answer is {wrong}."]) == [1.0, 0.0]
