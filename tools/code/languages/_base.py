"""C, C++, Java, JavaScript (Node), Go and Rust: built and run by the driver (`in_sandbox/stdio_driver.py`), with
Debian's toolchains (the Docker image's, or the host's /usr under the process backend)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from judgegraph.sandboxes import Limits
from judgegraph.schema import IOTest
from judgegraph.tools.code.calls import CallProgram, NotCallable
from judgegraph.tools.code.language import (
    Program,
    Step,
    Test,
    capturing,
    driver_program,
    fenced_blocks,
    indented_blocks,
    sandbox_source,
)
from judgegraph.tools.code.languages._test_names import C_LITERALS, c_defined, renamed
from judgegraph.tools.code.observe import Call, Observed, observed_status
from judgegraph.tools.code.statement import Example, Statement


def _unfenced(text: str, start: re.Pattern[str]) -> str | None:
    """Bare code with prose around it: from the first line that starts code to the last that ends a statement
    or block."""
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if start.match(line)), None)
    if first is None:
        return None
    ends = [i for i in range(first, len(lines)) if lines[i].rstrip().endswith(("}", ";", ")"))]
    return "\n".join(lines[first : ends[-1] + 1]) if ends else None


def split_params(params: str) -> list[str]:
    """A parameter list split at its top-level commas (not those inside `<...>`)."""
    out, depth, current = [], 0, ""
    for ch in params:
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(current)
            current = ""
        else:
            current += ch
    if current.strip():
        out.append(current)
    return [p.strip() for p in out]


C_FAMILY = re.compile(r"\b(\w+)\s*(?:=\s*(?:function\s*)?)?\(([^()]*)\)\s*(?:const\s*)?(?:throws[^{]*)?(?:=>\s*)?\{")
"""Where a C, C++, Java or JavaScript function or method is declared (a definition with its body)."""


_COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\[^\'\n]{1,10}|[^\'\\\n])\'', re.DOTALL)


def code_only(source: str) -> str:
    """C-family `source` (C, C++, Java, Rust, Go, JavaScript) with its comments and string and character literals
    blanked: the names its code uses, not those its text mentions. A character literal is one character or one
    escape, so Rust's lifetimes (`&'a str`) stay code."""
    return _COMMENT_OR_STRING.sub(" ", source)


SPELLED_PLACEHOLDER = "__JG_"
"""What starts every placeholder the sandbox's driver spells a build's token into (`__JG_MASKED__`, `__JG_MASK__`,
`__JG_KEY__`, `in_sandbox/stdio_driver.py`): it replaces them throughout the sources, so an answer that wrote one
would have the token spelled into its own code and could forge the completion record or a call's report. No
honest program writes one; an answer that does is refused, its tests failed."""


@dataclass(frozen=True)
class ProgramLanguage:
    """A language the driver builds and runs (`in_sandbox/stdio_driver.py`): programs that read stdin and write stdout,
    and test programs (the candidate's code and a test that exits 0 when it passes) built together."""

    name: str
    fence_tags: tuple[str, ...]
    code_start: re.Pattern[str]
    """A line where unfenced code starts."""
    main: re.Pattern[str]
    """The program's entry (`int main(`, `func main(`), to pick the block that is the program."""
    limits: Limits
    """The whole run's (builds included: compilers reserve gigabytes of address space)."""
    run_memory_mb: int
    """The address-space limit of each run of the built program (the JVM, V8 and Go reserve more than they
    use, so theirs is above the 512 MB of native programs)."""
    env: dict[str, str]
    startup_s: float = 0.0
    """Added to each case's time limit: the runtime's own start (the JVM's)."""
    failure_marker: str | None = None
    """Output that fails a test program even when it exits 0 (`console.assert` only prints)."""

    def extract(self, text: str, entry_point: str | None) -> str | None:
        blocks = fenced_blocks(text, self.fence_tags)
        if not blocks:
            bare = _unfenced(text, self.code_start)
            blocks = indented_blocks(text) if bare is None else []  # a bare function's body is indented too
            if not blocks:
                return bare
        wanted = re.compile(rf"\b{re.escape(entry_point)}\s*\(") if entry_point else self.main
        defining = [b for b in blocks if wanted.search(b)]
        return max(defining or blocks, key=len)

    def step(self, code: str, test: str | None) -> Step:
        """The program to build: the code alone, or with test program `test`."""
        raise NotImplementedError

    signature: ClassVar[re.Pattern[str]] = C_FAMILY
    """Where an answer declares a function or method: its name (group 1) and its parameter list (group 2)."""

    # -------------------------------------------------------- the runtime a test resolves (never the answer's)

    runtime_names: ClassVar[frozenset[str]] = frozenset()
    """Names a test in this language resolves in the language and its standard library (comparison functions,
    assertion macros, library classes, predeclared identifiers): an answer that declares one would have the test,
    built beside it, compare or assert through the answer's definition."""
    declares: ClassVar[re.Pattern[str]] = C_FAMILY
    """Where an answer declares a name (group 1) that could take a runtime name's place."""

    def redefinition(self, name: str) -> str:
        """Source that declares `name` as this language's answers can (the attack matrix's answer)."""
        raise NotImplementedError

    def takes_over(self, code: str, beside: str) -> list[str]:
        """The runtime names `code` declares that `beside` (a test, or a runner's own lines, built with the answer)
        uses unqualified: with any, the test would compare through the answer's definition, so the answer fails (a
        qualified use, `std::strcmp`, `java.util.Objects`, reaches the library's whatever the answer declares)."""
        used = set(_UNQUALIFIED.findall(beside))
        return sorted({m.group(1) for m in self.declares.finditer(code)} & self.runtime_names & used)

    @staticmethod
    def _refusal(message: str) -> Step:
        """A test program's step that does not build, saying why (`refusal`)."""
        return Step({}, ["python3", "-I", "-c", f"import sys; sys.exit({message!r})"], ["false"])

    def refusal(self, code: str, beside: str, whose: str) -> str | None:
        """Why a program of `code` built beside `beside` (`whose`: what uses the names there) is not built: the
        code writes the placeholder the driver spells the build's token into, or takes over names `beside`
        resolves (`takes_over`); None where neither."""
        if SPELLED_PLACEHOLDER in code:
            return f"the code writes the judge's placeholder for the build's completion token (`{SPELLED_PLACEHOLDER}`)"
        taken = self.takes_over(code, beside)
        return f"the code redefines {', '.join(taken)}, which {whose}" if taken else None

    def call_arity(self, params: str) -> int | None:
        """How many of a call's arguments a function with this parameter list takes; None where the judge does
        not call such a function (a parameter list not in LeetCode's shapes)."""
        return len(split_params(params))

    def names_of(self, named: str) -> tuple[str, ...]:
        """The names the statement's function `named` may have in an answer in this language."""
        return (named,)

    build_error_line: ClassVar[re.Pattern[str]] = re.compile(r"^\S*?\.(?:c|cpp|java):(\d+)(?::\d+)?: error", re.M)
    """Where the compiler names a line its build failed on (group 1: the line)."""
    reaches_runner: ClassVar[re.Pattern[str] | None] = None
    """Code by which an answer changes how the lines after it build (a C or C++ directive, a Rust crate
    attribute): where it has some, a failed build of a runner around it is its doing wherever the compiler
    reports (else it could break the runner on purpose, and its examples would only inform)."""

    def call_runner(self, code: str, name: str, calls: Sequence[tuple[object, ...]]) -> str | None:
        """The program that runs the answer's `name` on each argument tuple in `calls` (chosen by the index it
        reads from stdin) and prints each value as a report line (`{"value": ..., "first": ...}`) that the
        build's token starts (`__JG_MASKED__` and `__JG_MASK__`, under a name made of `__JG_KEY__`); None where
        this answer's `name` cannot be called with these arguments."""
        raise NotImplementedError

    def natural_runner(self, code: str, name: str, calls: Sequence[tuple[object, ...]]) -> str | None:
        """`call_runner`'s program where it writes none, each argument it cannot write as the type the answer
        declares written as the language writes the statement's value (`natural_types`): a generic function, a
        template, a class or alias of the answer's. The statement's values are what its function must take, so a
        build of this runner that fails is the answer's doing. None where the language writes no such runner."""
        return None

    def placed_answer(self, code: str) -> str:
        """The answer's code as `call_runner` places it in the runner (where the rest is as written)."""
        return code

    aliases: ClassVar[tuple[re.Pattern[str], ...]] = ()
    """A line declaring a type alias (groups `name` and `type`: `typedef long long ll;`, `type I = i32;`)."""

    def unaliased(self, code: str) -> str:
        """`code` with each type alias it declares written out where it is used (its declaring lines as they
        were), so a signature in aliases (`ll addTwo(ll a, ll b)`) reads, and is called, as its types: an
        alias is the type it names."""
        found: dict[str, str] = {}
        for pattern in self.aliases:
            for m in pattern.finditer(code_only(code)):
                if m["name"] != m["type"].strip():
                    found.setdefault(m["name"], " ".join(m["type"].split()))
        if not found:
            return code
        word = re.compile(r"\b(" + "|".join(map(re.escape, found)) + r")\b")
        lines = code.split("\n")
        for _ in range(4):  # an alias of an alias, a few deep
            lines = [
                line if any(p.search(line) for p in self.aliases) else word.sub(lambda m: found[m[1]], line)
                for line in lines
            ]
        return "\n".join(lines)

    # -------------------------------------------------------- calling a function (`calls.CallingLanguage`)

    def methods(self, code: str) -> dict[str, int]:
        """The functions and methods `code` defines, each with the number of a call's arguments it takes, as
        this language reads its declarations (`signature`, `call_arity`: a Rust method taking `self` and a C
        function whose parameters are not LeetCode's shapes are left out)."""
        found: dict[str, int] = {}
        for m in self.signature.finditer(self.unaliased(code)):
            count = self.call_arity(m.group(2))
            if count is not None and m.group(1) not in _NOT_METHODS and m.group(1)[0].islower():
                found.setdefault(m.group(1), count)
        return found

    def method_for(self, code: str, named: str | None, arity: int) -> str | None:
        """The method a call runs in this answer: the one the example or the starter names, if the answer
        defines it (in Rust, its snake_case name); for an unnamed call, the answer's only method that takes
        that many arguments."""
        defined = self.methods(code)
        if named is not None:
            return next((name for name in self.names_of(named) if name in defined), None)
        fitting = [m for m, n in defined.items() if n == arity]
        return fitting[0] if len(fitting) == 1 else None

    def example_target(self, code: str, entry: str | None, statement: Statement, example: Example) -> str | None:
        if example.kwargs:
            return None
        return self._shown(code, self.method_for(code, example.function or statement.method, len(example.args)))

    def shared_target(
        self, code: str, entry: str | None, statement: Statement, function: str | None, arity: int
    ) -> str:
        """The method of that name, or the only one taking `arity` arguments; one not found may be there, in a
        declaration the judge does not read (the calls then inform nothing)."""
        found = self._shown(code, self.method_for(code, function, arity))
        if found is None:
            raise NotCallable("the judge cannot call this answer", answers_fault=False)
        return found

    @staticmethod
    def _shown(code: str, name: str | None) -> str | None:
        """A method as a result names it: on LeetCode's `Solution` where the answer has one."""
        return None if name is None else f"Solution.{name}" if "Solution" in code else name

    def calls_program(
        self, code: str, calls: Sequence[Call], case_timeout_s: float, statement: Statement | None, stop_after: int
    ) -> CallProgram:
        """One build of a runner around the answer, then one run per call (the call's index is the run's stdin,
        so the driver builds and runs it like any program), in LeetCode's environment for this language."""
        targets = {c.function for c in calls}
        if len(targets) != 1:
            raise NotCallable(f"{self.name} code defines no one method the calls name", answers_fault=False)
        name = targets.pop().rpartition(".")[2]
        plain, arguments = self.unaliased(code), [c.args for c in calls]
        source = self.call_runner(plain, name, arguments)
        natural = source is None and (source := self.natural_runner(plain, name, arguments)) is not None
        if source is not None and plain != code:  # written for its types; built around the answer as it is
            source = source.replace(self.placed_answer(plain), self.placed_answer(code), 1)
        if source is None:
            raise NotCallable(
                f"{name} takes or returns values the judge does not write in {self.name} (it writes numbers, truth "
                "values, characters, strings and lists of them)",
                answers_fault=False,
            )
        answer = self.placed_answer(code)
        if why := self.refusal(code, source.replace(answer, ""), "the judge's runner uses"):
            raise NotCallable(why, answers_fault=True)
        at = source.find(answer)
        first_line = source[:at].count("\n") + 1
        lines = range(first_line, first_line + answer.count("\n") + 1) if at >= 0 else None
        tests: list[Test] = [IOTest(input=f"{k}\n", output="") for k in range(len(calls))]
        program = capturing(self._driver([self.call_step(source)], tests, case_timeout_s), stop_after)
        reaches = natural or (
            self.reaches_runner is not None and self.reaches_runner.search(code_only(code)) is not None
        )
        return CallProgram(program, source, lines, self.build_error_line, answer_reaches_runner=reaches)

    def call_step(self, runner: str) -> Step:
        """How the runner is built and run: as the language's programs are, with the build's token spelled into
        its sources (`record`; the runner prints it before its report, so a report the answer prints is none)
        and the sources deleted once built (`secret`), so the answer cannot read the token back at run time."""
        step = self.step(runner, None)
        return replace(step, record=True, secret=tuple(step.sources))

    def call_observed(self, status: str, message: str) -> Observed:
        """A passed run's message is its report line; the value, where it could be printed as data."""
        return _reported(message) if status == "passed" else Observed(observed_status(status), message=message)

    def program(self, code: str, tests: list[Test], entry_point: str | None, case_timeout_s: float) -> Program:
        """The code alone (for stdin/stdout cases, compared by the driver) and each test program built with it;
        a test whose library names the code redefines fails unbuilt (`takes_over`)."""
        steps = [self.step(code, None)] + [
            self._refusal(why)
            if (why := self.refusal(code, t, "the test takes from the language's library"))
            else self.step(code, t)
            for t in tests
            if isinstance(t, str)
        ]
        return self._driver(steps, tests, case_timeout_s)

    def _driver(self, steps: list[Step], tests: list[Test], case_timeout_s: float) -> Program:
        return driver_program(
            steps,
            tests,
            env=self.env,
            case_timeout_s=case_timeout_s + self.startup_s,
            limits=self.limits,
            run_memory_mb=self.run_memory_mb,
            failure_marker=self.failure_marker,
        )


_UNQUALIFIED = re.compile(r"(?<![\w.:])(?<!->)[A-Za-z_]\w*")
"""A name used alone, not as a member or a qualified name (`x.f`, `p->f`, `std::f`)."""
_NOT_METHODS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "function", "main"}

_UNPRINTABLE = "the method returned a value that is not data (a set, a map, an object of a class)"
"""Where the answer's runtime says its value is not data (JavaScript's): the statement's value is, so the example
fails, as a Python answer's does whose value cannot cross back. It never makes an example inform only: an answer
that tampered with the runner's check (its builtins are the answer's to replace) only fails."""


def _reported(report: str) -> Observed:
    """The call's value and first argument after it, from the runner's report line (`{"value": ..., "first":
    ...}`, or `{"unprintable": ...}` where the value is not data): what the driver took from the line the build's
    token starts."""
    try:
        data = json.loads(report)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return Observed("error", message="the call's report could not be read: " + report[-200:])
    if "unprintable" in data:
        return Observed("error", message=_UNPRINTABLE)
    first = data.get("first")
    return Observed("ok", value=data.get("value"), after=[] if first is None else [first])


def joined_source(code: str, test: str | None) -> str:
    return code if test is None else code.rstrip("\n") + "\n\n" + test


def runner_source(name: str) -> str:
    """A completion-record runner (`in_sandbox/`): the test's `main` renamed, then the token where it returns."""
    return sandbox_source(name)


_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include\b.*$", re.MULTILINE)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.MULTILINE)
C_ALIASES = (
    re.compile(r"^[ \t]*typedef[ \t]+(?P<type>[\w \t]+?[ \t]*\**)[ \t]*\b(?P<name>\w+)[ \t]*;", re.MULTILINE),
    re.compile(
        r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)[ \t]+"
        r"(?P<type>(?:(?:un)?signed|long|int|short|char|double|float|bool|size_t|u?int(?:8|16|32|64)_t)"
        r"(?:[ \t]+(?:long|int))*)[ \t]*$",
        re.MULTILINE,
    ),
)
"""C's and C++'s type aliases: a typedef, and a macro that names a number type (`#define ll long long`)."""
C_REACHES_RUNNER = re.compile(r"^[ \t]*#[ \t]*(?!include[ \t]*<[\w./+-]+>[ \t]*$)\S", re.MULTILINE)
"""Any directive but an include of a library header: a macro, a pragma (`GCC poison`, `GCC diagnostic error`),
`#undef`, `#line`, or an include of a file (`#include __FILE__` includes the runner into itself)."""


def c_test_program(code: str, test: str, cpp: bool, checks: Sequence[str] = (), unchecked: Sequence[str] = ()) -> str:
    """The candidate's code, a guard, the test, then the runner (`in_sandbox/record_runner.c`, C and C++ alike): every
    macro the code defined is undefined before the test (a `main` or `assert` it redefined included), the test's
    includes come after that, its `assert` reports through the runner (`jg_assert_failed`, which traps: by line,
    never by its text, which the answer could read back from its own binary), and its
    `main` is `jg_test_main`, which the runner's `main` calls; every name the test defines for itself is spelled with
    the build's secret key (`_test_names`). One translation unit: one compiler run. `checks`
    stand before the test (C++'s results checked plain) and `unchecked` after it (undoing their macros)."""
    linkage = 'extern "C" ' if cpp else ""
    guard = [
        "/* judgegraph: the candidate's code ends here; the test follows */",
        *(f"#undef {name}" for name in sorted(set(_DEFINE.findall(code)))),
        *_INCLUDE.findall(test),
        "#undef assert",
        "#undef main",
        f"{linkage}void jg_assert_failed(const char *, int);",
        # never `#e`: the assertion's text in the binary would be the test's expected values, read by the answer
        "#define assert(e) ((e) ? (void)0 : jg_assert_failed(__FILE__, __LINE__))",
        "#define main jg_test_main",
    ]
    body = returning_main(_INCLUDE.sub("", test))
    body = renamed(body, c_defined(body), C_LITERALS)  # the test's own names: none the answer can write
    with_args = re.search(r"\bmain\s*\(\s*int\b", body) is not None
    runner = runner_source("record_runner.c")
    runner = runner.replace("__JG_CALL__", "jg_test_main(argc, argv)" if with_args else "jg_test_main()")
    return "\n".join([code.rstrip("\n"), "", *guard, *checks, body, *unchecked, runner])


def returning_main(source: str) -> str:
    """`source` with `return 0;` before the closing brace of its `main`: only `main` returns 0 by falling off its
    end, and the test's runs as another function's body."""
    found = re.search(r"\bmain\s*\([^)]*\)\s*\{", source)
    if not found:
        return source
    depth, i = 1, found.end()
    while i < len(source) and depth:
        ch = source[i]
        if source.startswith("//", i):
            end = source.find("\n", i)
            i = len(source) if end < 0 else end
            continue
        if source.startswith("/*", i):
            end = source.find("*/", i + 2)
            i = len(source) if end < 0 else end + 2
            continue
        if ch in "\"'":
            j = i + 1
            while j < len(source) and source[j] != ch:
                j += 2 if source[j] == "\\" else 1
            i = j + 1
            continue
        depth += ch == "{"
        depth -= ch == "}"
        i += 1
    if depth:
        return source
    return source[: i - 1] + "return 0;\n" + source[i - 1 :]


C_RUNTIME = ("libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1")
"""The shared libraries a C or C++ test program calls into (each, linked or not: an answer that defines `sqrt`
itself leaves libm unlinked)."""
RUST_RUNTIME = ("libc.so.6", "libm.so.6")
"""Rust's (its compiler intrinsics, which libgcc_s exports too, are linked into the program from its own crate)."""
COMPILER_TEMPS = ("*.i", "*.ii", "*.s", "*.o")
"""What `-save-temps` leaves of a C or C++ test program (the preprocessed source the driver reads for code that
names its own symbols): the token is in each, so each goes with the source."""


NATIVE_LIMITS = Limits(address_space_mb=2048)
"""Compilers reserve more address space than they use; what is used stays Python's 512 MB (Docker's cgroup)."""
RUNTIME_LIMITS = Limits(address_space_mb=4096)
"""The JVM, V8, Go and rustc reserve gigabytes of address space (their heaps are capped by flags)."""
