"""The statement read as real sources write it (HumanEval docstrings, LeetCode examples, contest samples): its
examples, what informs and never decides, how outputs compare, the inputs varied from it; and responses read as
models write them."""

from __future__ import annotations

import pytest

from judgegraph.tools import extract_final_answer, languages
from judgegraph.tools.code.examples import example_outcome
from judgegraph.tools.code.inputs import call_inputs, from_signature, stdin_inputs
from judgegraph.tools.code.literals import UNREADABLE
from judgegraph.tools.code.observe import Observed
from judgegraph.tools.code.outcomes import compare_outputs, compare_values
from judgegraph.tools.code.statement import read_statement, statement_tolerance
from tests._code_evidence import CONTEST, HUMANEVAL, LEETCODE, SAMPLES

# ---------------------------------------------------------------- reading statements


def test_humaneval_doctests_are_call_examples() -> None:
    statement = read_statement(HUMANEVAL["HumanEval/0"]["prompt"])
    assert statement.style == "call"
    assert [(e.function, e.args, e.expected, e.decisive) for e in statement.examples] == [
        ("has_close_elements", ([1.0, 2.0, 3.0], 0.5), False, True),
        ("has_close_elements", ([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3), True, True),
    ]


def test_arrow_and_assert_examples() -> None:
    prompt = (
        "def f(x):\n    '''Square it.\n    f(3) ➞ 9\n    f(-2) == 4\n    f(1) should return 1\n    '''\n"
        "Your code should pass these tests:\nassert f(5) == 25\n"
    )
    got = [(e.function, e.args, e.expected) for e in read_statement(prompt).examples]
    assert got == [("f", (3,), 9), ("f", (-2,), 4), ("f", (1,), 1), ("f", (5,), 25)]


def test_leetcode_examples_with_markdown_and_json_values() -> None:
    statement = read_statement(LEETCODE)
    assert statement.style == "call" and statement.method == "moveZeroes"
    assert [(e.args, e.expected) for e in statement.examples] == [
        (([0, 1, 0, 3, 12],), [1, 3, 12, 0, 0]),
        (([0],), [0]),
    ]
    bools = read_statement('Example 1:\nInput: s = "abc", k = 2\nOutput: true\nExplanation: fine.\n')
    assert [(e.args, e.expected) for e in bools.examples] == [(("abc", 2), True)]


def test_contest_samples_in_both_layouts() -> None:
    cf = read_statement(CONTEST)
    assert cf.style == "stdin"
    assert [(e.stdin, e.expected_text) for e in cf.examples] == [("3\n1 5 2\n", "7"), ("4\n4 4 1 2\n", "8")]
    atcoder = read_statement(SAMPLES)
    assert [(e.stdin, e.expected_text) for e in atcoder.examples] == [("3\n1 2 3\n", "6"), ("2\n10 -4\n", "6")]


def test_contest_samples_as_datasets_and_sites_write_them() -> None:
    """APPS and TACO rule their headings (`-----Examples-----`, the format's `-----Input-----` before it);
    Codeforces pasted from its site labels each box `inputCopy` / `outputCopy`."""
    apps = (
        "Print the sum.\n\n-----Input-----\n\nThe first line contains n.\n\n-----Output-----\n\nPrint one integer.\n\n"
        "-----Examples-----\nInput\n3\n1 2 3\n\nOutput\n6\n\nInput\n1\n-5\n\nOutput\n-5\n-----Note-----\n\nEasy."
    )
    pasted = (
        "Print the sum.\n\nExamples\ninputCopy\n3\n1 2 3\noutputCopy\n6\ninputCopy\n1\n-5\noutputCopy\n-5\nNote\nEasy."
    )
    for prompt in (apps, pasted):
        statement = read_statement(prompt)
        assert statement.style == "stdin"
        assert [(e.stdin, e.expected_text) for e in statement.examples] == [("3\n1 2 3\n", "6"), ("1\n-5\n", "-5")]


def test_what_informs_and_never_decides() -> None:
    any_of_them = read_statement(LEETCODE + "\nIf there are several answers, return any of them.")
    assert any_of_them.examples and not any(e.decisive for e in any_of_them.examples)
    the_last = read_statement(LEETCODE + "\nIf there are multiple answers, return the answer that occurs last.")
    assert all(e.decisive for e in the_last.examples)  # the statement picks one: still a single answer
    nothing = read_statement(LEETCODE + "\nYou do not need to return anything.")
    assert all(e.decisive for e in nothing.examples)  # "return anything" is not "return any"
    prose = read_statement(">>> describe(3)\nIt returns a description of the number three.\n")
    assert prose.examples[0].expected is UNREADABLE and not prose.examples[0].decisive
    checker = read_statement("A checker accepts any optimal answer.\n" + SAMPLES)
    assert checker.examples and not any(e.decisive for e in checker.examples)
    board = read_statement("Paint an n by n checkerboard.\n" + SAMPLES)  # a word, not a special judge
    assert all(e.decisive for e in board.examples)
    interactive = read_statement("This is an interactive problem.\n" + SAMPLES)
    assert interactive.examples == []
    tolerance = read_statement("Your answer is accepted if its absolute or relative error is at most 10^{-6}.\n")
    assert tolerance.tolerance == pytest.approx(1e-6)
    for said, value in [
        ("Print the answer with an error of at most 10^-6.", 1e-6),
        ("Absolute error of up to 10⁻⁹ is allowed.", 1e-9),
        ("Your answer must be accurate to within 1e-4.", 1e-4),
        ("If there is an error, print -1. Each value is at most 10^{-3} apart.", None),
    ]:
        assert statement_tolerance(said) == (pytest.approx(value) if value else None), said


def test_order_counts_only_where_the_statement_says_it_does() -> None:
    said = read_statement(LEETCODE + "\nYou may return the answer in any order.")
    assert [e.order for e in said.examples] == ["free", "free"] and all(e.decisive for e in said.examples)
    kept = read_statement(LEETCODE)  # "maintaining the relative order"
    assert [e.order for e in kept.examples] == ["kept", "kept"]
    unsaid = read_statement(LEETCODE.replace("while maintaining the relative order of the\n", "and the\n"))
    # a LeetCode list answer whose order the statement does not fix: the site's checker may ignore it
    assert [e.order for e in unsaid.examples] == ["unstated", "unstated"]
    example = unsaid.examples[0]
    # the expected list arranges the argument's items: the order is the task, so an order alone fails
    assert example_outcome(example, Observed("ok", value=[3, 1, 12, 0, 0]), None)[0] == "failed"
    assert example_outcome(example, Observed("ok", value=[0, 1, 0, 3, 12]), None)[0] == "failed"  # as it came
    assert example_outcome(example, Observed("ok", value=[1, 3, 12, 0, 1]), None)[0] == "failed"
    duplicates = read_statement(
        "Given an integer array nums, return all the integers that appear twice.\n\nExample 1:\n"
        "Input: nums = [4,3,2,7,8,2,3,1]\nOutput: [2,3]\n\nclass Solution:\n"
        "    def findDuplicates(self, nums: List[int]) -> List[int]:\n"
    ).examples[0]
    assert duplicates.order == "unstated"  # items found, not arranged: the site's checker may ignore the order
    assert example_outcome(duplicates, Observed("ok", value=[3, 2]), None)[0] == "unsure"
    assert example_outcome(duplicates, Observed("ok", value=[2, 4]), None)[0] == "failed"
    free = said.examples[0]
    assert example_outcome(free, Observed("ok", value=[0, 0, 12, 3, 1]), None)[0] == "passed"
    assert example_outcome(free, Observed("ok", value=[0, 12, 3, 1]), None)[0] == "failed"
    scalar = read_statement(
        "Tasks can be done in any order. Return the least number of intervals.\n\n"
        "Input: tasks = [1,1,2], n = 2\nOutput: 4\n"
    )
    assert scalar.examples[0].order == "kept" and scalar.examples[0].decisive  # a number has no order
    nested = read_statement(
        "Notice that the order of the output and the order of the triplets does not matter.\n"
        "Input: nums = [-1,0,1,2,-1,-4]\nOutput: [[-1,-1,2],[-1,0,1]]\n"
    )
    got = Observed("ok", value=[[0, 1, -1], [-1, 2, -1]])
    assert example_outcome(nested.examples[0], got, None)[0] == "passed"


def test_leetcode_values_over_lines_and_names_the_method_does_not_take() -> None:
    grid = read_statement(
        'Count the islands.\n\n```\nInput: grid = [\n  ["1","1","0"],\n  ["0","0","1"]\n]\nOutput: 2\n```\n'
    )
    assert grid.examples[0].args == ([["1", "1", "0"], ["0", "0", "1"]],) and grid.examples[0].expected == 2
    drawn = read_statement(
        "Input: n = 5 and edges = [[0, 1], [1, 2], [3, 4]]\n\n     0     3\n     |     |\n     1-2   4\n\nOutput: 2\n"
    )
    assert drawn.examples[0].args == (5, [[0, 1], [1, 2], [3, 4]]) and drawn.examples[0].decisive
    design = read_statement(
        'Design a codec.\n\nInput: dummy_input = ["Hello","World"]\nOutput: "Hello,World"\n\n'
        "```python\nclass Solution:\n    def encode(self, strs: List[str]) -> str:\n```\n"
    )
    assert design.examples and not design.examples[0].decisive and "strs" in design.examples[0].note


def test_comparing_as_judges_do() -> None:
    assert compare_values([0, 1], (0, 1)) == "passed"  # a tuple is the list the statement's JSON shows
    assert compare_values(True, 1) == "failed"  # `true` is not `1`
    assert compare_values(2.5, 2.5000000001) == "passed"
    assert compare_values(0.33, 0.4) == "failed"
    assert compare_outputs("6\n", "6   \n\n") == "passed"
    assert compare_outputs("6", "7") == "failed"
    assert compare_outputs("0.5", "0.50000") == "passed"  # within the precision the statement prints
    assert compare_outputs("YES", "NO") == "failed"
    # A real printed where the sample shows an integer (DOMjudge's fltcmp sample: `0` for 1/inf): right where
    # the judge compares reals, wrong where it compares tokens; the statement does not say which
    assert compare_outputs("inf\n0\nNaN", "inf\n0.0000000\nnan") == "unsure"
    assert compare_outputs("2", "2.5") == "failed" and compare_outputs("5 6", "5.0 7") == "failed"


def test_generated_inputs_are_bounded_and_keep_the_samples_shape() -> None:
    inputs = call_inputs([([1, 2, -4, 5],)], "seed")
    assert 5 <= len(inputs) <= 40 and all(isinstance(a[0], list) for a in inputs)
    assert call_inputs([([1, 2, -4, 5],)], "seed") == inputs  # deterministic per statement
    typed = from_signature("def f(xs: List[int], k: int) -> int: ...", "f")
    assert typed and all(isinstance(a[0], list) and isinstance(a[1], int) for a in typed)
    varied = stdin_inputs(["3\n1 5 2\n"], "seed")
    for text in varied:
        lines = text.split("\n")
        assert int(lines[0]) == len(lines[1].split())  # a count always counts its list
    assert {len(t.split("\n")[1].split()) for t in varied} == {1, 2, 3, 4}  # values varied, and the size


# ---------------------------------------------------------------- reading responses as models write them


def test_final_answer_in_markdown() -> None:
    assert extract_final_answer("So we get this.\n\n**Final answer:** $\\dfrac{3}{4}$") == "$\\dfrac{3}{4}$"
    assert extract_final_answer("*Answer*: 7") == "7"
    assert extract_final_answer("Final Answer: **12**") == "12"


def test_unfenced_code_followed_by_prose_lines() -> None:
    text = (
        "Here is the function:\n\ndef add(a, b):\n    return a + b\nExamples\nprint(add(1, 2))  # 3\n"
        "Explanation: the function adds its two arguments and returns the sum.\n"
    )
    code = languages.get("python").extract(text, "add")
    assert code is not None and "Examples" not in code and "Explanation" not in code and "def add" in code
    annotated = "import math\ndef f(x):\n    return math.sqrt(x)\nComplexity: O(1)\nThis is fast."
    assert languages.get("python").extract(annotated, "f") == "import math\ndef f(x):\n    return math.sqrt(x)"


def test_an_unnamed_example_calls_the_method_that_takes_its_arguments() -> None:
    """A LeetCode statement without its starter names no method: the example calls the candidate's method that
    takes its arguments (by name, else by count), not a helper the others call; where that leaves a choice, no
    method (the example is not run on a guess that could rule a right answer wrong)."""
    from judgegraph.tools.code.languages.python import call_target

    statement = read_statement("Return how many pairs.\n\nExample 1:\n\nInput: nums = [1,2,3], k = 2\nOutput: 2\n")
    example = statement.examples[0]
    helpers_first = (
        "class Solution:\n    def dfs(self, i):\n        return i\n    def helper(self, a, b):\n        return 0\n"
        "    def countPairs(self, nums, k):\n        return self.dfs(len(nums)) + self.helper(1, 2)\n"
    )
    assert call_target(statement, example, helpers_first, None) == "Solution.countPairs"
    renamed = (
        "class Solution:\n    def solve(self, arr, t):\n        return self.go(arr, t)\n"
        "    def go(self, arr, t):\n        return self.go(arr[1:], t) if arr else 0\n"
    )
    assert call_target(statement, example, renamed, None) == "Solution.solve"  # `go` is solve's helper
    functions = "def helper(x):\n    return x\n\ndef count_pairs(nums, k):\n    return helper(k)\n"
    assert call_target(statement, example, functions, "helper") == "count_pairs"
    two = "class Solution:\n    def a(self, nums, k):\n        return 1\n    def b(self, nums, k):\n        return 2\n"
    assert call_target(statement, example, two, None) is None


def test_leetcode_nodes_written_as_lists_inform_only() -> None:
    """`root = [4,2,7]` is LeetCode's serialization of a tree, built by its harness; called with the list, a right
    answer fails, so such examples never decide."""
    tree = read_statement(
        "Invert the tree.\n\nExample 1:\n\nInput: root = [4,2,7]\nOutput: [4,7,2]\n\n```python\nclass Solution:\n"
        "    def invertTree(self, root: Optional[TreeNode]) -> Optional[TreeNode]:\n```"
    )
    assert tree.examples and not any(e.decisive for e in tree.examples) and "tree" in tree.examples[0].note


def test_any_letter_case_where_the_statement_accepts_it() -> None:
    """Codeforces: "You can output the answer in any case": `Yes` for a sample's `YES` is right there, and wrong
    where the statement says nothing (AtCoder's checkers compare exactly)."""
    problem = "Print YES if n is even, else NO.\n\nSample Input 1\n\n4\n\nSample Output 1\n\nYES\n"
    said = read_statement(problem + "\nYou can output the answer in any case (upper or lower).\n")
    silent = read_statement(problem)
    assert said.any_case and not silent.any_case
    yes = Observed("ok", output="Yes\n", printed=True)
    assert example_outcome(said.examples[0], yes, None, said.any_case)[0] == "passed"
    assert example_outcome(silent.examples[0], yes, None, silent.any_case)[0] == "failed"
    assert compare_outputs("YES", "yes", any_case=True) == "passed" and compare_outputs("YES", "yes") == "failed"
    assert yes.key(any_case=True) == Observed("ok", output="YES", printed=True).key(any_case=True)


def test_a_derived_output_is_compared_as_the_statement_compares() -> None:
    """The oracle's output against a candidate's: reals within the stated tolerance, no certainty without one,
    and a candidate that fails to run on a generated input is not ruled by it (the input may be invalid)."""
    from judgegraph.tools.oracle_check import agrees_with

    tolerant = read_statement("Print the mean. Answers within an absolute or relative error of 10^-6 are accepted.")
    plain = read_statement("Print the mean.")
    third = Observed("ok", output="0.3333333333\n", printed=True)
    assert agrees_with(third, Observed("ok", output="0.333333\n", printed=True), tolerant) is True
    assert agrees_with(third, Observed("ok", output="0.34\n", printed=True), tolerant) is False
    assert agrees_with(third, Observed("ok", output="0.333333\n", printed=True), plain) is None
    assert agrees_with(third, Observed("error", message="IndexError"), tolerant) is None
    assert agrees_with(Observed("ok", value=[1, 2]), Observed("ok", value=(1, 2)), plain) is True


def test_a_design_problems_call_sequence_is_no_example_of_one_call() -> None:
    design = read_statement(
        'Design a stack.\n\nExample 1:\n\nInput: ["MinStack","push","getMin"]\n[[],[1],[]]\nOutput: [null,null,1]\n'
    )
    assert design.examples == []  # the calls run on one object in turn, which one call cannot show
    words = read_statement('Input: ["Hello","Alaska"]\nOutput: ["Alaska"]\n')
    assert words.examples[0].args == (["Hello", "Alaska"],)  # a list of words is still a value


def test_a_statement_without_its_starter_is_still_read_as_leetcode_reads_it() -> None:
    """The bare question (no `class Solution` starter): a list answer whose order the statement leaves unsaid
    still informs on an order-only difference, and a design problem's example (which method?) informs."""
    bare = read_statement("Return all triplets that sum to zero.\n\nInput: nums = [-1,0,1]\nOutput: [[-1,0,1]]\n")
    assert [e.order for e in bare.examples] == ["unstated"]
    design = read_statement(
        'Design an algorithm to encode a list of strings to a string.\n\nInput: dummy_input = ["Hello","World"]\n'
        'Output: "Hello,World"\n'
    )
    assert design.examples and not design.examples[0].decisive and "design" in design.examples[0].note
