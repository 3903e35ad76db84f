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
from judgegraph.sandboxes import ExecResult, Limits
from judgegraph.schema import IOTest

Test = str | IOTest

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
    limits: Limits


class Language(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def fence_tags(self) -> tuple[str, ...]:
        """Code fence tags (lower case) that mark this language; the first is the usual name."""
        ...

    def extract(self, text: str, entry_point: str | None) -> str | None:
        """The candidate's code, or None when it contains none."""
        ...

    def program(self, code: str, tests: list[Test], entry_point: str | None, case_timeout_s: float) -> Program:
        """The files and command that run `code` against `tests`."""
        ...


languages: Registry[Language] = Registry("language")

_FENCE = re.compile(r"```([\w+#-]*)[^\n]*\n(.*?)```", re.DOTALL)


def fenced_blocks(text: str, tags: tuple[str, ...]) -> list[str]:
    """Code blocks tagged with one of `tags` (or untagged)."""
    return [body for tag, body in _FENCE.findall(text) if tag.lower() in tags or tag == ""]


def language_named(name: str) -> Language:
    """The language registered under `name` or with `name` among its fence tags (`c++`, `js`, `rs`, ...).

    Raises:
        KeyError: no language is known by that name (the message lists those that are).
    """
    key = name.strip().lower()
    if key in languages:
        return languages.get(key)
    for known in languages:
        if key in languages.get(known).fence_tags:
            return languages.get(known)
    raise KeyError(f"no language {name!r}; known: {', '.join(sorted(languages))}")


def fenced_language(text: str) -> Language | None:
    """The language the response's first tagged code fence names, if judgegraph runs it."""
    for tag, _ in _FENCE.findall(text):
        if tag:
            try:
                return language_named(tag)
            except KeyError:
                continue
    return None


def _nonce() -> str:
    return "@@judgegraph-" + secrets.token_hex(8) + "@@"


def read_report(program: Program, result: ExecResult) -> tuple[list[CaseResult], str | None]:
    """Per-case results and the load error (code that would not even load or build), from the last marker line
    of the run's output (the harness's or the driver's report)."""
    lines = [line for line in result.stdout.splitlines() if line.startswith(program.nonce)]
    payload = None
    if lines:
        try:
            payload = json.loads(lines[-1][len(program.nonce) :])
        except json.JSONDecodeError:
            payload = None
    if not isinstance(payload, dict):
        why = (
            "the program was killed (a time limit or a signal)"
            if result.timed_out
            else (
                "the program ran out of memory"
                if result.oom_killed
                else f"the program exited ({result.exit_code}) before reporting: {result.stderr.strip()[-300:]}"
            )
        )
        return [CaseResult(index=i, source=c, status="not_run", message=why) for i, c in enumerate(program.cases)], why
    done = payload.get("results", [])
    cases = []
    for i, source in enumerate(program.cases):
        if i < len(done):
            status, message = done[i]
            cases.append(CaseResult(index=i, source=source, status=status, message=message))
        else:
            cases.append(CaseResult(index=i, source=source, status="not_run", message="not reached"))
    return cases, payload.get("load_error")


# ---------------------------------------------------------------- programs run by the driver

_DRIVER = (Path(__file__).parent / "_stdio_driver.py").read_text()
BUILD_TIMEOUT_S = 60.0
"""A build's own time limit (javac and rustc take seconds on a loaded machine)."""
MAX_WALL_S = 170.0
"""A whole run's wall-clock cap, however many cases (run_code's own timeout is above it)."""


def _shown(test: IOTest) -> str:
    def cut(text: str) -> str:
        return json.dumps(text if len(text) <= 120 else text[:120] + "...")

    return f"stdin {cut(test.input)} -> expected stdout {cut(test.output)}"


@dataclass(frozen=True)
class Step:
    """One program the driver builds: its sources, build command and run command."""

    sources: dict[str, str]
    build: list[str] | None
    run: list[str]


def driver_program(
    steps: list[Step],
    tests: list[Test],
    *,
    env: dict[str, str],
    case_timeout_s: float,
    limits: Limits,
    run_memory_mb: int,
    failure_marker: str | None = None,
) -> Program:
    """The driver's run: stdin/stdout cases run `steps[0]`; test program k (a string test) runs its own step
    (the k-th after the first)."""
    nonce = _nonce()
    cases: list[dict[str, object]] = []
    shown: list[str] = []
    program_step = 1
    for test in tests:
        if isinstance(test, IOTest):
            cases.append({"step": 0, "input": test.input, "output": test.output, "tolerance": test.tolerance})
            shown.append(_shown(test))
        else:
            cases.append({"step": program_step})
            program_step += 1
            shown.append(test)
    spec = {
        "nonce": nonce,
        "env": env,
        "steps": [{"sources": st.sources, "build": st.build, "run": st.run} for st in steps],
        "cases": cases,
        "build_timeout": BUILD_TIMEOUT_S,
        "case_timeout": case_timeout_s,
        "failure_marker": failure_marker,
        "run_address_space": run_memory_mb * 1024 * 1024,
    }
    builds = len({c["step"] for c in cases})
    wall = min(MAX_WALL_S, 5.0 + builds * 15.0 + len(cases) * case_timeout_s)
    return Program(
        files={"driver.py": _DRIVER, ".judgegraph-run.json": json.dumps(spec)},
        command=["python3", "-I", "driver.py"],
        cases=shown,
        nonce=nonce,
        limits=limits.model_copy(update={"wall_s": wall, "cpu_s": int(wall) + 1}),
    )


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
        nonce = _nonce()
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


# ---------------------------------------------------------------- compiled and other languages (the driver)


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


_NATIVE = Limits(address_space_mb=2048)
"""Compilers reserve more address space than they use; what is used stays Python's 512 MB (Docker's cgroup)."""
_RUNTIME = Limits(address_space_mb=4096)
"""The JVM, V8, Go and rustc reserve gigabytes of address space (their heaps are capped by flags)."""


class C(ProgramLanguage):
    def step(self, code: str, test: str | None) -> Step:
        return Step(
            {"main.c": _joined(code, test)}, ["gcc", "-std=gnu17", "-O2", "-o", "main", "main.c", "-lm"], ["./main"]
        )


class Cpp(ProgramLanguage):
    def step(self, code: str, test: str | None) -> Step:
        build = ["g++", "-std=gnu++17", "-O2", "-o", "main", "main.cpp", "-lm"]
        return Step({"main.cpp": _joined(code, test)}, build, ["./main"])


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
        build = ["javac", "-encoding", "UTF-8", *(f"-J{flag}" for flag in _JAVA_RUNTIME), f"{cls}.java"]
        return Step({f"{cls}.java": source}, build, ["java", *_JAVA_RUNTIME, "-cp", ".", cls])


class JavaScript(ProgramLanguage):
    def step(self, code: str, test: str | None) -> Step:
        return Step({"main.js": _joined(code, test)}, None, ["node", "--max-old-space-size=256", "main.js"])


class Go(ProgramLanguage):
    def step(self, code: str, test: str | None) -> Step:
        package = re.compile(r"^\s*package\s+\w+", re.MULTILINE)
        if not package.search(code):
            code = "package main\n\n" + code
        if test is None:
            return Step({"main.go": code}, ["go", "build", "-o", "main", "main.go"], ["./main"])
        if re.search(r"func\s+Test\w*\s*\(\s*\w+\s+\*testing\.T\s*\)", test):  # `go test` style
            return Step(
                {"solution.go": code, "solution_test.go": test},
                ["go", "test", "-c", "-o", "main", "solution.go", "solution_test.go"],
                ["./main"],
            )
        # A test program: a second file of the same package, with its own imports.
        if not package.search(test):
            test = "package main\n\n" + test
        return Step({"main.go": code, "test.go": test}, ["go", "build", "-o", "main", "main.go", "test.go"], ["./main"])


class Rust(ProgramLanguage):
    def step(self, code: str, test: str | None) -> Step:
        source = _joined(code, test)
        build = ["rustc", "--edition", "2021", "-O", "-C", "strip=debuginfo", "-o", "main", "main.rs"]
        if re.search(r"#\[test\]", source):  # tests in the built-in harness: the test binary exits 0 when all pass
            build.insert(1, "--test")
        return Step({"main.rs": source}, build, ["./main"])


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
