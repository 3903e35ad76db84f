"""Languages `run_code` can run: how to find a candidate's code, and how to turn code plus tests into a program
whose report names each test case. Adding a language is one registration here; the tool does not change."""

from __future__ import annotations

import ast
import json
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel

from judgegraph.registry import Registry
from judgegraph.sandboxes import ExecResult

CaseStatus = Literal["passed", "failed", "error", "timeout", "not_run"]


class CaseResult(BaseModel):
    """One test case's outcome."""

    index: int
    source: str
    """The test's source (for a failed assert: the failing expression)."""
    status: CaseStatus
    message: str = ""


@dataclass(frozen=True)
class Program:
    """What to run in the sandbox."""

    files: dict[str, str]
    command: list[str]
    cases: list[str]
    nonce: str


class Language(Protocol):
    name: str
    fence_tags: tuple[str, ...]

    def extract(self, text: str, entry_point: str | None) -> str | None:
        """The candidate's code, or None when it contains none."""
        ...

    def program(self, code: str, tests: list[str], entry_point: str | None, case_timeout_s: float) -> Program:
        """The files and command that run `code` against `tests`."""
        ...

    def report(self, program: Program, result: ExecResult) -> tuple[list[CaseResult], str | None]:
        """Per-case results and the load error (code that would not even load), from the run's output."""
        ...


languages: Registry[Language] = Registry("language")

_FENCE = re.compile(r"```([\w+#-]*)[^\n]*\n(.*?)```", re.DOTALL)


def fenced_blocks(text: str, tags: tuple[str, ...]) -> list[str]:
    """Code blocks tagged with one of `tags` (or untagged)."""
    return [body for tag, body in _FENCE.findall(text) if tag.lower() in tags or tag == ""]


# ---------------------------------------------------------------- Python

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

    def program(self, code: str, tests: list[str], entry_point: str | None, case_timeout_s: float) -> Program:
        setup, cases = _split_tests(tests)
        nonce = "@@judgegraph-" + secrets.token_hex(8) + "@@"
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
        )

    def report(self, program: Program, result: ExecResult) -> tuple[list[CaseResult], str | None]:
        lines = [line for line in result.stdout.splitlines() if line.startswith(program.nonce)]
        payload = None
        if lines:
            try:
                payload = json.loads(lines[-1][len(program.nonce) :])
            except json.JSONDecodeError:
                payload = None
        if payload is None:
            why = (
                "the program was killed (a time limit or a signal)"
                if result.timed_out
                else (
                    "the program ran out of memory"
                    if result.oom_killed
                    else f"the program exited ({result.exit_code}) before reporting: {result.stderr.strip()[-300:]}"
                )
            )
            return [
                CaseResult(index=i, source=c, status="not_run", message=why) for i, c in enumerate(program.cases)
            ], why
        done = payload.get("results", [])
        cases = []
        for i, source in enumerate(program.cases):
            if i < len(done):
                status, message = done[i]
                cases.append(CaseResult(index=i, source=source, status=status, message=message))
            else:
                cases.append(CaseResult(index=i, source=source, status="not_run", message="not reached"))
        return cases, payload.get("load_error")


def _parses(code: str) -> bool:
    if not code.strip():
        return False
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return True


languages.register("python", Python())
