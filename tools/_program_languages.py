"""C, C++, Java, JavaScript (Node), Go and Rust: built and run by the driver (`_stdio_driver.py`), with Debian's
toolchains (the Docker image's, or the host's /usr under the process backend)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from judgegraph.sandboxes import Limits
from judgegraph.tools._languages import Program, Step, Test, driver_program, fenced_blocks, languages


def _unfenced(text: str, start: re.Pattern[str]) -> str | None:
    """Bare code with prose around it: from the first line that starts code to the last that ends a statement
    or block."""
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if start.match(line)), None)
    if first is None:
        return None
    ends = [i for i in range(first, len(lines)) if lines[i].rstrip().endswith(("}", ";", ")"))]
    return "\n".join(lines[first : ends[-1] + 1]) if ends else None


_JAVA_RUNTIME = (
    "-Xmx256m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    # The JVM reserves a gigabyte for class metadata by default; these keep it well under the run's limit.
    "-XX:CompressedClassSpaceSize=64m",
    "-XX:ReservedCodeCacheSize=64m",
    "-XX:MaxMetaspaceSize=128m",
)


@dataclass(frozen=True)
class ProgramLanguage:
    """A language the driver builds and runs (`_stdio_driver.py`): programs that read stdin and write stdout,
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
        if blocks:
            wanted = re.compile(rf"\b{re.escape(entry_point)}\s*\(") if entry_point else self.main
            defining = [b for b in blocks if wanted.search(b)]
            return max(defining or blocks, key=len)
        return _unfenced(text, self.code_start)

    def step(self, code: str, test: str | None) -> Step:
        """The program to build: the code alone, or with test program `test`."""
        raise NotImplementedError

    def program(self, code: str, tests: list[Test], entry_point: str | None, case_timeout_s: float) -> Program:
        steps = [self.step(code, None)] + [self.step(code, t) for t in tests if isinstance(t, str)]
        return driver_program(
            steps,
            tests,
            env=self.env,
            case_timeout_s=case_timeout_s + self.startup_s,
            limits=self.limits,
            run_memory_mb=self.run_memory_mb,
            failure_marker=self.failure_marker,
        )


def _joined(code: str, test: str | None) -> str:
    return code if test is None else code.rstrip("\n") + "\n\n" + test


_IN_SANDBOX = Path(__file__).parent / "in_sandbox"


def _runner(name: str) -> str:
    """A completion-record runner (`in_sandbox/`): the test's `main` renamed, then the token where it returns."""
    return (_IN_SANDBOX / name).read_text()


_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include\b.*$", re.MULTILINE)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.MULTILINE)


def _c_test(code: str, test: str, cpp: bool) -> str:
    """The candidate's code, a guard, the test, then the runner (`in_sandbox/record_runner.c`, `.cpp`): every
    macro the code defined is undefined before the test (a `main` or `assert` it redefined included), the test's
    includes come after that, its `assert` reports through the runner (`jg_assert_failed`, which traps), and its
    `main` is `jg_test_main`, which the runner's `main` calls. One translation unit: one compiler run."""
    linkage = 'extern "C" ' if cpp else ""
    guard = [
        "/* judgegraph: the candidate's code ends here; the test follows */",
        *(f"#undef {name}" for name in sorted(set(_DEFINE.findall(code)))),
        *_INCLUDE.findall(test),
        "#undef assert",
        "#undef main",
        f"{linkage}void jg_assert_failed(const char *, const char *, int);",
        "#define assert(e) ((e) ? (void)0 : jg_assert_failed(#e, __FILE__, __LINE__))",
        "#define main jg_test_main",
    ]
    body = returning_main(_INCLUDE.sub("", test))
    with_args = re.search(r"\bmain\s*\(\s*int\b", body) is not None
    runner = _runner("record_runner.cpp" if cpp else "record_runner.c")
    runner = runner.replace("__JG_CALL__", "jg_test_main(argc, argv)" if with_args else "jg_test_main()")
    return "\n".join([code.rstrip("\n"), "", *guard, body, runner])


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


_NATIVE = Limits(address_space_mb=2048)
"""Compilers reserve more address space than they use; what is used stays Python's 512 MB (Docker's cgroup)."""
_RUNTIME = Limits(address_space_mb=4096)
"""The JVM, V8, Go and rustc reserve gigabytes of address space (their heaps are capped by flags)."""


class C(ProgramLanguage):
    def step(self, code: str, test: str | None) -> Step:
        if test is None:
            build = ["gcc", "-std=gnu17", "-O2", "-o", "main", "main.c", "-lm"]
            return Step({"main.c": code}, build, ["./main"])
        build = ["gcc", "-std=gnu17", "-O2", "-o", "main", "main.c", "-lm"]
        return Step({"main.c": _c_test(code, test, cpp=False)}, build, ["./main"], record=True, secret=("main.c",))


class Cpp(ProgramLanguage):
    def step(self, code: str, test: str | None) -> Step:
        if test is None:
            return Step({"main.cpp": code}, ["g++", "-std=gnu++17", "-O2", "-o", "main", "main.cpp", "-lm"], ["./main"])
        build = ["g++", "-std=gnu++17", "-O2", "-o", "main", "main.cpp", "-lm"]
        return Step({"main.cpp": _c_test(code, test, cpp=True)}, build, ["./main"], record=True, secret=("main.cpp",))


def java_main_class(source: str) -> str:
    """The class to run: the public one (its file must bear its name), else the one with `main`."""
    public = re.search(r"^\s*public\s+(?:final\s+|abstract\s+)*class\s+(\w+)", source, re.MULTILINE)
    if public:
        return public.group(1)
    at = re.search(r"static\s+void\s+main\s*\(", source)
    classes = [(m.start(), m.group(1)) for m in re.finditer(r"\bclass\s+(\w+)", source)]
    before = [name for pos, name in classes if at is None or pos < at.start()]
    return before[-1] if before else "Main"


class Java(ProgramLanguage):
    def step(self, code: str, test: str | None) -> Step:
        source = _joined(code, test)
        # Imports must come first: those of a test appended after the code move up.
        imports = re.findall(r"^\s*import\s+[\w.*\s]+;\s*$", source, re.MULTILINE)
        body = re.sub(r"^\s*import\s+[\w.*\s]+;\s*$", "", source, flags=re.MULTILINE)
        package = re.compile(r"^\s*package\s+[\w.]+\s*;\s*$", re.MULTILINE)
        source = "\n".join(dict.fromkeys(i.strip() for i in imports)) + "\n" + package.sub("", body)
        cls = java_main_class(source)
        javac = ["javac", "-encoding", "UTF-8", *(f"-J{flag}" for flag in _JAVA_RUNTIME)]
        if test is None:
            return Step({f"{cls}.java": source}, [*javac, f"{cls}.java"], ["java", *_JAVA_RUNTIME, "-cp", ".", cls])
        # The test's main runs from the runner, which records its return: a static initialiser's System.exit(0)
        # or one in the call never gets there.
        runner = _runner("JgRunner.java").replace("__JG_MAIN_CLASS__", java_main_class(test))
        sources = {f"{cls}.java": source, "JgRunner.java": runner}
        build = [*javac, f"{cls}.java", "JgRunner.java"]
        run = ["java", *_JAVA_RUNTIME, "-cp", ".", "JgRunner"]
        return Step(sources, build, run, record=True, secret=("JgRunner.java",))


class JavaScript(ProgramLanguage):
    def step(self, code: str, test: str | None) -> Step:
        if test is None:
            return Step({"main.js": code}, None, ["node", "--max-old-space-size=256", "main.js"])
        # The runner reads both, deletes itself, and runs them as one module with the test's own `require`.
        sources = {"solution.js": code, "test.js": test, "record_runner.js": _runner("record_runner.js")}
        return Step(sources, None, ["node", "--max-old-space-size=256", "record_runner.js"], record=True)


class Go(ProgramLanguage):
    def step(self, code: str, test: str | None) -> Step:
        package = re.compile(r"^\s*package\s+\w+", re.MULTILINE)
        if not package.search(code):
            code = "package main\n\n" + code
        if test is None:
            return Step({"main.go": code}, ["go", "build", "-o", "main", "main.go"], ["./main"])
        if re.search(r"func\s+Test\w*\s*\(\s*\w+\s+\*testing\.T\s*\)", test):  # `go test` style
            files = ["solution.go", "solution_test.go"]
            sources = {"solution.go": code, "solution_test.go": test}
            if re.search(r"func\s+TestMain\s*\(", test):  # the test's own TestMain: its exit status decides
                return Step(sources, ["go", "test", "-c", "-o", "main", *files], ["./main"])
            named = package.search(test) or package.search(code)
            name = named.group().split()[-1] if named else "main"
            sources["jg_runner_test.go"] = _runner("record_runner_test.go").replace("__JG_PACKAGE__", name)
            sources["jg_record.go"] = _runner("record.go").replace("__JG_PACKAGE__", name)
            build = ["go", "test", "-c", "-o", "main", *files, "jg_runner_test.go", "jg_record.go"]
            return Step(sources, build, ["./main"], record=True, secret=("jg_record.go",))
        # A test program: a second file of the same package, with its own imports; its main runs from the runner.
        if not package.search(test):
            test = "package main\n\n" + test
        test = re.sub(r"\bfunc\s+main\s*\(\s*\)", "func jgTestMain()", test, count=1)
        sources = {
            "main.go": code,
            "test.go": test,
            "jg_runner.go": _runner("record_runner.go"),
            "jg_record.go": _runner("record.go").replace("__JG_PACKAGE__", "main"),
        }
        build = ["go", "build", "-o", "main", "main.go", "test.go", "jg_runner.go", "jg_record.go"]
        return Step(sources, build, ["./main"], record=True, secret=("jg_record.go",))


class Rust(ProgramLanguage):
    def step(self, code: str, test: str | None) -> Step:
        build = ["rustc", "--edition", "2021", "-O", "-C", "strip=debuginfo", "-o", "main", "main.rs"]
        if test is None:
            return Step({"main.rs": code}, build, ["./main"])
        # The candidate's own tests are not tests here (one sorted after the runner's could exit 0 past a failure).
        code = re.sub(r"#\[\s*test\s*\]", "#[allow(dead_code)]", code)
        code = re.sub(r"#\[\s*cfg(?:_attr)?\s*\(\s*test\b[^\]]*\]", "", code)
        if re.search(r"#\[\s*test\s*\]", test):  # the built-in harness: the runner's test runs last, by name
            build.insert(1, "--test")
        else:
            test = re.sub(r"\bfn\s+main\s*\(\s*\)", "fn jg_test_main()", test, count=1)
        source = code.rstrip("\n") + "\n\n" + test.rstrip("\n") + "\n\n" + _runner("record_runner.rs")
        return Step({"main.rs": source}, build, ["./main"], record=True, secret=("main.rs",))


_C_START = re.compile(r"\s*(#include|#define|(int|void|long|char|double|typedef|struct|static|const)\b)")
_CPP_START = re.compile(
    r"\s*(#include|#define|(int|void|long|char|double|typedef|struct|static|const|using|template|class|namespace)\b)"
)
_GO_ENV = {"CGO_ENABLED": "0", "GO111MODULE": "off", "GOFLAGS": "-p=1", "GOTOOLCHAIN": "local"}

for language in (
    C("c", ("c",), _C_START, re.compile(r"\bmain\s*\("), _NATIVE, 512, {}),
    Cpp(
        "cpp",
        ("cpp", "c++", "cc", "cxx", "hpp"),
        _CPP_START,
        re.compile(r"\bmain\s*\("),
        _NATIVE,
        512,
        {},
    ),
    Java(
        "java",
        ("java",),
        re.compile(r"\s*(import\s|package\s|public\s|class\s|final\s|abstract\s)"),
        re.compile(r"static\s+void\s+main\s*\("),
        _RUNTIME,
        1024,
        {},
        startup_s=2.0,
    ),
    JavaScript(
        "javascript",
        ("javascript", "js", "node", "nodejs", "mjs"),
        re.compile(r"\s*(const\s|let\s|var\s|function\s|class\s|import\s|require\(|['\"]use strict|process\.)"),
        re.compile(r"\bmain\s*\("),
        _RUNTIME,
        1024,
        {},
        startup_s=1.0,
        failure_marker="Assertion failed",
    ),
    Go(
        "go",
        ("go", "golang"),
        re.compile(r"\s*(package|import|func|type|var|const)\b"),
        re.compile(r"func\s+main\s*\("),
        _RUNTIME,
        1024,
        _GO_ENV,
    ),
    Rust(
        "rust",
        ("rust", "rs"),
        re.compile(r"\s*(use\s|fn\s|pub\s|struct\s|enum\s|impl\s|mod\s|const\s|static\s|#!?\[)"),
        re.compile(r"fn\s+main\s*\("),
        _RUNTIME,
        512,
        {"RUST_TEST_THREADS": "1"},
    ),
):
    languages.register(language.name, language)
