"""Calling a statement's function in an answer, in any language: the one path `run_examples`, differential
testing and `oracle_check` take. What a call reaches in the answer, and the program that makes the calls, are
the language's (`CallingLanguage`: Python's harness in `languages/python.py`, a runner built around the answer
for the compiled languages in `languages/_base.py` and their modules); running it and reading each call's value
back are here, the same for every language."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from judgegraph.errors import ToolFailure
from judgegraph.sandboxes import SandboxPool
from judgegraph.settings import CASE_TIMEOUT_S
from judgegraph.tools.code.language import Language, Program, languages
from judgegraph.tools.code.observe import (
    STOP_AFTER_TIMEOUTS,
    Call,
    Observations,
    Observed,
    run_reported,
)
from judgegraph.tools.code.statement import Example, Statement


class NotCallable(ToolFailure):
    """The judge cannot make these calls in this answer: it finds no function to call, or cannot write the
    arguments in the answer's language."""

    def __init__(self, message: str, *, answers_fault: bool) -> None:
        super().__init__(message)
        self.answers_fault = answers_fault
        """The answer defines nothing to call (its fault: every call is an error), rather than the judge not
        reading or writing what it defines (every call is `not_run`)."""

    def observed(self) -> Observed:
        return Observed("error" if self.answers_fault else "not_run", message=str(self))


@dataclass(frozen=True)
class CallProgram:
    """A language's program that makes a list of calls, one case each."""

    program: Program
    source: str = ""
    """The runner's source, where one is built around the answer."""
    answer_lines: range | None = None
    """The source's lines (1-based) that are the answer's code (a build that failed outside them is the runner's
    doing, no fault of the answer); None where nothing is built around it."""
    build_error_line: re.Pattern[str] | None = None
    """Where the compiler names a line it failed on (group 1: the line's number)."""
    answer_reaches_runner: bool = False
    """A failed build is the answer's doing wherever the compiler reports it: the answer changes how the runner's
    lines build (a directive, a crate attribute: `reaches_runner`), or the runner passes the statement's values
    as they are (`natural_runner`). Else an answer could break the runner on purpose, and its examples would
    only inform."""

    def answers_fault(self, build_error: str) -> bool:
        """Whether a failed build is the answer's doing. It is the runner's only where the compiler names lines
        and every line it names is the runner's (a call it wrote that this answer's types do not take), or where
        the compiler could not be started at all. A build that failed naming no line (the compiler out of
        memory or killed, an include that never ends) is the answer's: the runner alone builds, so only the
        answer's code can have done it, and else a wrong answer could make its build fail on purpose and its
        examples would only inform. Where `answer_reaches_runner`, it is the answer's wherever the compiler
        reports."""
        if build_error.startswith(_TOOLCHAIN_MISSING):
            return False
        if self.answer_lines is None or self.build_error_line is None or self.answer_reaches_runner:
            return True
        answer, runner = self._split(self.answer_lines)
        if _unbalanced(answer):
            return True  # a brace it never closed: the compiler reports the error where the file ends, in the runner
        if set(_RUNNER_NAME.findall(answer)) & set(_RUNNER_NAME.findall(runner)):
            return True  # it declared a name of the runner's own (`jg_json`, `JgMain`): the clash is its doing
        output = _BUILD_FAILED.sub("", build_error, count=1)  # the compiler's first line starts after the driver's
        lines = [int(n) for n in self.build_error_line.findall(output)]
        return not lines or all(n in self.answer_lines for n in lines)

    def _split(self, lines: range) -> tuple[str, str]:
        """The answer's lines of the source, and the runner's (all the others)."""
        source = self.source.splitlines()
        inside = source[lines.start - 1 : lines.stop - 1]
        return "\n".join(inside), "\n".join(source[: lines.start - 1] + source[lines.stop - 1 :])


_RUNNER_NAME = re.compile(r"\b_*[jJ][gG]\w*")
"""The names a runner gives its own helpers, variables and classes (`jg_json`, `jgArgs`, `JgMain`)."""
_BUILD_FAILED = re.compile(r"^the build failed \([^)]*\): ")
"""The driver's words before the compiler's output (`stdio_driver.py`'s `build`)."""
_TOOLCHAIN_MISSING = "the build failed (exited with status 127): cannot start "
"""The driver could not start the compiler (`stdio_driver.py`'s `execute`): the judge's machine, not the answer."""


def _unbalanced(code: str) -> bool:
    code = re.sub(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)\'', "", code)  # strings and characters
    return code.count("{") != code.count("}")


@runtime_checkable
class CallingLanguage(Protocol):
    """A language whose functions the judge calls as a statement's examples call them (LeetCode's way: a method
    of a fresh `Solution`, or the function)."""

    @property
    def name(self) -> str: ...

    def example_target(self, code: str, entry: str | None, statement: Statement, example: Example) -> str | None:
        """What `example` calls in this answer (`Class.method` or a function), None where the answer defines
        nothing it may call: the example is then not run."""
        ...

    def shared_target(
        self, code: str, entry: str | None, statement: Statement, function: str | None, arity: int
    ) -> str:
        """What every call of `function` (None: the statement's unnamed one) taking `arity` arguments (-1: not
        one count) reaches in this answer.

        Raises:
            NotCallable: nothing the judge finds in the answer (its fault where the language reads every
                declaration for certain).
        """
        ...

    def calls_program(
        self, code: str, calls: Sequence[Call], case_timeout_s: float, statement: Statement | None, stop_after: int
    ) -> CallProgram:
        """The program making `calls` in `code`, one case each, in the environment `statement`'s judge gives
        (LeetCode's, for a LeetCode-style one); the calls after `stop_after` timeouts are `not_run`.

        Raises:
            NotCallable: these calls cannot be made in this answer.
        """
        ...

    def call_observed(self, status: str, message: str) -> Observed:
        """What one call did, from its case's status and message in the program's report (`observed_status`
        for a case that did not pass)."""
        ...


def calling(language: Language) -> CallingLanguage:
    """`language` as one whose functions the judge calls.

    Raises:
        NotCallable: it is not (a language that only runs programs).
    """
    if not isinstance(language, CallingLanguage):
        raise NotCallable(
            f"{language.name} code, whose calls the judge does not run (it runs {', '.join(calling_languages())})",
            answers_fault=False,
        )
    return language


def calling_languages() -> list[str]:
    """The registered languages whose functions the judge calls."""
    return [name for name in languages.names() if isinstance(languages.get(name), CallingLanguage)]


async def observe_calls(
    pool: SandboxPool,
    language: Language,
    code: str,
    calls: Sequence[Call],
    case_timeout_s: float = CASE_TIMEOUT_S,
    statement: Statement | None = None,
) -> Observations:
    """Each call's value (and arguments as it left them), from one sandbox run of the answer's code (in the
    environment `statement`'s judge gives); the calls after `STOP_AFTER_TIMEOUTS` timeouts are `not_run`. A build
    that failed in a runner's own lines is no fault of the answer: every call is then `not_run`, informing only.

    Raises:
        NotCallable: the language is not called into, or these calls cannot be made in this answer.
    """
    caller = calling(language)
    try:
        made = caller.calls_program(code, calls, case_timeout_s, statement, STOP_AFTER_TIMEOUTS)
    except NotCallable as e:
        if not e.answers_fault:
            raise
        return Observations([e.observed()] * len(calls), None, 0.0)  # the answer's doing: every call an error
    results, error, duration = await run_reported(pool, made.program)
    if error is not None and error.startswith("the build failed") and not made.answers_fault(error):
        message = f"the judge's call did not build with this answer's types: {error[-300:]}"
        return Observations([Observed("not_run", message=message, informs=True)] * len(calls), None, duration)
    observed = [caller.call_observed(status, message) for status, message in results]
    return Observations(observed, error, duration)


async def observe_function(
    pool: SandboxPool,
    language: Language,
    code: str,
    entry: str | None,
    statement: Statement,
    function: str | None,
    arguments: Sequence[tuple[object, ...]],
    case_timeout_s: float = CASE_TIMEOUT_S,
) -> Observations:
    """The answer's `function` (None: the statement's unnamed one) called with each argument tuple, as
    differential testing and the oracle call it: one target for every call (`shared_target`). Where the answer
    cannot be called so, every call says why (an error where that is the answer's fault, else `not_run`)."""
    arities = {len(args) for args in arguments}
    try:
        caller = calling(language)
        target = caller.shared_target(code, entry, statement, function, arities.pop() if len(arities) == 1 else -1)
        calls = [Call(target, args, {}) for args in arguments]
        return await observe_calls(pool, language, code, calls, case_timeout_s, statement)
    except NotCallable as e:
        return Observations([e.observed()] * len(arguments), None, 0.0)
