"""Worked computations checked with exact arithmetic (`tools/math/computations.py`) and the `check_computations` tool:
real solution shapes (GSM8K prose with units, MATH LaTeX), what must be skipped rather than guessed, and a judge
deciding a reference-free math pair by them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.fake_openai import FakeOpenAI
from judgegraph import Judge
from judgegraph.tools.math.arithmetic import plain
from judgegraph.tools.math.computations import computations

ROOT = Path(__file__).resolve().parents[1]
PROCESSBENCH = ROOT.parent / "shared" / "data" / "processbench"


def findings(text: str) -> list[tuple[str, str]]:
    return [(c.written, c.finding) for c in computations(text)]


@pytest.mark.parametrize(
    "text",
    [
        "So, they have \\(18 - 6 = 12\\) flamingos left.",
        "Fourth, calculate the weight of the oats: 20 sacks x 65 pounds per sack = 1300 pounds.",
        "So, in total, 36 (planned) + 4 (extra) = 40 hotdogs were needed.",
        "\\[ 5 \\text{ months} \\times \\$14/\\text{month} = \\$70 \\]",
        "Total cost for all place settings = $18.00 + $12.00 + $5.00 = $35.00.",
        "\\[ \\frac{3}{4} \\times 80 = 60 \\]",
        "\\(\\dfrac{1}{3} = 0.33\\), and to three places \\(1/3 = 0.333\\).",
        "The ratio is \\(\\frac{14}{50} = \\frac{7}{25}\\).",
        "So \\(0.25 \\times 100 = 25\\%\\) and \\(25\\% \\times 80 = 20\\).",
        "The population is 1,200 + 3,400 = 4,600 people.",
        "- \\(2^9 = 512\\)",
        "Then \\(\\sqrt{16} + 3^2 = 13\\).",
        "That is \\(2 \\cdot 3 \\cdot 4 \\cdot 5 + 1 = 121\\).",
        "Each of 3 boxes: \\(250 / 60 \\approx 4.17\\) hours.",
        "Multiply by 60: 0.0056 Mb/s × 3600 = 20.16.",
    ],
)
def test_right_computations_hold(text: str) -> None:
    found = findings(text)
    assert found and all(f == "right" for _, f in found), found


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("Performing the multiplication: 20 * 6 = 6 * 518400 = 3104400.", "6 * 518400 = 3104400"),
        ("So \\(x^2 - y^2 = (19)^2-(-12)^2=361.\\)", "(19)^2-(-12)^2 = 361"),
        ("The total is 50 + 70 + 140 + 240 = 400 dollars.", "50 + 70 + 140 + 240 = 400"),
        ("She keeps 2/5 * 4000 = 800 dollars.", "2/5 * 4000 = 800"),
        ("\\[ \\frac{1}{2} \\times 24 \\times 26 = 156 \\]", "((1)/(2)) * 24 * 26 = 156"),
        ("Subtract: 400000 - 32000 - 250000 = 8000.", "400000 - 32000 - 250000 = 8000"),
        ("Total cost = $4.20 + $9.45 + $1.35 = $14.99 (round to two decimal places).", "4.20 + 9.45 + 1.35 = 14.99"),
        ("Then \\(5050 = 77 \\cdot 64 + 28\\), so \\(5050 \\equiv 28 \\pmod{77}\\).", "5050 = 77 * 64 + 28"),
    ],
)
def test_false_computations_are_found(text: str, written: str) -> None:
    assert (written, "wrong") in findings(text), findings(text)


@pytest.mark.parametrize(
    "text",
    [
        "\\[ 65 + 2xy = 105 \\]",  # a variable joined to a number
        "\\[ 16 = 13 - 12 \\cos C \\]",  # a function of a variable on the right
        "Recall that \\(\\log_x (10^{-2}) = -2\\).",  # a function applied on the left
        "\\(\\sin 30^\\circ = \\frac{1}{2}\\)",
        "\\(2005 \\circ 2004 = \\frac{2005 + 2004}{2005 \\cdot 2004 + 4}\\)",  # an operation the problem defines
        "The total is (6 + 4 - 1) choose (4 - 1) = 9 choose 3 = 84.",
        "20% of 20 = 4 apples are red.",  # `of` changes what the number means
        "Total quarts produced in 48 hours = 2400 quarts.",  # a quantity named, not a side of a computation
        "\\[ 6 \\text{ inches} = \\frac{6}{12} \\text{ feet} \\]",
        "New position: 1st - 5 = 6th",
        "It takes 3 * 20 minutes = 1 hour.",  # a conversion between units
        "The mixed number \\(1\\frac{1}{10} = 1.1\\).",  # two numbers side by side: not read as a product
        "The answer is \\(3 = 5\\).",  # no computation
        "\\(|S \\cap M| - 3 \\times 8 = 38 - 24\\)",
        "So 250 / 60 = 4 full boxes.",  # an integer where the value is not one: rounded or floored on purpose
        "Check: 3 \\times 4 == 12 in Python, and 2 + 2 != 5.",
        "\\[ 8y - 8 - 8y = -3 \\] \\[ 5 - 13 = -3 \\] (This is not true)",  # an equation shown to fail
        "Since there is a carry, we must have $6+1+1=7+0=b$.",  # digit by digit
        "In base 8, \\(7 + 1 = 10\\).",
        "So \\(7 + 5 = 0 \\pmod{12}\\).",
        "\\(18 \\times 3.14159 = 56.54866\\)",  # pi cut short, used as if exact
        "\\(3.33 \\times 300 = 1000\\)",  # a repeating decimal cut short
        "\\(-(13)^{-1} = -0.0769\\)",
    ],
)
def test_what_cannot_be_read_with_certainty_is_not_found_wrong(text: str) -> None:
    assert all(f != "wrong" for _, f in findings(text)), findings(text)


def test_hostile_text_is_refused_not_evaluated() -> None:
    huge = "So 9^9^9^9 = 1 and 10^{100000} = 0 and (((((((1))))))) + " + "1+" * 5000 + "1 = 3."
    found = findings(huge)
    assert all(c != "9^9^9^9 = 1" for c, _ in found)
    assert len(computations("1 + 1 = 2. " * 1000)) <= 200
    nested = "(" * 900 + "1" + ")" * 900 + " + 1 = 2 and " + "\\frac{" * 600 + "1" + "}{2}" * 600 + " = 1"
    assert computations(nested) == [] or all(f != "wrong" for _, f in findings(nested))
    assert "((1)/(2))" in plain("\\frac{1}{2}") and computations("\\frac{1}{ = 2 + \\sqrt{") == []


@pytest.mark.skipif(not PROCESSBENCH.is_dir(), reason="../shared/data is not beside this checkout")
def test_on_processbench_a_false_computation_is_rare_where_the_final_answer_is_right() -> None:
    """ProcessBench's human labels: computations found wrong sit in solutions whose final answer is wrong, at
    least ten times as often as in ones whose final answer is right (EVALS.md has the figures)."""
    flagged = {True: 0, False: 0}
    for name in ("gsm8k", "math"):
        for row in json.loads((PROCESSBENCH / f"{name}.json").read_text()):
            if any(c.finding == "wrong" for c in computations("\n\n".join(row["steps"]))):
                flagged[row["final_answer_correct"]] += 1
    assert flagged[False] >= 10 * max(flagged[True], 1), flagged


MATH_PAIR: dict[str, Any] = {
    "id": "arith",
    "prompt": "Randy has 9 oatmeal cookies and 4 chocolate chip cookies. He eats 3 oatmeal cookies. How many "
    "cookies does he have now?",
    "candidates": [
        "He has 9 - 3 = 7 oatmeal cookies left, and 7 + 4 = 11 cookies in all. The answer is \\boxed{11}.",
        "He has 9 - 3 = 6 oatmeal cookies left, and 6 + 4 = 10 cookies in all. The answer is \\boxed{10}.",
    ],
    "label": {"winner": 1},
}


@pytest.mark.parametrize("judge_name", ["evidence", "skill"])
async def test_a_pair_without_a_reference_is_decided_by_a_false_computation(
    fake_openai: FakeOpenAI, tmp_path: Path, judge_name: str
) -> None:
    """No reference, and a model whose programs print nothing: the computation check alone decides, and the run
    replays from its record."""
    async with Judge.load(judge_name, store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process") as judge:
        t = await judge.arun(MATH_PAIR)
        report = await judge.areplay(t)
    v = t.verdict
    assert v is not None and v.winner == 1 and v.decided_by == "evidence" and t.correct
    checked = {r.data["candidate"]: r.data for r in t.tool_results() if r.name == "check_computations" and r.data}
    assert checked[0]["wrong"] == 1 and checked[1]["wrong"] == 0
    assert any(c["written"] == "9 - 3 = 7" and c["value"] == "6" for c in checked[0]["computations"])
    criteria = {c.candidate: c for c in v.criteria if c.source == "check_computations"}
    assert criteria[0].passed is False and criteria[0].conclusive and criteria[1].passed and not criteria[1].conclusive
    assert report.identical


async def test_a_single_response_with_a_false_computation_scores_zero(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """Pointwise (an RL reward for one rollout, no reference): a false computation sets the score by evidence; a
    response whose arithmetic holds is left to the model (holding arithmetic proves nothing)."""
    wrong = {
        "id": "one",
        "prompt": MATH_PAIR["prompt"],
        "candidates": [MATH_PAIR["candidates"][0]],
        "mode": "pointwise",
    }
    right = {**wrong, "id": "two", "candidates": [MATH_PAIR["candidates"][1]]}
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process") as judge:
        t_wrong, t_right = await judge.arun(wrong), await judge.arun(right)
    assert t_wrong.verdict is not None and t_wrong.verdict.decided_by == "evidence"
    assert t_wrong.verdict.scores == [0.0]
    assert t_right.verdict is not None and t_right.verdict.decided_by != "evidence"
