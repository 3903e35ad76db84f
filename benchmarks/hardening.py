"""What the hardening against reward hacking costs a code case, side by side on the warm Docker pool: a function
test program in C, Go and JavaScript built with its completion-record runner (`tools/in_sandbox/`) against the
same test program built the way it was before (the candidate's code and the test in one program, passing on exit
status 0 alone), a test program in C++, Rust and Java with and without the checks that what it compares is plain
(`in_sandbox/plain_result.hpp`, `plain_result.rs`, `JgRunner.java`), a test program in C, C++ and Rust with and
without the check that it defines no symbol of the runtime's libraries (the driver lists its symbols and reads
the preprocessed source for code that names its own), and a Python assertion test through the harness (every
name resolved to the tests' bindings or the real builtins)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from benchmarks._util import Stats, table
from judgegraph.sandboxes import SandboxPool
from judgegraph.settings import CASE_TIMEOUT_S
from judgegraph.tools import language_named, read_report
from judgegraph.tools.code.language import Program, Step, driver_program
from judgegraph.tools.code.languages import ProgramLanguage

CASES = {
    "c": ("int add(int a, int b) { return a + b; }", "#include <assert.h>\nint main(void) { assert(add(2, 3) == 5); }"),
    "go": (
        "func add(a int, b int) int {\n\treturn a + b\n}",
        'import "os"\n\nfunc main() {\n\tif add(2, 3) != 5 {\n\t\tos.Exit(1)\n\t}\n}',
    ),
    "javascript": (
        "function add(a, b) { return a + b; }",
        "const assert = require('node:assert');\nassert.strictEqual(add(2, 3), 5);",
    ),
}
PLAIN = {
    "cpp": (
        "#include <vector>\nstd::vector<int> twice(std::vector<int> v) {\n"
        "    for (int &x : v) x *= 2;\n    return v;\n}",
        "#include <cassert>\n#include <vector>\nint main() {\n"
        "    assert(twice({1, 2}) == std::vector<int>({2, 4}));\n}",
    ),
    "rust": ("fn add(a: i32, b: i32) -> i32 {\n    a + b\n}", "fn main() {\n    assert_eq!(add(2, 3), 5);\n}"),
    "java": (
        "class Solution {\n    public int add(int a, int b) { return a + b; }\n}",
        "public class Main {\n    public static void main(String[] args) {\n"
        "        if (new Solution().add(2, 3) != 5) throw new AssertionError();\n    }\n}",
    ),
}
"""Test programs whose results are checked plain (C++, Rust, Java), timed with and without the checks."""
PYTHON = (
    "def add(a, b):\n    return a + b\n",
    "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert abs(candidate(-1, 4) - 3) < 1e-9\n",
)


def _unhardened(language: str, code: str, test: str) -> Program:
    """The test program as it was built before the runner: one program, a pass on exit status 0."""
    lang = language_named(language)
    assert isinstance(lang, ProgramLanguage)
    joined = code.rstrip("\n") + "\n\n" + test
    steps = {
        "c": Step({"main.c": joined}, ["gcc", "-std=gnu17", "-O2", "-o", "main", "main.c", "-lm"], ["./main"]),
        "go": Step(
            {"main.go": "package main\n\n" + code, "test.go": "package main\n\n" + test},
            ["go", "build", "-o", "main", "main.go", "test.go"],
            ["./main"],
        ),
        "javascript": Step({"main.js": joined}, None, ["node", "--max-old-space-size=256", "main.js"]),
    }
    return driver_program(
        [lang.step(code, None), steps[language]],
        [test],
        env=lang.env,
        case_timeout_s=CASE_TIMEOUT_S + lang.startup_s,
        limits=lang.limits,
        run_memory_mb=lang.run_memory_mb,
        failure_marker=lang.failure_marker,
    )


@contextmanager
def _without_plain_checks() -> Iterator[None]:
    """The test programs built as they were before their results were checked plain."""
    from judgegraph.tools.code.languages import cpp, java, rust
    from judgegraph.tools.code.languages._base import runner_source

    def unchecked_runner(name: str) -> str:
        check = "JgRunner.checkResults(new String[] {__JG_TESTED__}, new String[] {__JG_TEST_CLASSES__});"
        return runner_source(name).replace(check, "")

    saved = cpp.result_checks, rust.result_checks
    cpp.result_checks = lambda code, test: ([], [])
    rust.result_checks = lambda code, test: []
    java.__dict__["runner_source"] = unchecked_runner
    try:
        yield
    finally:
        cpp.result_checks, rust.result_checks = saved
        java.__dict__["runner_source"] = runner_source


@contextmanager
def _without_symbol_checks() -> Iterator[None]:
    """The test programs built as they were before the driver checked their symbols."""
    from judgegraph.tools.code.languages.c import C
    from judgegraph.tools.code.languages.cpp import Cpp
    from judgegraph.tools.code.languages.rust import Rust

    saved: dict[type[ProgramLanguage], Callable[..., Step]] = {cls: cls.step for cls in (C, Cpp, Rust)}

    def unchecked(original: Callable[..., Step]) -> Callable[..., Step]:
        def step(self: ProgramLanguage, code: str, test: str | None) -> Step:
            built = original(self, code, test)
            build = [arg for arg in built.build or [] if arg != "-save-temps"]
            return replace(built, build=build, runtime_libraries=())

        return step

    try:
        for cls, original in saved.items():
            cls.step = unchecked(original)  # type: ignore[method-assign]
        yield
    finally:
        for cls, original in saved.items():
            cls.step = original  # type: ignore[method-assign]


async def _time(pool: SandboxPool, program: Program, n: int) -> tuple[Stats, int]:
    times, passed = [], 0
    for _ in range(n + 1):  # the first run warms the sandbox and the page cache
        start = time.perf_counter()
        run = await pool.run(program.command, files=program.files, limits=program.limits)
        times.append(time.perf_counter() - start)
        cases, load_error = read_report(program, run)
        passed += load_error is None and all(c.status == "passed" for c in cases)
    return Stats.of(times[1:]), passed


async def bench(n: int = 10) -> str:
    rows: list[list[object]] = []
    async with await SandboxPool.open("docker", size=1) as pool:
        for language, (code, test) in CASES.items():
            hardened = language_named(language).program(code, [test], "add", CASE_TIMEOUT_S)
            before, ok_before = await _time(pool, _unhardened(language, code, test), n)
            after, ok_after = await _time(pool, hardened, n)
            ratio = after.p50_ms / before.p50_ms
            rows.append([language, f"{ok_before}/{n + 1}", before.p50_ms, f"{ok_after}/{n + 1}", after.p50_ms, ratio])
        for language, (code, test) in PLAIN.items():
            with _without_plain_checks():
                unchecked = language_named(language).program(code, [test], None, CASE_TIMEOUT_S)
            checked = language_named(language).program(code, [test], None, CASE_TIMEOUT_S)
            before, ok_before = await _time(pool, unchecked, n)
            after, ok_after = await _time(pool, checked, n)
            ratio = after.p50_ms / before.p50_ms
            label = f"{language} (results checked plain)"
            rows.append([label, f"{ok_before}/{n + 1}", before.p50_ms, f"{ok_after}/{n + 1}", after.p50_ms, ratio])
        for language, (code, test) in (("c", CASES["c"]), ("cpp", PLAIN["cpp"]), ("rust", PLAIN["rust"])):
            with _without_symbol_checks():
                unchecked = language_named(language).program(code, [test], None, CASE_TIMEOUT_S)
            checked = language_named(language).program(code, [test], None, CASE_TIMEOUT_S)
            before, ok_before = await _time(pool, unchecked, n)
            after, ok_after = await _time(pool, checked, n)
            ratio = after.p50_ms / before.p50_ms
            label = f"{language} (own symbols checked)"
            rows.append([label, f"{ok_before}/{n + 1}", before.p50_ms, f"{ok_after}/{n + 1}", after.p50_ms, ratio])
        python = language_named("python").program(PYTHON[0], [PYTHON[1]], "add", CASE_TIMEOUT_S)
        stats, ok = await _time(pool, python, n)
        rows.append(["python (harness)", "-", "-", f"{ok}/{n + 1}", stats.p50_ms, "-"])
    return "\n\n".join(
        [
            __doc__.split("\n\n")[0].replace("\n", " "),
            f"{n} runs each after a warm-up, one Docker sandbox (its in-container runner undumpable in both columns):",
            table(["test program", "passed before", "p50 ms before", "passed", "p50 ms", "x before"], rows),
        ]
    )
