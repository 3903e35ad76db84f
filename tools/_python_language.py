"""Python: tests run in a harness process, the candidate's code in another (`_python_harness.py`); stdin/stdout
cases through the driver like every other language."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from judgegraph.sandboxes import Limits
from judgegraph.schema import IOTest
from judgegraph.tools._languages import Program, Step, Test, driver_program, fenced_blocks, languages, new_nonce

_HERE = Path(__file__).parent
_CODEC = (_HERE / "_python_codec.py").read_text()
_HARNESS = _CODEC + (_HERE / "_python_harness.py").read_text()
"""The tests' side (`harness.py`): it reads the tests and the report marker from a file it deletes."""
_CANDIDATE = _CODEC + (_HERE / "_python_candidate.py").read_text()
"""The candidate's side (`candidate_server.py`): a separate process that loads the code and answers calls."""


def _split_tests(tests: list[str]) -> tuple[str, list[str]]:
    """Setup code and one source string per test case.

    Top-level `assert`s are cases; a HumanEval-style `def check(candidate)` contributes each assert in its
    body as a case (with `candidate` bound to the entry point); a top-level `check(...)` call is dropped
    because the harness runs the cases itself; anything else is setup.
    """
    setup: list[str] = []
    cases: list[str] = []
    for text in tests:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            cases.append(text)  # runs and reports its own SyntaxError as that case's error
            continue
        for node in tree.body:
            src = ast.get_source_segment(text, node) or ast.unparse(node)
            if isinstance(node, ast.Assert):
                cases.append(src)
            elif isinstance(node, ast.FunctionDef) and node.name == "check":
                body_setup = [
                    n
                    for n in node.body
                    if not isinstance(n, ast.Assert | ast.Expr)
                    or (isinstance(n, ast.Expr) and not isinstance(n.value, ast.Constant))
                ]
                if body_setup:  # loops or helpers inside check(): keep it whole as one case
                    setup.append(src)
                    cases.append("check(candidate)")
                else:
                    cases.extend(
                        ast.get_source_segment(text, n) or ast.unparse(n)
                        for n in node.body
                        if isinstance(n, ast.Assert)
                    )
            elif (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", "") == "check"
            ):
                continue
            else:
                setup.append(src)
    return "\n".join(setup), cases


PYTHON_LIMITS = Limits(wall_s=20.0, cpu_s=20)
PYTHON_ENV = {"PYTHONDONTWRITEBYTECODE": "1"}


class Python:
    name = "python"
    fence_tags: tuple[str, ...] = ("python", "py", "python3")

    def extract(self, text: str, entry_point: str | None) -> str | None:
        blocks = fenced_blocks(text, self.fence_tags)
        if blocks:
            if entry_point:
                defining = [b for b in blocks if re.search(rf"def\s+{re.escape(entry_point)}\s*\(", b)]
                if defining:
                    return defining[-1]
            return max(blocks, key=len)
        if _parses(text):
            return text
        lines = text.splitlines()
        starts = [i for i, line in enumerate(lines) if re.match(r"(def |class |import |from \w+ import )", line)]
        for start in starts:  # prose around bare code: the longest parsable stretch from a code-like line
            for end in range(len(lines), start, -1):
                chunk = "\n".join(lines[start:end])
                if _parses(chunk):
                    return chunk
        return None

    def program(self, code: str, tests: list[Test], entry_point: str | None, case_timeout_s: float) -> Program:
        if any(isinstance(t, IOTest) for t in tests):  # stdin/stdout cases (test code, if any, runs as a script)
            run = ["python3", "-I", "main.py"]
            steps = [Step({"main.py": code}, None, run)]
            steps += [Step({"main.py": code + "\n\n" + t}, None, run) for t in tests if isinstance(t, str)]
            return driver_program(
                steps,
                tests,
                env=PYTHON_ENV,
                case_timeout_s=case_timeout_s,
                limits=PYTHON_LIMITS,
                run_memory_mb=PYTHON_LIMITS.memory_mb,
            )
        setup, cases = _split_tests([t for t in tests if isinstance(t, str)])
        nonce = new_nonce()
        spec = {"nonce": nonce, "cases": cases, "setup": setup, "entry": entry_point, "case_timeout": case_timeout_s}
        return Program(
            files={
                "solution.py": code,
                "harness.py": _HARNESS,
                "candidate_server.py": _CANDIDATE,
                ".judgegraph-tests.json": json.dumps(spec),
            },
            command=["python3", "-I", "harness.py"],
            cases=cases,
            nonce=nonce,
            limits=PYTHON_LIMITS,
        )


def _parses(code: str) -> bool:
    if not code.strip():
        return False
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return True


languages.register("python", Python())
