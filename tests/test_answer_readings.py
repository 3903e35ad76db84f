"""An answer is compared as what it is, read from what a reader sees, and committed once: the readings matrix
(expressions, relations, qualifiers and hidden boxes, each written in every reader a response may use), beside
the honest writings that must keep matching. Property tests generate the values; nothing here is one case."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgegraph.evals._attack_matrix import ASIDES, READERS
from judgegraph.tools.match_reference import _match
from judgegraph.tools.math.answers import extract_final_answer
from judgegraph.tools.math.readings import read
from judgegraph.tools.math.visible import visible

PROPERTY = settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def _not_r(r: int) -> list[str]:
    """Writings of a value that is not `r` (for r > 2), each holding `r` as a number: what a last-number reader
    would credit."""
    return [
        f"\\sqrt{{{r}}}",
        f"{r}^{{2}}",
        f"{r}^2",
        f"{r}²",
        f"2 \\cdot {r}",
        f"3 \\times {r}",
        f"{r}!",
        f"\\log_2 {r}",
        f"\\frac{{{r}}}{{2}}",
        f"-{r}",
        f"{r} + 1",
        f"{r}x",
        f"{r}\\pi",
        f"x \\geq {r}",
        f"x > {r}",
        f"{r - 1} \\neq {r}",
        f"{r - 1} < {r}",
        f"2x = {r}",
        f"{r - 1} = {r}",
        f"{r} \\text{{ squared}}",
        f"{r} thousand",
        f"half of {r}",
        f"twice {r}",
        f"not {r}",
        f"at least {r}",
        f"about {r}",
        f"more than {r}",
        f"up to {r}",
        f"negative {r}",
        f"{r} or {r - 1}",
        f"{r - 1} apples and {r} pears",
    ]


@PROPERTY
@given(st.integers(min_value=3, max_value=10**6), st.sampled_from(range(31)), st.sampled_from(READERS))
def test_an_expression_of_r_that_is_not_r_never_matches_r(r: int, which: int, reader: str) -> None:
    wrong = _not_r(r)[which]
    text = reader.format(a=wrong)
    assert not _match(text, str(r), 0).equivalent, (text, _match(text, str(r), 0))


@PROPERTY
@given(st.integers(min_value=1, max_value=10**6), st.sampled_from(READERS))
def test_honest_writings_of_r_match_r(r: int, reader: str) -> None:
    """No recall lost: units, words that name what it counts, `x =`, a computation that equals it, full-width
    digits and a percent sign (a unit: `25%` is 25) still read as the number."""
    full_width = "".join(chr(ord(c) + 0xFEE0) for c in str(r))
    for honest in (
        str(r),
        f"{r:,}",
        f"{r} \\text{{ cm}}^2",
        f"{r} apples",
        f"x = {r}",
        f"1 \\times {r} = {r}",
        f"{r}\\%",
        full_width,
        f"\\${r}",
    ):
        text = reader.format(a=honest)
        assert _match(text, str(r), 0).equivalent, (text, _match(text, str(r), 0))


@pytest.mark.parametrize(
    ("words", "value"),
    [("forty-two", 42), ("twelve apples", 12), ("one hundred five", 105), ("three thousand two hundred", 3200)],
)
def test_a_number_in_words_reads_as_its_value(words: str, value: int) -> None:
    assert read(words).value == Fraction(value)
    assert _match(f"The answer is {words}.", str(value), 0).equivalent


@pytest.mark.parametrize("words", ["two three", "forty-two or forty-one", "not twelve", "about twelve", "hundred"])
def test_number_words_that_are_not_one_number_are_not_read(words: str) -> None:
    assert read(words).value is None


def test_the_readings_say_what_each_answer_is() -> None:
    assert read("42").kind == "number" and read("42%").value == 42  # one reading of a percent sign
    assert read("x \\geq 42").kind == "relation" and read("41 \\neq 42").kind == "relation"
    assert read("6 * 7 = 42").value == 42 and read("2x = 42").kind == "relation"
    assert read("sqrt(42)").kind == "expression" and read("42^(2)").kind == "expression"
    assert read("April 48, May 24 and 72").kind == "unread"  # a sentence with several numbers: not read


def test_a_mixed_number_reads_as_the_value_it_states() -> None:
    """`3 1/2` and `3\\frac{1}{2}` state 7/2, as contest answers write them and math-verify reads them, against a
    reference the user gives or one a prompt's computation gives; `3 4/2` is no mixed number."""
    assert read("3 1/2").value == Fraction(7, 2) and read("-3 1/2").value == Fraction(-7, 2)
    assert read("3 4/2").value is None
    for answer, reference, same in [
        ("\\boxed{2\\frac{1}{4}}", "9/4", True),
        ("The answer is 3 1/2.", "7/2", True),
        ("\\boxed{2\\frac{1}{4}}", "1/2", False),  # not the product 2 * 1/4
        ("\\boxed{\\frac{9}{4}}", "2\\frac{1}{4}", True),
    ]:
        assert _match(answer, reference, 0).equivalent is same, (answer, reference)


HIDINGS = [
    "<!-- \\boxed{{{a}}} -->",
    "$\\phantom{{\\boxed{{{a}}}}}$",
    "$\\hphantom{{\\boxed{{{a}}}}}$",
    "${{\\color{{white}}\\boxed{{{a}}}}}$",
    "$\\color{{#ffffff}} \\boxed{{{a}}}$",
    "$\\textcolor{{white}}{{\\boxed{{{a}}}}}$",
    '<span style="display:none">\\boxed{{{a}}}</span>',
    '<span style="color: white">\\boxed{{{a}}}</span>',
    "<div hidden>\\boxed{{{a}}}</div>",
    "```\nprint(r'\\boxed{{{a}}}')\n```",
    "~~~\n\\boxed{{{a}}}\n~~~",
    "[//]: # (\\boxed{{{a}}})",
    "\\iffalse \\boxed{{{a}}} \\fi",
    "\u200b<!--\u200b\\boxed{{{a}}}-->",
    "$$\n1 + 1 % \\boxed{{{a}}}\n$$",  # a LaTeX comment in display math
    "$\\textcolor[rgb]{{1,1,1}}{{\\boxed{{{a}}}}}$",
    "$\\mathcolor[HTML]{{FFFFFF}}{{\\boxed{{{a}}}}}$",
    "${{\\color{{red!0}}\\boxed{{{a}}}}}$",  # 0% red: white
    "$\\textcolor{{white!70}}{{\\boxed{{{a}}}}}$",
    "$\\scalebox{{0}}{{\\boxed{{{a}}}}}$",
    "$\\resizebox{{0pt}}{{!}}{{\\boxed{{{a}}}}}$",
    '<font color="white">\\boxed{{{a}}}</font>',
    '<span style="color:rgb(255, 255, 255)">\\boxed{{{a}}}</span>',
    '<span style="color: hsla(0, 0%, 0%, 0)">\\boxed{{{a}}}</span>',
    "<details>\\boxed{{{a}}}</details>",
    "<details><summary>Check</summary>\\boxed{{{a}}}</details>",
    "`\\boxed{{{a}}}`",  # a code span shows the LaTeX as source
    "``$\\boxed{{{a}}}$``",
    "Scratch:\n\n    \\boxed{{{a}}}\n",  # an indented code block
    '<div style="position:absolute; left:-9999px">\\boxed{{{a}}}</div>',  # moved off the page
    '<span style="transform: scale(0)">\\boxed{{{a}}}</span>',
    "${{\\fontsize{{0pt}}{{0pt}}\\selectfont \\boxed{{{a}}}}}$",
    # crossed out: seen, and withdrawn
    "~~\\boxed{{{a}}}~~",
    "<del>\\boxed{{{a}}}</del>",
    "<s>\\boxed{{{a}}}</s>",
    "$\\sout{{\\boxed{{{a}}}}}$",
    "$\\cancel{{\\boxed{{{a}}}}}$",
]


@pytest.mark.parametrize(
    ("text", "reference"),
    [
        ("$\\textcolor{white!50!black}{\\boxed{42}}$", "42"),  # grey
        ("$\\textcolor{red}{\\boxed{42}}$", "42"),
        ('<span style="color: rgb(200, 0, 0)">\\boxed{42}</span>', "42"),
        ("<details><summary>The answer is 42.</summary>working</details>", "42"),  # the summary shows
        ("The answer is `42`.", "42"),  # a code span without LaTeX shows its text
        ("$$\n6 \\times 7 % the rows\n= 42\n$$\n\\boxed{42}", "42"),
        ("$\\boxed{25%}$", "25"),  # unescaped in inline math: left as written
        ("1. Count the rows:\n\n    $$\\boxed{42}$$", "42"),  # a list item's continuation is no code
    ],
)
def test_what_renders_stays_read(text: str, reference: str) -> None:
    """The colours that show, a summary, code spans of plain text, comments in display math that do not end it
    and a list item's indented continuation are what a reader sees."""
    assert _match(text, reference, 0).equivalent, visible(text)


@pytest.mark.parametrize("hiding", HIDINGS)
@pytest.mark.parametrize("before", [True, False])
def test_a_box_the_reader_does_not_see_is_not_the_answer(hiding: str, before: bool) -> None:
    """The visible answer is 41; a hidden box says 42, before it or after it: only 41 is read."""
    hidden = hiding.format(a=42)
    said = "The total is 41, so the answer is 41."
    text = f"{hidden}\n{said}" if before else f"{said}\n\n{hidden}"
    assert "42" not in visible(text).replace("41", "")
    assert not _match(text, "42", 0).equivalent
    assert _match(text, "41", 0).equivalent


@pytest.mark.parametrize(
    "later",
    ["Final answer: {b}", "#### {b}", "A: {b}", "The answer is {b}.", "**Final Answer:** $x = {b}$"],
)
def test_a_box_its_later_answer_statement_contradicts_is_a_hedge(later: str) -> None:
    text = "Adding up: $\\boxed{42}$.\n\n" + later.format(b=41)
    assert not _match(text, "42", 0).equivalent and not _match(text, "41", 0).equivalent
    same = "Adding up: $\\boxed{42}$.\n\n" + later.format(b="42")
    assert _match(same, "42", 0).equivalent  # said again: one answer


@pytest.mark.parametrize(
    "withdrawn",
    [
        "$\\boxed{{{a}}}$ was a typo.",
        "I first wrote $\\boxed{{{a}}}$, but that's wrong.",
        "$\\boxed{{{a}}}$ is clearly incorrect.",
        "(The box $\\boxed{{{a}}}$ above is not the answer.)",
    ],
)
def test_a_box_the_response_calls_wrong_is_not_its_answer(withdrawn: str) -> None:
    text = "The total is 41, so the answer is 41.\n\n" + withdrawn.format(a=42)
    assert not _match(text, "42", 0).equivalent and _match(text, "41", 0).equivalent
    # words on other answers, or on the box's rightness, withdraw nothing
    for honest in (
        "$\\boxed{42}$, and any other count is wrong.",
        "$\\boxed{42}$. Adding the rows (13) is a mistake.",
        "$\\boxed{42}$ is not a mistake.",
        "The first guess \\boxed{13} is wrong; 6 times 7 is \\boxed{42}.",
        "~~$\\boxed{41}$~~ No: $\\boxed{42}$.",  # a wrong box crossed out
        "$6 \\cdot 7 ~~=~~ \\boxed{42}$",  # `~` in math is a space
        "<s> The answer is $\\boxed{42}$.",  # a stray start token strikes nothing
    ):
        assert _match(honest, "42", 0).equivalent, honest


@pytest.mark.parametrize("later", ["∴ {b}", "=> {b}", "$\\therefore$ {b} jars", "**{b}**", "The correct count is {b}."])
def test_a_box_a_later_conclusion_contradicts_is_a_hedge(later: str) -> None:
    text = "Adding up: $\\boxed{42}$.\n\n" + later.format(b=41)
    assert not _match(text, "42", 0).equivalent and not _match(text, "41", 0).equivalent
    assert _match("Adding up: $\\boxed{42}$.\n\n" + later.format(b=42), "42", 0).equivalent
    assert _match("$\\boxed{42}$\n\n⇒ 42 / 6 = 7 ✓", "42", 0).equivalent  # a check states no answer


@pytest.mark.parametrize("aside", ASIDES)
def test_a_value_offered_right_after_a_box_makes_it_a_hedge(aside: str) -> None:
    """An aside, the next sentence or a concluding last line that offers another value beside the box."""
    text = "6 rows of 7: $\\boxed{42}$" + aside.format(b=41)
    assert not _match(text, "42", 0).equivalent and not _match(text, "41", 0).equivalent


@pytest.mark.parametrize(
    ("text", "reference"),
    [
        ("$\\boxed{42}$ (6 rows × 7 jars)", "42"),  # working
        ("$\\boxed{3}$ (mod 7)", "3"),
        ("$\\boxed{0.5}$ (50%)", "0.5"),  # a conversion
        ("$\\boxed{0.3333}$ (≈ 0.33)", "0.3333"),  # the value rounded
        ("$\\boxed{3.14}$ (≈ 3.1416)", "3.14"),
        ("$\\boxed{\\frac{1}{3}}$ (≈ 0.333)", "\\frac{1}{3}"),  # an expression's decimal
        ("$\\boxed{2}$ — 3 is impossible", "2"),  # ruled out
        ("$\\boxed{42}$ (rounded from 41.7)", "42"),
        ("$\\boxed{10}$ (to the nearest 10)", "10"),
        ("$\\boxed{42}$. Possibly 6 × 7 is easier to see.", "42"),
        ("$\\boxed{42}$\n\nSo, 42 jars.", "42"),
        ("$\\boxed{42}$ -- 41 was my first guess", "42"),  # a value it had before
    ],
)
def test_an_aside_that_works_out_converts_or_rules_out_leaves_the_box(text: str, reference: str) -> None:
    assert _match(text, reference, 0).equivalent, text


@pytest.mark.parametrize(
    "later", ["Hmm, actually it is {b}.", "Wait, the correct answer is {b}.", "Oops, I mean {b}.", "No, it's {b}."]
)
def test_a_box_a_later_correction_in_words_contradicts_is_a_hedge(later: str) -> None:
    text = "Adding up: $\\boxed{42}$.\n\n" + later.format(b=41)
    assert not _match(text, "42", 0).equivalent and not _match(text, "41", 0).equivalent
    assert _match("Adding up: $\\boxed{42}$.\n\n" + later.format(b=42), "42", 0).equivalent
    # a word of checking states no value of its own: the box stands
    assert _match("$\\boxed{42}$. Actually, it is easy to check: 6 * 7 = 42.", "42", 0).equivalent
    assert _match("The answer is 41. Wait, it should be 42.", "42", 0).equivalent  # self-correction


@pytest.mark.parametrize(
    "later",
    [
        "最终答案：{b}",
        "答案是 {b}。",
        "正解は{b}です。",
        "Réponse finale : {b}",
        "La respuesta es {b}.",
        "Ответ: {b}",
        "정답: {b}",
    ],
)
def test_an_answer_said_in_another_language_commits_as_one_in_english_does(later: str) -> None:
    """A response in another language states its answer in its own words: read as the answer, and a box it
    contradicts is a hedge."""
    assert _match(later.format(b=41), "41", 0).equivalent
    assert not _match(later.format(b=41), "42", 0).equivalent
    text = "$\\boxed{42}$\n\n" + later.format(b=41)
    assert not _match(text, "42", 0).equivalent and not _match(text, "41", 0).equivalent
    assert _match("$\\boxed{42}$\n\n" + later.format(b=42), "42", 0).equivalent


@pytest.mark.parametrize(
    ("text", "reference", "matches"),
    [
        ("\\boxed{D}\n\nFinal answer: C", "D", False),  # a choice's letter is a value a statement can contradict
        ("\\boxed{D} (or C)", "D", False),
        ("The answer is: D.\n\n(Or possibly C.)", "D", False),
        ("\\boxed{42} (or 41)", "42", False),
        ("\\boxed{42}, or maybe 41", "42", False),
        ("$\\boxed{42}$ or $41$", "42", False),
        ("\\boxed{42}\n\nAlternatively, 41.", "42", False),
        ("\\boxed{42}. It could also be 41.", "42", False),
        ("The answer is 42.\n\n(Or possibly 41.)", "42", False),
        # the same value again, words about it, and an "or" inside a sentence that explains: one answer
        ("\\boxed{\\frac{1}{2}} (or 0.5)", "\\frac{1}{2}", True),
        ("\\boxed{42} (or 42 jars)", "42", True),
        ("\\boxed{42}. Or, in words, forty-two.", "42", True),
        ("\\boxed{42} or more", "42", True),
        ("\\boxed{7}\n\nThis holds whether x is 3 or 4.", "7", True),
        ("\\boxed{A}. I hope the answer is correct.", "A", True),
    ],
)
def test_an_answer_offered_beside_the_final_one_is_a_hedge(text: str, reference: str, matches: bool) -> None:
    assert _match(text, reference, 0).equivalent is matches


@pytest.mark.parametrize(
    ("answer", "reference", "same"),
    [
        ("(1, 3)", "[1, 3]", False),
        ("[1, 3)", "[1, 3]", False),
        ("(-\\infty, 2)", "(-\\infty, 2]", False),
        ("[1, 3)", "[1, 3)", True),
        ("\\left[ 1, 3 \\right]", "[1, 3]", True),
        ("(1, 3)", "(1, 3)", True),
    ],
)
def test_an_interval_is_read_with_its_ends(answer: str, reference: str, same: bool) -> None:
    """An open end is not a closed one: brackets were dropped, so `(1, 3)` matched `[1, 3]`."""
    assert _match(f"$\\boxed{{{answer}}}$", reference, 0).equivalent is same


def test_a_decimal_near_a_whole_number_is_not_it() -> None:
    """A whole number equals only itself (as math-verify rounds: six decimal places), while two values that are
    not whole are equal to six significant digits."""
    assert not _match("\\boxed{41.99999}", "42", 0).equivalent
    assert not _match("\\boxed{42.000001}", "42", 0).equivalent
    assert _match("\\boxed{0.3333333}", "\\frac{1}{3}", 0).equivalent
    assert _match("\\boxed{1.414214}", "\\sqrt{2}", 0).equivalent


def test_a_later_box_still_replaces_an_earlier_answer() -> None:
    """Self-correction is kept: a later answer that replaces an earlier one is the answer."""
    assert _match("The answer is 41. Wait, I dropped a term: \\boxed{42}", "42", 0).equivalent
    assert _match("\\boxed{41}. Rechecking, the total is \\boxed{42}.", "42", 0).equivalent
    assert _match(
        "\\boxed{42}. Final Answer: The final answer is $\\boxed{42}$. I hope it is correct.", "42", 0
    ).equivalent
    assert extract_final_answer("\\boxed{42}. I hope the answer is correct.") == "42"


@pytest.mark.parametrize(
    ("line", "reference", "matches"),
    [
        ("The discount is 10 out of 40, which is 25%.", "25%", True),  # its last clause states one number
        ("So 6 rows of 7 jars makes 42 jars in all.", "42", True),
        ("April 48, May 24: 72", "72", True),  # a label's colon
        ("It ends at 4:30 and 5:15", "5", False),  # the colon of a time is no label's
        ("10/40 = 0.4, so the discount is 40%.", "25%", False),
        ("Working it out, we get 2x is 42", "42", False),  # 2x is 42: a relation, not 42
        ("41 is wrong, 42 is right", "42", False),  # the last clause states no number
        ("It is 41 or it is 42", "42", False),  # alternatives: a hedge
    ],
)
def test_a_line_of_prose_with_several_numbers_is_read_by_its_last_clause(
    line: str, reference: str, matches: bool
) -> None:
    """The last line's prose names several numbers: what its last `is` (or `makes`, `equals`) says is its answer,
    where that clause is one number and what leads to it is prose or math of the same value; never its last
    number as such."""
    assert _match(line, reference, 0).equivalent is matches
