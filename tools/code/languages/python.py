"""Python: tests run in a harness process, the candidate's code in another (`in_sandbox/python_harness.py`);
stdin/stdout cases through the driver like every other language; a statement's function called through the
harness, found in the answer by its syntax tree (a function, a method of its class, or, for an unnamed example,
the one function that takes its arguments)."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence

from judgegraph.sandboxes import Limits
from judgegraph.schema import IOTest
from judgegraph.tools.code.calls import CallProgram, NotCallable
from judgegraph.tools.code.language import (
    Program,
    Step,
    Test,
    driver_program,
    fenced_blocks,
    indented_blocks,
    languages,
    new_nonce,
    sandbox_source,
)
from judgegraph.tools.code.observe import Call, Observed, observed_status
from judgegraph.tools.code.statement import Example, Statement
from judgegraph.tools.in_sandbox.python_codec import decode, encode

_CODEC = sandbox_source("python_codec.py")
_HARNESS = _CODEC + sandbox_source("python_harness.py")
"""The tests' side (`harness.py`): it reads the tests and the report marker from a file it deletes."""
_CANDIDATE = _CODEC + sandbox_source("python_candidate.py")
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
            return _chosen(blocks, entry_point)
        if _parses(text):
            return _without_prose(text) or None
        bare = _unfenced(text, entry_point)
        # an indented block that starts code of its own (not a completion's body, which the prompt's code opens)
        indented = [b for b in indented_blocks(text) if _CODE_START.match(b)] if bare is None else []
        return _chosen(indented, entry_point) if indented else bare

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
        spec = {"cases": cases, "setup": setup, "entry": entry_point, "case_timeout": case_timeout_s}
        return _harness_program(code, spec, cases, PYTHON_LIMITS)

    # -------------------------------------------------------- calling a function (`calls.CallingLanguage`)

    def example_target(self, code: str, entry: str | None, statement: Statement, example: Example) -> str | None:
        return call_target(statement, example, code, entry)

    def shared_target(
        self, code: str, entry: str | None, statement: Statement, function: str | None, arity: int
    ) -> str:
        """The first example's target, else the function of that name (or a method of it), else the entry; the
        syntax tree shows every function, so an answer with none to call is wrong."""
        targets = (call_target(statement, e, code, entry) for e in statement.examples)
        found = next((t for t in targets if t is not None), None)
        found = found or ((resolve(function, code) or function) if function else entry)
        if found is None:
            raise NotCallable("no function to call", answers_fault=True)
        return found

    def calls_program(
        self, code: str, calls: Sequence[Call], case_timeout_s: float, statement: Statement | None, stop_after: int
    ) -> CallProgram:
        """The harness run that makes the calls instead of running tests: each result's message is the JSON of
        [value, arguments after the call]. The statement's judge's environment (`prelude_for`) runs before the
        code, in its namespace."""
        encoded: list[dict[str, object]] = [
            {"function": c.function, "args": encode(list(c.args)), "kwargs": encode(dict(c.kwargs))} for c in calls
        ]
        wall = min(60.0, 5.0 + case_timeout_s * len(calls))
        functions, methods = _defined(code)
        spec = {
            "cases": [],
            "calls": encoded,
            "setup": "",
            "entry": None,
            "case_timeout": case_timeout_s,
            "stop_after_timeouts": stop_after,
            "declared": sorted(functions | set(methods.values())),  # a call one of these lacks is the code's doing
        }
        limits = PYTHON_LIMITS.model_copy(update={"wall_s": wall, "cpu_s": int(wall) + 1, "output_bytes": 4_000_000})
        prelude = prelude_for(statement) if statement is not None else None
        return CallProgram(_harness_program(code, spec, [c.function for c in calls], limits, prelude))

    def call_observed(self, status: str, message: str) -> Observed:
        if status == "error" and message.startswith("the code defines no"):  # only the example names it
            return Observed("error", message=message, informs=True)
        if status != "passed":
            return Observed(observed_status(status), message=message)
        try:
            value, after = decode(json.loads(message))
        except (ValueError, TypeError, RecursionError):
            return Observed("error", message="the value could not be read back")
        return Observed("ok", value=value, after=after)


LEETCODE_PRELUDE = (
    "from string import *\nfrom re import *\nfrom datetime import *\nfrom collections import *\n"
    "from heapq import *\nfrom bisect import *\nfrom copy import *\nfrom math import *\nfrom random import *\n"
    "from statistics import *\nfrom itertools import *\nfrom functools import *\nfrom operator import *\n"
    "from io import *\nfrom sys import *\nfrom json import *\nfrom builtins import *\nfrom typing import *\n"
    "import string\nimport re\nimport datetime\nimport collections\nimport heapq\nimport bisect\nimport copy\n"
    "import math\nimport random\nimport statistics\nimport itertools\nimport functools\nimport operator\n"
    "import io\nimport sys\nimport json\nsys.setrecursionlimit(50000)\n"
)
"""What a LeetCode-style solution finds defined without importing it (`List`, `Counter`, `heapq`, `inf`...):
the names LiveCodeBench's grader defines before a candidate's code, as LeetCode's own environment does.
Models write `class Solution` answers that rely on them; without them a right answer fails to load."""


def prelude_for(statement: Statement) -> str | None:
    """What runs before a candidate's code called as the statement's examples are: LeetCode's environment for a
    LeetCode-style statement, nothing otherwise (a doctest's function gets what a plain module has)."""
    return LEETCODE_PRELUDE if statement.leetcode else None


def _harness_program(
    code: str, spec: Mapping[str, object], cases: list[str], limits: Limits, prelude: str | None = None
) -> Program:
    """The candidate's code, the harness and its spec (with a fresh report marker), as one sandbox run."""
    nonce = new_nonce()
    return Program(
        files={
            "solution.py": code,
            "harness.py": _HARNESS,
            "candidate_server.py": _CANDIDATE,
            ".judgegraph-tests.json": json.dumps({"nonce": nonce, **spec}),
            **({"prelude.py": prelude} if prelude else {}),
        },
        command=["python3", "-I", "harness.py"],
        cases=cases,
        nonce=nonce,
        limits=limits,
    )


_CODE_START = re.compile(
    r"(?:async def |def |class |import |from [\w.]+ import |@\w|print\(|(?:for|while|with) .*:\s*$"
    r"|[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*\s*=\s*[^=\n]*\()"
)
"""Where bare code may start: a definition or import, a `print(`, a loop or `with` block, or an assignment from a
call (`n = int(input())`: a contest program's first line). Prose that happens to parse is dropped after."""


def _chosen(blocks: list[str], entry_point: str | None) -> str:
    """Of a response's code blocks, the last that defines the entry point, else the longest."""
    if entry_point:
        defining = [b for b in blocks if re.search(rf"def\s+{re.escape(entry_point)}\s*\(", b)]
        if defining:
            return defining[-1]
    return max(blocks, key=len)


def _unfenced(text: str, entry_point: str | None) -> str | None:
    """Code in prose without fences: from each code-like line, the longest stretch that parses; of those, the
    longest that defines the entry point (else the longest), without the prose lines that happened to parse."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if _CODE_START.match(line)]
    found: list[str] = []
    covered = -1
    for start in starts:
        if start <= covered:
            continue  # inside a stretch already found
        for end in range(len(lines), start, -1):
            chunk = "\n".join(lines[start:end])
            if _parses(chunk):
                found.append(_without_prose(chunk))
                covered = end - 1
                break
    if not found:
        return None
    if entry_point:
        defining = [c for c in found if re.search(rf"^(?:async )?def\s+{re.escape(entry_point)}\s*\(", c, re.M)]
        found = defining or found
    return max(found, key=len)


def _prose(node: ast.stmt) -> bool:
    """A top-level statement that is a line of prose that happens to parse: a bare word (`Examples`), words
    joined by operators, or an annotation without a value (`Complexity: O(n)`)."""
    if isinstance(node, ast.AnnAssign) and node.value is None:
        return True
    if not isinstance(node, ast.Expr):
        return False
    value = node.value
    return isinstance(value, ast.Name | ast.Attribute | ast.Compare | ast.BinOp | ast.Tuple) and not any(
        isinstance(n, ast.Call) for n in ast.walk(value)
    )


def _without_prose(code: str) -> str:
    """`code` less its top-level prose statements (see `_prose`), cut by the lines they span."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    drop: set[int] = set()
    for node in tree.body:
        if _prose(node):
            drop.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    if not drop:
        return code
    kept = [line for i, line in enumerate(code.splitlines(), start=1) if i not in drop]
    return "\n".join(kept)


def _parses(code: str) -> bool:
    if not code.strip():
        return False
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return True


languages.register("python", Python())


# ---------------------------------------------------------------- what a call reaches in an answer


def _defined(code: str) -> tuple[set[str], dict[str, str]]:
    """The code's top-level functions, and each method name -> its class (public methods only)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return set(), {}
    functions: set[str] = set()
    methods: dict[str, str] = {}
    functions.update(name for name, _ in _lambdas(tree.body))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            functions.add(node.name)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.name.startswith("_"):
                    methods.setdefault(item.name, node.name)
    return functions, methods


def resolve(name: str, code: str) -> str | None:
    """How to call `name` in `code`: the function, or `Class.name` for a method of that name; None if neither."""
    functions, methods = _defined(code)
    if name in functions:
        return name
    return f"{methods[name]}.{name}" if name in methods else None


def call_target(statement: Statement, example: Example, code: str, entry: str | None) -> str | None:
    """What an example calls in this candidate's code: the function the example names (or a method of that
    name, on a fresh instance of its class); for unnamed examples (LeetCode's), the starter's method, the
    candidate's `Solution` method, else its function under test."""
    named = example.function or statement.method
    if named is not None:
        return resolve(named, code) or (named if example.function else None)
    return _unnamed_target(example, code, entry)


Function = ast.FunctionDef | ast.AsyncFunctionDef


def _takes(fn: Function | ast.Lambda, example: Example, method: bool, by_name: bool) -> bool:
    """Whether `fn` takes the example's arguments: by their names (as the example writes them; a method's `self`
    aside, or forgotten, and keyword-only ones too), or by count."""
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    if method and not _static(fn) and params[:1] != list(example.names[:1]):
        params = params[1:]  # `self` (a method that forgot it takes the example's names: it is the target)
    if by_name:
        return params + [a.arg for a in fn.args.kwonlyargs] == list(example.names)
    required = len(params) - len(fn.args.defaults)
    return required <= len(example.args) and (fn.args.vararg is not None or len(example.args) <= len(params))


def _static(fn: Function | ast.Lambda) -> bool:
    """A `@staticmethod`: called on the class, it takes no `self`."""
    decorators = [] if isinstance(fn, ast.Lambda) else fn.decorator_list
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in decorators)


def _lambdas(body: list[ast.stmt]) -> list[tuple[str, ast.Lambda]]:
    """The functions a body defines by assigning a lambda to a name (`twoSum = lambda nums, target: ...`)."""
    return [
        (node.targets[0].id, node.value)
        for node in body
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Lambda)
    ]


def _calls(fn: Function | ast.Lambda) -> set[str]:
    """The names `fn` calls (`f(...)`, `self.f(...)`), itself left out: recursion does not make a helper."""
    names = {
        c.func.id if isinstance(c.func, ast.Name) else c.func.attr
        for c in ast.walk(fn)
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Name | ast.Attribute)
    }
    return names - ({fn.name} if isinstance(fn, Function) else set())


def _unnamed_target(example: Example, code: str, entry: str | None) -> str | None:
    """The function an unnamed example (LeetCode's `Input: nums = [1], k = 2`, with no starter to name it) calls
    in this candidate: its `Solution` class's methods (else its top-level functions) that take the example's
    arguments, less those the others call (helpers); None where that leaves no single one: which it calls is then
    unclear, and an example run on a guess could rule a right answer wrong."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return entry
    solution = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Solution"), None)
    body = solution.body if solution is not None else tree.body
    functions: list[tuple[str, Function | ast.Lambda]] = [
        (n.name, n) for n in body if isinstance(n, Function) and not n.name.startswith("_")
    ]
    functions += [(name, f) for name, f in _lambdas(body) if not name.startswith("_")]
    method = solution is not None
    fits = [(name, f) for name, f in functions if example.names and _takes(f, example, method, by_name=True)]
    fits = fits or [(name, f) for name, f in functions if _takes(f, example, method, by_name=False)]
    called = set().union(*(_calls(f) for _, f in functions))
    entries = [name for name, _ in fits if name not in called] or [name for name, _ in fits]
    if len(entries) == 1:
        return f"Solution.{entries[0]}" if method else entries[0]
    if solution is None and entry in entries:
        return entry
    return None
