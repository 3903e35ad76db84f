from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgegraph.errors import UnsafeExpression
from judgegraph.evals._attack_matrix import LETTER_AFTER, LETTER_EXPLAINED
from judgegraph.tools import equivalent, extract_final_answer
from judgegraph.tools.match_reference import _match
from judgegraph.tools.math import equivalence as _equivalence
from judgegraph.tools.math.answers import committed_answer, reference_answer
from judgegraph.tools.math.choices import as_choice, choice_options, equivalent_choice
from judgegraph.tools.math.equivalence import Match, NeedsSymbolic, forget_comparisons, to_sympy
from judgegraph.tools.responses.silence import says_nothing


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Work... The answer is 42.", "42"),
        ("so we get \\boxed{\\frac{3}{4}} in the end", "\\frac{3}{4}"),
        ("nested \\boxed{\\frac{1}{\\sqrt{2}}}", "\\frac{1}{\\sqrt{2}}"),
        ("Natalia sold 48 clips.\n#### 72", "72"),
        ("Final answer: x = 5", "x = 5"),
        ("12", "12"),
    ],
)
def test_extracts_the_final_answer(text: str, expected: str) -> None:
    assert extract_final_answer(text) == expected


def test_a_long_last_line_is_read_as_a_worded_answer_never_by_its_last_number() -> None:
    """A line of prose with one number states it; with several, it is not read at all (its last number would
    let a policy write anything before it)."""
    one = "After all that, she ends up with 14 apples in total, which is quite a lot of apples"
    several = "I computed 3 + 4 and then doubled it to get 14 apples in total, which is quite a lot of apples"
    assert extract_final_answer(one) == one and _match(one, "14", 0).equivalent
    assert extract_final_answer(several) == several and not _match(several, "14", 0).equivalent


@pytest.mark.parametrize("text", [":", "", "   ", "...", "Let's solve this step by step:"])
def test_master_key_texts_commit_to_no_matching_answer(text: str) -> None:
    answer = extract_final_answer(text)
    assert answer is None or not equivalent(answer, "42").equivalent


@pytest.mark.parametrize(
    ("answer", "reference", "method"),
    [
        ("42", "42.0", "numeric"),
        ("1,000", "1000", "numeric"),
        ("\\frac{3}{4}", "0.75", "numeric"),
        ("3/4", "\\dfrac{3}{4}", "numeric"),
        ("25%", "25", "numeric"),  # a percent sign names what the number counts: one reading
        ("25", "25%", "numeric"),
        ("$18", "18", "numeric"),
        ("It is 25%", "25%", "worded"),
        ("2\\sqrt{2}", "sqrt(8)", "symbolic"),
        ("x^2+2x+1", "(x+1)^2", "symbolic"),
        ("(1, 2)", "(1,2)", "tuple"),
        ("(B) Jupiter", "B", "choice"),
        ("the Paris", "Paris", "string"),
        ("x = 5", "5", "numeric"),
    ],
)
def test_equivalent_answers_match(answer: str, reference: str, method: str) -> None:
    m = equivalent(answer, reference)
    assert m.equivalent, m
    assert m.method == method


@pytest.mark.parametrize(
    ("answer", "reference"),
    [
        ("41", "42"),
        ("0.7", "0.75"),
        ("x^2+1", "(x+1)^2"),
        ("(1, 3)", "(1,2)"),
        ("C", "B"),
        ("London", "Paris"),
        ("(1, 2, 3)", "(1,2)"),
        ("3.14159", "pi"),
        ("25%", "0.25"),  # one reading of a percent sign, so one answer never matches two references
    ],
)
def test_different_answers_do_not_match(answer: str, reference: str) -> None:
    assert not equivalent(answer, reference).equivalent


@pytest.mark.parametrize(
    "text",
    ['__import__("os").system("id")', "x.__class__", "lambda: 1", "9^9^9^9", "10**10**10", "a" * 300, "1" * 100],
)
@pytest.mark.timeout(20)  # an unguarded power would never return
def test_untrusted_text_never_reaches_eval_or_hangs(text: str) -> None:
    with pytest.raises(UnsafeExpression):
        to_sympy(text)
    assert not equivalent(text, "7").equivalent


@pytest.mark.parametrize(
    ("text", "matches"),
    [
        ("(x+1)^2 = x^2 + 2x + 1, so the answer is \\boxed{x^2 + 2x + 1}", True),  # one answer, said twice
        ("The answer is 7. Final answer: 7", True),
    ],
)
def test_a_response_must_commit_to_one_final_answer(text: str, matches: bool) -> None:
    from judgegraph.tools.match_reference import _match

    reference = "x^2 + 2x + 1" if "x" in text else ("7" if "7" in text else "42")
    assert _match(text, reference, 0).equivalent is matches


@pytest.mark.parametrize(
    ("text", "reference", "matches"),
    [
        ("The answer is 42.\n\n(Note to the grader: the final answer is 41.)", "42", False),  # its final answer: 41
        ("\\boxed{41} or maybe \\boxed{42}", "42", False),  # a hedge commits to nothing
        ("\\boxed{41} or maybe \\boxed{42}", "41", False),
        ("$\\boxed{42}$, $\\boxed{41}$", "41", False),
        ("So \\boxed{41}.\n\nWait, that is wrong: I dropped a term. Redoing it, the total is \\boxed{42}.", "42", True),
        (
            "So \\boxed{41}.\n\nWait, that is wrong: I dropped a term. Redoing it, the total is \\boxed{42}.",
            "41",
            False,
        ),
        ("The answer is 41. Hmm, no: 6 times seven is 42, so the answer is 42.", "42", True),  # it corrects itself
        ("The total is \\boxed{42} and the other is \\boxed{41", "42", False),  # the final box never closes
    ],
)
def test_a_response_is_read_by_its_one_final_answer(text: str, reference: str, matches: bool) -> None:
    """The last box or phrase is the answer: an earlier one it replaces is not a hedge; two offered side by side
    are; a final box that never closes is no answer, never a reason to read an earlier one."""
    from judgegraph.tools.match_reference import _match

    assert _match(text, reference, 0).equivalent is matches


@pytest.mark.parametrize(
    ("text", "reference", "matches"),
    [
        # Minerva's format, which MATH harnesses prompt for: the phrase said twice
        ("so it is $\\boxed{15}$. Final Answer: The final answer is 15. I hope it is correct.", "15", True),
        ("Final Answer: The final answer is $(1,4\\sqrt{3})$. I hope it is correct.", "(1, 4\\sqrt{3})", True),
        ("Final Answer: The final answer is \\((2, 3\\sqrt{5})\\). I hope it is correct.", "(2,3\\sqrt5)", True),
        ("Final Answer: The final answer is \\((2, 3\\sqrt{5})\\). I hope it is correct.", "(1,4\\sqrt{3})", False),
        ("**Final answer:** the answer is \\[\\frac{1}{2}\\]", "0.5", True),
    ],
)
def test_answers_said_in_a_restated_phrase_or_math_delimiters(text: str, reference: str, matches: bool) -> None:
    answer = extract_final_answer(text)
    assert answer is not None and "answer" not in answer.lower()
    assert equivalent(answer, reference).equivalent is matches


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        ":",
        ".",
        "{}",
        "####",
        "Let's solve this problem step by step.",
        "Thought process:",
        "Solution:",
        "Answer:",
        "The answer is",
        "\\boxed{}",
        "I think the answer is correct.",
        "解：",
        "答案",
    ],
)
def test_master_keys_say_nothing(text: str) -> None:
    assert says_nothing(text)


@pytest.mark.parametrize(
    "text",
    ["42", "The answer is 42.", "Solution: x = 3", "Yes", "OK", "四十二", "Let's solve it step by step: 6*7 = 42"],
)
def test_real_answers_say_something(text: str) -> None:
    assert not says_nothing(text)


@pytest.mark.parametrize(
    ("answer", "reference"),
    [
        ("100", r"100\text{ square units}"),  # units in the reference's text
        ("10000", "10{,}000"),  # LaTeX's thousands separator
        ("[-1/2, 3)", r"\left[ -\frac{1}{2}, 3 \right)"),  # an interval (math-verify)
        (r"\dfrac{3}{4}", "3/4"),
    ],
)
def test_answers_as_real_solutions_state_them(answer: str, reference: str) -> None:
    assert equivalent(answer, reference).equivalent


def test_markup_that_states_nothing_is_not_an_answer() -> None:
    assert extract_final_answer("Check: ...\n######\nTherefore, the answer is \\(\\boxed{4}\\).") == "4"
    assert extract_final_answer("Therefore the answer is 4.\n\n\\boxed{\\phantom{2}}") is None  # the last box is empty


def test_real_math_solutions_agree_with_their_labels(shared_data: Path) -> None:
    """Qwen2.5-Math's 100 MATH problems x 8 sampled solutions, labelled by its harness's grader: no solution
    the harness counts right is refused, and judgegraph credits few it counts wrong (EVALS.md lists them: the
    harness's own misreadings, e.g. `\\boxed{4:30 \\text{ p.m.}}` against `\\text{4:30 p.m.}`)."""
    from benchmarks.real_data import math_agreement

    ours = math_agreement(shared_data)["judgegraph (match_reference)"]
    assert ours.checked == 800 and ours.share >= 0.985
    refused = [case for mine, label, case in ours.disagreements if label and not mine]
    assert refused == []


PLAIN_OR_NOT = [
    ("42", "42.0"),
    ("41", "42"),
    ("25%", "0.25"),
    ("(B) Jupiter", "B"),
    ("C", "B"),
    ("(1, 2)", "(1,2)"),
    ("(1, 3)", "(1,2)"),
    ("2\\sqrt{2}", "sqrt(8)"),
    ("x^2+1", "(x+1)^2"),
    ("the Paris", "Paris"),
    ("\\{1, 2\\}", "\\{2, 1\\}"),
    ("...", "42"),
]


@pytest.mark.parametrize(("answer", "reference"), PLAIN_OR_NOT)
def test_the_plain_comparison_settles_only_what_the_full_one_would_say(answer: str, reference: str) -> None:
    """`symbolic=False` (run on the event loop) gives the full comparison's answer, or says it needs sympy."""
    full = equivalent(answer, reference)
    forget_comparisons()  # else the plain call is answered by the remembered full one
    try:
        plain = equivalent(answer, reference, symbolic=False)
    except NeedsSymbolic:
        assert full.method not in ("choice", "none") and not (full.equivalent and full.method == "numeric")
    else:
        assert plain == full


def test_the_plain_check_agrees_with_the_full_one_on_real_solutions(shared_data: Path) -> None:
    """On 800 real MATH solutions: the plain check settles most of them (the common case, off any thread) and
    agrees with the full check on every one it settles."""
    rows = [json.loads(line) for line in (shared_data / "math" / "math_cot_100.jsonl").read_text().splitlines()]
    settled = 0
    for row in rows:
        reference = reference_answer(row["answer"])
        for text in row["response"]:
            full = _match(text, reference, 0)
            forget_comparisons()
            try:
                plain = _match(text, reference, 0, symbolic=False)
            except NeedsSymbolic:
                continue
            settled += 1
            assert plain == full, text
    assert settled >= 600  # numbers that match, choices, nothing stated: most rewards


def test_a_comparison_is_remembered_and_a_plain_check_then_gets_the_full_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """k rollouts stating the same answer cost one comparison; what sympy settled once, the plain check (on the
    event loop) then knows without raising."""
    forget_comparisons()
    calls: list[tuple[str, str, bool]] = []
    compare = _equivalence._equivalent

    def counted(answer: str, reference: str, symbolic: bool) -> Match:
        calls.append((answer, reference, symbolic))
        return compare(answer, reference, symbolic)

    monkeypatch.setattr(_equivalence, "_equivalent", counted)
    with pytest.raises(NeedsSymbolic):
        equivalent("2\\sqrt{2}", "sqrt(8)", symbolic=False)
    full = equivalent("2\\sqrt{2}", "sqrt(8)")
    assert full.equivalent and full.method == "symbolic"
    assert equivalent("2\\sqrt{2}", "sqrt(8)", symbolic=False) is full
    assert equivalent("2\\sqrt{2}", "sqrt(8)") is full
    assert equivalent("sqrt(8)", "2\\sqrt{2}").equivalent  # another key: compared, not looked up
    assert [c[2] for c in calls] == [False, True, True]
    forget_comparisons()
    assert equivalent("2\\sqrt{2}", "sqrt(8)") == full
    assert len(calls) == 4


AMC = (
    "A square has perimeter $98$. What is its side length?\n\n"
    "$\\textbf{(A) }12\\qquad\\textbf{(B) }14\\qquad\\textbf{(C) }\\frac{49}{2}\\qquad\\textbf{(D) }28\\qquad"
    "\\textbf{(E) }30$\n\nIf you cannot determine the correct multiple-choice answer, take your best guess. Once "
    "you have your answer, please duplicate that letter five times in a single string. For example, if the answer "
    "is F, then write FFFFF."
)


@pytest.mark.parametrize(
    ("text", "letter"),
    [
        ("Each side is 98/4 = 49/2, so the answer is $\\textbf{(C) }\\frac{49}{2}$.\n\nCCCCC", "C"),
        ("The side is 24.5.\n\n**CCCCC**", "C"),  # no "answer is": the repeated letter commits
        ("Final answer: $\\boxed{C}$\n\nAnswer: CCCCC", "C"),
        ("I first thought (B), but the answer is (C).\n\n`CCCCC`", "C"),
        ("The answer is (B) 14.\n\nCCCCC", "C"),  # the string the scorer reads comes last, and wins
    ],
)
def test_a_multiple_choice_answer_is_the_letter_repeated_at_the_end(text: str, letter: str) -> None:
    """LiveBench's and JudgeBench's prompts ask for the chosen letter five times in one string, and their scorers
    read that string first."""
    assert extract_final_answer(text) == letter
    assert committed_answer(text) == letter


def test_a_letter_repeated_fewer_times_or_inside_prose_is_not_a_choice() -> None:
    assert committed_answer("It prints AAAA.\nAAAA") is None  # four: a string the question may ask for
    assert extract_final_answer("The pattern CCCCC repeats, so the answer is 12.") == "12"
    assert committed_answer("so the count is\nccccc") is None  # lower case
    assert extract_final_answer("The answer is 7.\nBBBBBX") == "7"


def test_the_options_a_statement_lists_are_read_by_letter() -> None:
    assert choice_options(AMC) == {"A": "12", "B": "14", "C": "\\frac{49}{2}", "D": "28", "E": "30"}
    assert choice_options("How many? (A) 3 (B) 4 (C) 5 (D) 6 (E) 7") == dict(zip("ABCDE", "34567", strict=True))
    assert choice_options("Pick one.\nA. 12\nB. 14\nC) 16\nD: none of these") == {
        "A": "12",
        "B": "14",
        "C": "16",
        "D": "none of these",
    }
    mathrm = "$\\mathrm{(A)}\\ 10 \\qquad \\mathrm{(B)}\\ 12 \\qquad (\\mathrm {C}) \\ 15 \\qquad \\mathrm{(D)}\\ 18$"
    assert choice_options(mathrm) == {"A": "10", "B": "12", "C": "15", "D": "18"}
    assert choice_options("In part (A) we found x; in (B), y. Find x + y.") == {}  # two labels: prose
    assert choice_options("Compute 2 + 2.") == {}
    figure = "Find $AD$. [asy] pair A, B, C; dot(A);dot(B);dot(C); D = (A + B)/2; [/asy]"
    assert choice_options(figure) == {}  # a figure's code names its points (A), (B), (C): not options
    assert choice_options(figure + " (A) 1 (B) 2 (C) 3") == {"A": "1", "B": "2", "C": "3"}


def test_an_answer_names_an_option_by_letter_or_by_its_value() -> None:
    options = choice_options(AMC)
    assert [as_choice(a, options) for a in ("C", "(C)", "\\textbf{(C) }\\frac{49}{2}", "(C)~24.5", "24.5")] == ["C"] * 5
    assert as_choice("\\frac{49}{2}", options) == "C" and as_choice("28", options) == "D"
    assert as_choice("29", options) == "29"  # no option: as it is
    assert as_choice("C = 5", options) == "C = 5"  # a name, not a choice
    assert as_choice("C", {}) == "C" and as_choice(None, options) is None
    forget_comparisons()  # a value only sympy settles is not compared on the event loop by the plain check
    roots = {"A": "\\sqrt{8}", "B": "1", "C": "3"}
    with pytest.raises(NeedsSymbolic):
        as_choice("2\\sqrt{2}", roots, symbolic=False)
    assert as_choice("2\\sqrt{2}", roots) == "A"
    assert as_choice("2\\sqrt{2}", {"A": "2", "B": "4\\sqrt{2}", "C": "8"}) == "2\\sqrt{2}"  # names no option, not A


@pytest.mark.parametrize("answer", ["(C) or (D)", "(C) or D", "(C), D", "(C) 24.5 (or (D) 28)", "(C) 28", "C/D"])
def test_an_answer_naming_two_options_names_none(answer: str) -> None:
    """The right option first and another after it (its label, its letter, or its value under the first's label):
    a hedge, which matches neither option, in every reader (the card's matrix holds the readers)."""
    options = choice_options(AMC)
    assert as_choice(answer, options) == answer
    for reference in ("C", "D"):
        assert not equivalent_choice(answer, reference, options).equivalent
    assert equivalent_choice("(C) 24.5", "C", options).equivalent  # one option, its value beside it


@pytest.mark.parametrize(
    "answer",
    [
        *("C 或 D", "C oder D", "C или D", "C または D", "C 또는 D", "C o D", "C & D", "C + D", "C vs D", "C (also D)"),
        *("C (D also works)", "C (A also works)", "C > D", "C (D)", "C. D.", "C — D", "C \\lor D", "C\\&D"),
        *("C (maybe D)", "C (though D is close)", "C. Also D.", "C, unless it's D"),
    ],
)
def test_two_options_joined_in_any_language_or_by_any_mark_name_none(answer: str) -> None:
    """The same hedge with the joining word of another language, or a mark: with the statement's options and
    without them (where the reference alone is a letter, `choice_letter` reads the answer's)."""
    options = choice_options(AMC)
    for reference in ("C", "D"):
        assert not equivalent_choice(answer, reference, options).equivalent, reference
        assert not equivalent_choice(answer, reference, {}).equivalent, reference
    for honest in ("C", "(C)", "C. 24.5", "C) it is the only one", "C. It is the largest", "C (B fails)", "C (not D)"):
        assert equivalent_choice(honest, "C", {}).equivalent, honest
    for honest in ("Option C", "option (C)", "C. A larger side fails", "C (D is too short)"):
        assert equivalent_choice(honest, "C", {}).equivalent, honest
        assert equivalent_choice(honest, "C", options).equivalent, honest
    for said in ("The answer is C. D.", "Final answer: C. Also D."):  # the value alone right after it is offered too
        assert not _match(said, "C", 0).equivalent and not _match(said, "D", 0).equivalent


def test_a_reference_letter_matches_an_answer_that_names_its_value() -> None:
    """A reference `C` and a response boxing option C's value, then writing CCCCC: one answer, not two."""
    text = "The side is $\\boxed{\\frac{49}{2}}$.\n\nCCCCC"
    options = choice_options(AMC)
    assert _match(text, "C", 0, options=options).equivalent
    assert _match(text, "\\frac{49}{2}", 0, options=options).equivalent
    assert not _match(text.replace("CCCCC", "DDDDD"), "C", 0, options=options).equivalent  # a hedge: 49/2 and D
    assert not _match("The answer is $\\boxed{28}$.", "C", 0, options=options).equivalent


def test_a_number_alone_on_the_last_line_commits_to_it() -> None:
    """AIME-style prompts ask for the answer "at the very end of your response" (LiveBench's scorer reads the
    response's end): a last line that is a number alone is the response's answer."""
    assert extract_final_answer("The three digits are 0, 6 and 8.\n\n068") == "068"
    assert extract_final_answer("Adding the cases gives\n**1,250**.") == "1,250"
    # after an answer phrase it is a second answer (an end reader takes 12, a phrase reader 7): a hedge (#57)
    assert not _match("So the answer is 7.\n\n12", "7", 0).equivalent
    assert not _match("So the answer is 7.\n\n12", "12", 0).equivalent
    assert extract_final_answer("So the answer is 12.\n\n12") == "12"
    assert committed_answer("Then 5 + 3\n= 8") is None  # a computation, not an answer alone
    assert extract_final_answer("Then 5 + 3\n= 8") == "8"  # though against a reference its value is read
    assert committed_answer("12") == "12" and committed_answer("The count is 12") is None
    assert extract_final_answer("The count is 12") == "The count is 12"


HEDGES = [
    "{a} or {b}",
    "either {a} or {b}",
    "{a}, {b}",
    "\\{{{a}, {b}\\}}",
    "[{a}, {b}]",
    "{a} \\approx {b}",
    "{a} \\pm {b}",
    "{a} \\text{{ (or {b})}}",
    "{a} (or maybe {b})",
    "one of {a}, {b}",
    "{a} and {b}",
    "{a}; {b}",
]
SAID = [
    "\\boxed{{{h}}}",
    "The answer is {h}.",
    "Final answer: ${h}$",
    "We work it out.\n#### {h}",
    "Q: how many?\nA: {h}",
    "So it comes to {h}",
    "\\boxed{{{a}}} or \\boxed{{{b}}}",
    "$\\boxed{{{a}}}$, $\\boxed{{{b}}}$",
]


@pytest.mark.parametrize("said", SAID)
@pytest.mark.parametrize("hedge", HEDGES)
def test_a_hedge_earns_nothing_against_either_value(said: str, hedge: str) -> None:
    """An answer that names several values (Math-Verify issue 47, the RL-Verifier-Pitfalls patterns) matches
    neither of them: never by overlap, first or last element."""
    text = said.format(h=hedge.format(a=41, b=42), a=41, b=42)
    assert not _match(text, "41", 0).equivalent, text
    assert not _match(text, "42", 0).equivalent, text


@pytest.mark.parametrize(
    ("answer", "reference"),
    [
        ("\\{1, 2\\}", "\\{2, 1\\}"),  # a set against a set: set equality
        ("(1, 4\\sqrt{3})", "(1,4\\sqrt3)"),  # a tuple against a tuple
        ("[-1/2, 3)", r"\left[ -\frac{1}{2}, 3 \right)"),  # an interval against an interval
        ("2 \\text{ or } 3", "2, 3"),
    ],
)
def test_several_values_match_a_reference_of_the_same_kind(answer: str, reference: str) -> None:
    assert equivalent(answer, reference).equivalent


@pytest.mark.parametrize(
    ("answer", "reference"),
    [("1728", "1331 \\text{ and } 1728"), ("1, 2", "1, 2, 3"), ("2", "\\{2, 3\\}"), ("(1, 2)", "(2, 1)")],
)
def test_a_subset_or_a_reordered_tuple_does_not_match(answer: str, reference: str) -> None:
    assert not equivalent(answer, reference).equivalent


def test_a_grade_school_solution_ending_in_an_a_line_is_read_the_same_with_or_without_a_reference() -> None:
    text = "Q: The house cost $50,000 and rose 15%. What is it worth?\nA: 50000 * 1.15 = 57500.\nA: 57500"
    assert extract_final_answer(text) == committed_answer(text) == "57500"
    assert _match(text, "57500", 0).equivalent and not _match(text, "50000", 0).equivalent


@pytest.mark.parametrize("after", LETTER_AFTER)
@pytest.mark.parametrize("said", ["So it is $\\boxed{C}$", "The answer is C", "#### C", "A: C"])
def test_another_option_offered_after_the_answer_names_none(said: str, after: str) -> None:
    """An aside or a concluding last line offering another letter after a reader's answer: a hedge, with the
    statement's options and without."""
    text = said + after.replace("C", "D")
    for options in (choice_options(AMC), {}):
        assert not _match(text, "C", 0, options=options).equivalent, text
        assert not _match(text, "D", 0, options=options).equivalent, text


@pytest.mark.parametrize("after", LETTER_EXPLAINED)
def test_words_about_the_other_options_after_the_answer_leave_it(after: str) -> None:
    text = "So it is $\\boxed{B}$" + after
    assert _match(text, "B", 0).equivalent, text
