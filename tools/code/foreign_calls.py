"""A statement's call examples (`Input: nums = [2,7,11,15], target = 9` / `Output: [0,1]`, a doctest) run on an
answer in C, C++, Java, JavaScript, Go or Rust, as LeetCode runs them: the answer's code in the site's environment
(C's and C++'s standard headers, `using namespace std`, Java's `java.util`, Rust's `struct Solution`), and a small
`main` that builds the example's arguments as that language's values (from the types the answer's function
declares), calls the method on a fresh `Solution` (or the function), and prints what it returned, and its first
argument as the call left it, as JSON. Rust's functions are snake_case where the statement's are camelCase
(`two_sum` for `twoSum`), as LeetCode names them. C's take an array with its size (`int* nums, int numsSize`), a
grid with its rows' sizes, and return an array's length through `returnSize` (and its rows' through
`returnColumnSizes`), as LeetCode's C starters declare them.

One build, then one run per example: the example's index is the run's stdin, so the stdin driver builds and
runs it like any program. Where the method cannot be found, or an argument cannot be written for the type it
declares (a `TreeNode*`, a `pair`), there is no program, and the examples decide nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judgegraph.sandboxes import SandboxPool
from judgegraph.tools.code import languages as _registered  # noqa: F401 - registers every language
from judgegraph.tools.code.language import Language, languages
from judgegraph.tools.code.observe import CASE_TIMEOUT_S, Observations, Observed, observe_stdin
from judgegraph.tools.code.stdio_languages import ProgramLanguage

FOREIGN = tuple(
    name
    for name in languages.names()
    if isinstance(found := languages.get(name), ProgramLanguage)
    and type(found).call_runner is not ProgramLanguage.call_runner
)
"""The languages whose answers the statement's call examples run on (besides Python): those whose module
builds a call runner (`ProgramLanguage.call_runner`)."""

REPORT = re.compile(r"^\{\"value\":.*\}$", re.MULTILINE)
"""A run's report line: `{"value": ..., "first": ...}` (on a line of its own: the runner starts it with a line
break, after whatever the answer printed without one)."""


_NOT_METHODS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "function", "main"}


def _calling(language: str) -> ProgramLanguage:
    found = languages.get(language)
    if not isinstance(found, ProgramLanguage):
        raise ValueError(f"{language} answers are not called through a runner")
    return found


def methods(code: str, language: str = "cpp") -> dict[str, int]:
    """The functions and methods `code` defines, each with the number of a call's arguments it takes, as the
    language reads its declarations (`ProgramLanguage.signature`, `call_arity`: a Rust method taking `self`
    and a C function whose parameters are not LeetCode's shapes are left out; a C function counts the
    statement's arguments, not sizes and out-parameters)."""
    calling = _calling(language)
    found: dict[str, int] = {}
    for m in calling.signature.finditer(code):
        count = calling.call_arity(m.group(2))
        if count is not None and m.group(1) not in _NOT_METHODS and m.group(1)[0].islower():
            found.setdefault(m.group(1), count)
    return found


@dataclass(frozen=True)
class Runner:
    source: str
    answer_lines: range
    """The source's lines (1-based) that are the answer's code."""

    def answers_fault(self, build_error: str) -> bool:
        """Whether a failed build failed in the answer's own lines (else it is the runner's doing: a call it
        wrote that this answer's types do not take)."""
        lines = [int(n) for n in re.findall(r"^\S*?\.(?:c|cpp|java):(\d+)(?::\d+)?: error", build_error, re.M)]
        lines += [int(n) for n in re.findall(r"^\S*?main\.go:(\d+):\d+:", build_error, re.M)]  # Go: every line an error
        lines += [int(n) for n in re.findall(r"^\s*--> main\.rs:(\d+):\d+", build_error, re.M)]  # warnings are off
        if self._unbalanced():
            return True  # a brace it never closed: the compiler reports the error where the file ends, in the runner
        return bool(lines) and all(n in self.answer_lines for n in lines)

    def _unbalanced(self) -> bool:
        answer = "\n".join(self.source.splitlines()[self.answer_lines.start - 1 : self.answer_lines.stop - 1])
        answer = re.sub(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)\'', "", answer)  # strings and characters
        return answer.count("{") != answer.count("}")


def method_for(code: str, named: str | None, arity: int, language: str = "cpp") -> str | None:
    """The method a call example runs in this answer: the one the example or the starter names, if the answer
    defines it (in Rust, its snake_case name); for an unnamed example, the answer's only method that takes that
    many arguments."""
    defined = methods(code, language)
    if named is not None:
        for name in _calling(language).names_of(named):
            if name in defined:
                return name
        return None
    fitting = [m for m, n in defined.items() if n == arity]
    return fitting[0] if len(fitting) == 1 else None


async def observe_foreign(
    pool: SandboxPool, language: Language, runner: Runner, calls: int, case_timeout_s: float = CASE_TIMEOUT_S
) -> Observations:
    """Each call's value (and first argument after it) from one build and one run per call of `runner`. A build
    that failed in the runner's own lines is no fault of the answer: every call is then `not_run`."""
    seen = await observe_stdin(pool, language, runner.source, [f"{k}\n" for k in range(calls)], case_timeout_s)
    error = seen.load_error
    if error is not None and error.startswith("the build failed") and not runner.answers_fault(error):
        message = f"the judge's call did not build with this answer's types: {error[-300:]}"
        return Observations([Observed("not_run", message=message)] * calls, None, seen.duration_s)
    observed = []
    for o in seen.observed:
        if o.status == "ok":
            report = read_report(o.output)
            if report is None:
                o = Observed("error", message="the call printed no result: " + o.output[-200:])
            elif report[0] is UNPRINTABLE:
                o = Observed("error", message=UNPRINTABLE_MESSAGE)
            else:
                o = Observed("ok", value=report[0], after=report[1])
        observed.append(o)
    return Observations(observed, error, seen.duration_s)


def program(language: str, code: str, name: str, calls: Sequence[tuple[Any, ...]]) -> Runner | None:
    """The program that runs `name` on each argument tuple in `calls` (chosen by the index read from stdin), or
    None where this code's `name` cannot be called with these arguments."""
    found = languages.get(language) if language in languages else None
    if not isinstance(found, ProgramLanguage):
        return None
    source = found.call_runner(code, name, calls)
    if source is None:
        return None
    answer = found.placed_answer(code)
    start = source[: source.index(answer)].count("\n") + 1
    return Runner(source, range(start, start + answer.count("\n") + 1))


UNPRINTABLE = object()
"""The value a run returned cannot be compared as data (a JavaScript `Set` or object)."""
UNPRINTABLE_MESSAGE = "the method returned a value that cannot be compared as data (a set, a map, an object)"


def read_report(output: str) -> tuple[Any, list[Any]] | None:
    """(value, [first argument after the call]) from a run's output (the value `UNPRINTABLE` where the run
    could not print it as data); None if it printed no report."""
    found = REPORT.findall(output)
    if not found:
        return None
    try:
        report = json.loads(found[-1])
    except ValueError:
        return None
    if "unprintable" in report:
        return UNPRINTABLE, []
    first = report.get("first")
    return report.get("value"), ([] if first is None else [first])
