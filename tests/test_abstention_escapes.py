"""No escape from 0 to abstention (#57, item 5): a wrong answer cannot turn its failed examples into "inform
only" by anything it prints or raises, nor by misnaming the function the statement names. An abstention is
allowed only for reasons the response cannot cause, and importing a library is the answer's choice: one this
sandbox lacks fails the examples as any failed run does. Real sandboxes, both backends."""

from __future__ import annotations

import pytest

from judgegraph.evals._attack_matrix import (
    ALIASED_SIGNATURES,
    BROKEN_BUILDS,
    CALLABLE_FORMS,
    GENERIC_SIGNATURES,
    NOT_RUN,
    NUMBER_AS_A_LIBRARY_TYPE,
    REVERSE_PROMPT,
    TWO_SUM_STATEMENT,
    generic_add,
    wrong_add,
)
from judgegraph.schema import JudgeRequest
from judgegraph.tools import ToolServices
from judgegraph.tools.code.calls import CallProgram, calling
from judgegraph.tools.code.candidate_code import foreign_program
from judgegraph.tools.code.language import languages
from judgegraph.tools.code.languages._base import ProgramLanguage
from judgegraph.tools.code.languages._values import natural_types, value_kind
from judgegraph.tools.code.observe import Call
from judgegraph.tools.run_examples import plan_run_examples
from tests._code_evidence import HUMANEVAL, SAMPLES, TWO_SUM, _call, _fenced

HE0 = HUMANEVAL["HumanEval/0"]
TWO_SUM_STARTER = (
    TWO_SUM
    + """
class Solution:
    def twoSum(self, nums: List[int], target: int) -> List[int]:
"""
)
FORGED = "ModuleNotFoundError: No module named 'scipy'"

ESCAPES = {
    "call, prints a missing library": (
        HE0["prompt"],
        f"import sys\nsys.stderr.write({FORGED!r} + '\\n')\nsys.exit(1)\n",
    ),
    "call, raises a missing library": (HE0["prompt"], "raise ModuleNotFoundError(\"No module named 'scipy'\")\n"),
    "call, raises it with its name": (
        HE0["prompt"],
        "e = ModuleNotFoundError(\"No module named 'networkx'\")\ne.name = 'networkx'\nraise e\n",
    ),
    "call, misnames the starter's method": (
        TWO_SUM_STARTER,
        "class Solution:\n    def two_sum(self, nums, target):\n        return [0, 0]\n",
    ),
    "stdin, prints a missing library": (SAMPLES, f"import sys\nprint({FORGED!r}, file=sys.stderr)\nsys.exit(1)\n"),
    "stdin, raises a missing library": (SAMPLES, "raise ModuleNotFoundError(\"No module named 'numba'\")\n"),
}


@pytest.mark.parametrize("name", list(ESCAPES))
async def test_a_wrong_answer_cannot_turn_its_examples_into_an_abstention(services: ToolServices, name: str) -> None:
    prompt, code = ESCAPES[name]
    request = {"prompt": prompt, "candidates": [_fenced(code)], "mode": "pointwise"}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.ok and r.data, r.text
    assert r.data["decisive"] == 2 and r.data["failed"] == 2, r.data["cases"]


@pytest.mark.parametrize("module", ["scipy", "torch", "networkx", "numba"])
async def test_a_wrong_answer_that_imports_a_library_the_sandbox_lacks_fails(
    services: ToolServices, module: str
) -> None:
    """A judge's environment may have the library; this sandbox does not, and the answer chose to import it: its
    examples fail (a wrong answer once abstained so: `import torch` before printing a wrong sum)."""
    code = f"import {module}\nn = int(input())\nprint(n)"
    request = {"prompt": SAMPLES, "candidates": [_fenced(code)], "mode": "pointwise"}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and r.data["decisive"] == r.data["failed"] == 2, r.data


def test_a_check_that_only_supports_adds_no_credit_to_a_failed_response() -> None:
    """A response a conclusive check failed scores what its conclusive checks give it: a statement example it
    passed (which only supports) never lifts it above 0, or a wrong answer would be paid more than a right one,
    whose passing abstains."""
    from judgegraph.graphs._strategies import all_pass
    from judgegraph.schema import CriterionResult, JudgeRequest

    request = JudgeRequest.model_validate({"id": "x", "prompt": "p", "candidates": ["a", "b"], "mode": "pointwise"})
    criteria = [
        CriterionResult(name="oracle", candidate=0, passed=False, score=0.0, source="t"),
        CriterionResult(name="examples", candidate=0, passed=True, score=1.0, source="t", conclusive=False),
        CriterionResult(name="tests", candidate=1, passed=False, score=0.75, source="t"),  # a share of tests
        CriterionResult(name="examples", candidate=1, passed=True, score=1.0, source="t", conclusive=False),
    ]
    verdict = all_pass(request, criteria, {})
    assert verdict is not None and verdict.scores == [0.0, 0.75]


@pytest.mark.parametrize("name", ["returns its argument as it came", "passes one example of two"])
async def test_a_wrong_answer_earns_nothing_from_its_examples(services: ToolServices, name: str) -> None:
    from judgegraph.evals._attack_matrix import PAID_IN_PART

    prompt, code = next(v for k, v in PAID_IN_PART.items() if k.startswith(name))
    request = {"prompt": prompt, "candidates": [_fenced(code)], "mode": "pointwise"}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and r.data["failed"] >= 1 and r.data["decisive"] == 2, r.data
    from judgegraph.graphs._aggregate import evidence_criteria

    (criterion,) = evidence_criteria([r])
    assert criterion.passed is False and criterion.score == 0.0 and criterion.conclusive


@pytest.mark.parametrize("case", range(18), ids=lambda k: f"form {k}")
async def test_a_wrong_answer_in_no_code_or_code_shown_another_way_fails(services: ToolServices, case: int) -> None:
    """No program at all where the statement asks for one, or a wrong program shown in a tilde fence, HTML, an
    indented block or bare: each once ran nothing and abstained (the card's matrix holds them on every path)."""
    from judgegraph.evals._attack_matrix import _unread_forms

    name, response, prompt = _unread_forms()[case]
    request = {"prompt": prompt, "candidates": [response], "mode": "pointwise"}
    assert plan_run_examples(JudgeRequest.model_validate(request)), name  # planned with no code among them
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and r.data["decisive"] == 2 and r.data["failed"] >= 1, (name, r.data)
    assert r.data["found_code"] is not name.startswith("no code"), name


@pytest.mark.parametrize("name", sorted(CALLABLE_FORMS))
async def test_a_wrong_answer_is_called_in_the_form_it_defines_its_function(services: ToolServices, name: str) -> None:
    """A statement with no starter: the judge calls the one function the answer defines, however it defines it (a
    lambda, a static method, one that forgot `self`, keyword-only parameters, a JavaScript arrow, a C++ function
    after its includes, a Java method in a class of another name or static). Each once could not be called, so
    its examples informed nothing and the wrong answer abstained."""
    language, code = CALLABLE_FORMS[name]
    fence = {"javascript": "js"}.get(language, language)
    request = {"prompt": TWO_SUM_STATEMENT, "candidates": [f"```{fence}\n{code}\n```"], "mode": "pointwise"}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and r.data["decisive"] == 2 and r.data["failed"] >= 1, (name, r.text)


@pytest.mark.parametrize(
    "response",
    ["```python\ndef has_close_elements(numbers, threshold):\n    return any(\n```", "~~~\n$$$ not a program $$$\n~~~"],
)
async def test_code_shown_but_not_read_is_not_judged(services: ToolServices, response: str) -> None:
    """A response that shows code the judge cannot make a program of is not failed for having none: that reading
    is the judge's limit, not the response's doing (it is run when it is read: a syntax error fails)."""
    from judgegraph.evals._attack_matrix import ESCAPES_PROMPT

    request = {"prompt": ESCAPES_PROMPT, "candidates": [response], "mode": "pointwise"}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data is not None
    assert r.data["found_code"] or r.data["decisive"] == 0, r.data


def test_a_request_that_asks_for_no_program_plans_no_examples_without_code() -> None:
    math = {"prompt": "Compute 6 * 7.\n\nExample 1:\nInput: 2\nOutput: 4", "candidates": ["42"], "mode": "pointwise"}
    assert plan_run_examples(JudgeRequest.model_validate(math)) == []


@pytest.mark.parametrize("language", sorted(NOT_RUN))
@pytest.mark.parametrize("starter", [True, False], ids=["starter", "no starter"])
async def test_a_program_in_a_language_the_judge_does_not_run_fails_where_none_was_asked_for(
    services: ToolServices, language: str, starter: bool
) -> None:
    """The language is the response's choice: a wrong program in one the judge does not run once abstained (its
    examples not run), an escape from 0 open to every answer. Where the prompt asks for that language, the
    judge's limit leaves it undecided instead."""
    prompt = REVERSE_PROMPT if starter else REVERSE_PROMPT[: REVERSE_PROMPT.index("class Solution")]
    response = f"```{language}\n{NOT_RUN[language]}\n```"
    request = {"prompt": prompt, "candidates": [response], "mode": "pointwise"}
    assert plan_run_examples(JudgeRequest.model_validate(request))
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and r.data["decisive"] == 2 and r.data["failed"] == 2, r.text
    assert "does not run" in r.text
    if not starter:  # (a Python starter asks for a program the judge reads: one it cannot find fails as before)
        asked = {**request, "prompt": f"Answer in {language}.\n\n{prompt}"}
        r = await _call(services, asked, "run_examples", candidate=0)
        assert r.data is not None and r.data["decisive"] == 0, r.text


def test_a_program_the_judge_runs_beside_a_block_it_does_not_is_no_foreign_program() -> None:
    prompt = REVERSE_PROMPT
    request = JudgeRequest.model_validate({"prompt": prompt, "candidates": ["x"], "mode": "pointwise"})
    run = "Run it:\n```bash\npython3 solution.py\n```"
    for shown in ("```python\nprint(1)\n```", "```\nprint(1)\n```"):  # tagged, or untagged: maybe unread
        assert foreign_program(request, f"{shown}\n{run}") is None
    assert foreign_program(request, run) == "shell"
    assert foreign_program(request.model_copy(update={"language": "python"}), run) is None


@pytest.mark.parametrize("name", sorted(BROKEN_BUILDS))
async def test_a_wrong_answer_cannot_abstain_by_breaking_its_build(services: ToolServices, name: str) -> None:
    """A build that fails naming no line of the answer's (the compiler out of memory, an include of itself), or
    that the answer reaches past its own lines (a pragma, the standard library's namespace, a crate attribute),
    is the answer's doing: its examples fail. Each once informed only, and the wrong answer abstained."""
    prompt, response = wrong_add(*BROKEN_BUILDS[name])
    request = {"prompt": prompt, "candidates": [response], "mode": "pointwise"}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and r.data["decisive"] == 2 and r.data["failed"] == 2, (name, r.text)


@pytest.mark.parametrize(
    "name", [f"alias: {n}" for n in sorted(ALIASED_SIGNATURES)] + [f"library: {n}" for n in NUMBER_AS_A_LIBRARY_TYPE]
)
async def test_a_signature_in_aliases_is_called_as_its_types(services: ToolServices, name: str) -> None:
    """`ll addTwo(ll a, ll b)` with `typedef long long ll;` (or `#define ll long long`, `using`, Rust's and Go's
    aliases, and `long long` itself) is called as the types the aliases name, and a number the statement gives
    is written as a number whatever library type takes it (a pair, an Option, a pointer do not): the wrong
    answer fails."""
    kind, _, key = name.partition(": ")
    prompt, response = wrong_add(*(ALIASED_SIGNATURES if kind == "alias" else NUMBER_AS_A_LIBRARY_TYPE)[key])
    request = {"prompt": prompt, "candidates": [response], "mode": "pointwise"}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and r.data["decisive"] == 2 and r.data["failed"] == 2, (name, r.text)


@pytest.mark.parametrize("name", sorted(GENERIC_SIGNATURES))
@pytest.mark.parametrize("operator", ["-", "+"])
async def test_a_generic_signature_is_called_with_the_statements_values(
    services: ToolServices, name: str, operator: str
) -> None:
    """A generic, templated or `Object` parameter, a class of the answer's, a Go defined type, a rest parameter:
    called with the statement's values as the language writes them, the wrong answer (`-`) fails and the right
    one (`+`) passes. Each wrong one once abstained: the judge wrote no call for its types."""
    prompt, response = generic_add(name, operator)
    request = {"prompt": prompt, "candidates": [response], "mode": "pointwise"}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and r.data["decisive"] == 2, (name, r.text)
    assert r.data["failed"] == (2 if operator == "-" else 0), (name, r.text)


def test_values_are_written_in_the_type_the_statement_gives_them_where_the_answer_names_none() -> None:
    assert [value_kind(v) for v in (True, 7, 2**40, 2.5, "x", [1, 2**40], [[1], []], [], [1, "a"], None)] == [
        "bool",
        "int",
        "long",
        "real",
        "string",
        "list<long>",
        "list<list<int>>",
        "list<?>",
        "list<!>",
        None,
    ]
    cpp = languages.get("cpp")
    assert isinstance(cpp, ProgramLanguage)
    runner = cpp.natural_runner("template <class T> T f(T a, const std::vector<T>& v) { return a; }", "f", [(1, [2.5])])
    assert runner is not None and "int a0 = 1; std::vector<double> a1 = {2.5};" in runner
    assert cpp.call_runner("int f(int a) { return a; }", "f", [(1,)]) is not None
    assert cpp.natural_runner("int f(int a) { return a; }", "f", [(1,)]) is None  # nothing to write otherwise
    assert natural_types(["T"], [([],)], lambda t, v: None, lambda k: "x", lambda t: True) is None  # no type
    library = ("#include <set>\nint f(std::set<int> s) { return 0; }", "int f(pair<int, int> p) { return 0; }")
    assert all(cpp.natural_runner(code, "f", [([1, 2],)]) is None for code in library)  # a library's: the limit
    tree = "struct TreeNode { int val; TreeNode *left, *right; };\nint maxDepth(TreeNode* root) { return 0; }"
    assert cpp.natural_runner(tree, "maxDepth", [([3, 9, 20],)]) is None  # LeetCode's nodes: the judge's limit


def _runner(language: str, code: str) -> CallProgram:
    caller = calling(languages.get(language))
    return caller.calls_program(code, [Call("addTwo", (2, 3), {})], 3.0, None, 2)


def test_whose_fault_a_failed_build_is() -> None:
    """The runner's only where the compiler names lines and all of them are the runner's, or where it could not
    be started; a failure naming no line is the answer's (the runner alone builds)."""
    made = _runner("go", "func addTwo(a int, b int) int {\n\treturn a - b\n}")
    assert made.answer_lines is not None
    inside, outside = made.answer_lines.start, made.answer_lines.stop + 3
    failed = "the build failed (exited with status 1): "
    assert made.answers_fault(f"{failed}main.go:{inside}:2: undefined: x")  # on the first line, after the driver's
    assert not made.answers_fault(f"{failed}main.go:{outside}:9: cannot use a0 (variable of type int)")
    assert made.answers_fault(f"{failed}runtime: out of memory")
    assert made.answers_fault("the build failed (killed by signal 9): ")
    assert not made.answers_fault("the build failed (exited with status 127): cannot start go: [Errno 2] No such")


@pytest.mark.parametrize(
    ("language", "code", "reaches"),
    [
        ("c", "#include <stdio.h>\n#include <bits/stdc++.h>\nint addTwo(int a, int b) { return a + b; }", False),
        ("c", '#include "main.c"\nint addTwo(int a, int b) { return a + b; }', True),
        ("c", "int addTwo(int a, int b) { return a + b; }\n#pragma GCC poison printf", True),
        ("cpp", "namespace std { }\nint addTwo(int a, int b) { return a + b; }", True),
        ("cpp", "int addTwo(int a, int b) { return a + b; }  // #pragma once", False),
        ("rust", "#![allow(dead_code)]\nfn addTwo(a: i32, b: i32) -> i32 { a + b }", True),
        ("rust", "#[inline]\nfn addTwo(a: i32, b: i32) -> i32 { a + b }", False),
        ("go", "func addTwo(a int, b int) int {\n\treturn a + b\n}", False),
    ],
)
def test_what_reaches_the_runners_lines(language: str, code: str, reaches: bool) -> None:
    assert _runner(language, code).answer_reaches_runner is reaches


def test_an_alias_is_written_out_where_it_is_used_only() -> None:
    c = languages.get("c")
    assert isinstance(c, ProgramLanguage)
    code = "typedef long long ll;\n#define I int\nll addTwo(ll a, I b) { return a + b; } // ll"
    assert (
        c.unaliased(code)
        == "typedef long long ll;\n#define I int\nlong long addTwo(long long a, int b) { return a + b; } // long long"
    )
    rust = languages.get("rust")
    assert isinstance(rust, ProgramLanguage)
    associated = "impl std::ops::Add for P {\n    type Output = P;\n    fn add(self, o: P) -> Self::Output { o }\n}"
    assert rust.unaliased(associated) == associated  # an associated type is no alias
