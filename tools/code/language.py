"""Languages `run_code` can run: the protocol (find a candidate's code; turn code plus tests into a program whose
report names each test case), the registry, and what the languages share (code fences, the report, the driver
that builds and runs programs). Each language is a module of `tools/code/languages/` (`python.py`, `c.py`, ...):
adding a language is one module there; the tools do not change."""

from __future__ import annotations

import html
import json
import re
import secrets
import textwrap
from dataclasses import dataclass, replace
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

_FENCE = re.compile(r"(```|~~~)([\w+#-]*)[^\n]*\n(.*?)\1", re.DOTALL)
"""A fenced code block, backticks or tildes (CommonMark's two fences): (fence, tag, body)."""


_HTML_CODE = re.compile(r"<pre\b[^>]*>\s*(?:<code\b[^>]*>)?(.*?)(?:</code>\s*)?</pre>", re.DOTALL | re.IGNORECASE)
"""HTML's preformatted code (`<pre><code>...</code></pre>`): untagged, its entities read."""
_INDENTED = re.compile(r"(?:^|\n[ \t]*\n)((?:(?: {4}|\t)[^\n]*(?:\n|$)|[ \t]*\n)+)")
"""Markdown's indented code block: lines indented four spaces or a tab, after a blank line (or at the start)."""


def fenced_blocks(text: str, tags: tuple[str, ...]) -> list[str]:
    """Code blocks tagged with one of `tags` (or untagged); where the response fences none, its HTML `<pre>`
    blocks, which readers see as code too (untagged)."""
    fenced = _FENCE.findall(text)
    if fenced:
        return [body for _, tag, body in fenced if tag.lower() in tags or tag == ""]
    return [b for b in (html.unescape(body) for body in _HTML_CODE.findall(text)) if b.strip()]


def any_blocks(text: str) -> list[str]:
    """Every fenced block whatever its tag, and every HTML `<pre>` block: what a reader sees set apart as code."""
    return [body for _, _, body in _FENCE.findall(text)] + [html.unescape(b) for b in _HTML_CODE.findall(text)]


def fence_tags_of(text: str) -> list[str]:
    """The tag of each fenced block, in order ("" for an untagged one)."""
    return [tag for _, tag, _ in _FENCE.findall(text)]


def indented_blocks(text: str) -> list[str]:
    """Markdown's indented code blocks after prose, dedented: what a response that neither fences nor writes bare
    code shows as code (looked for last: a bare function's body is indented too, and a response that opens
    indented is a completion's body, which the prompt's code opens)."""
    after_prose = (m.group(1) for m in _INDENTED.finditer(text) if text[: m.start()].strip())
    blocks = (textwrap.dedent(body.expandtabs(4)).strip("\n") for body in after_prose)
    return [b + "\n" for b in blocks if b.strip()]


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
    for _, tag, _ in _FENCE.findall(text):
        if tag:
            try:
                return language_named(tag)
            except KeyError:
                continue
    return None


def new_nonce() -> str:
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


def run_summary(head: str, load_error: str | None, failures: list[str]) -> str:
    """A run as the model reads it: `head`, why the code failed to load where it did, then the cases that did not
    pass (as many as fit in twelve lines)."""
    if load_error:
        head += f"; the code failed to load: {load_error}"
    return "\n".join([head, *failures][:12])


# ---------------------------------------------------------------- programs run by the driver

IN_SANDBOX = Path(__file__).parents[1] / "in_sandbox"
"""The programs that run inside the sandbox, as source files (`tools/in_sandbox/`): the stdin driver, Python's
harness and candidate server, each language's test runner."""


def sandbox_source(name: str) -> str:
    """The text of one sandbox-side program (`tools/in_sandbox/<name>`)."""
    return (IN_SANDBOX / name).read_text()


_DRIVER = sandbox_source("stdio_driver.py")
BUILD_TIMEOUT_S = 60.0
"""A build's own time limit (javac and rustc take seconds on a loaded machine)."""
MAX_WALL_S = 170.0
"""A whole run's wall-clock cap, however many cases (`run_code`'s and `run_examples`' own timeouts are above it)."""


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
    record: bool = False
    """A test program whose runner (`in_sandbox/`) writes a completion token: the case passes only with it."""
    secret: tuple[str, ...] = ()
    """Sources that hold the token, deleted once built."""
    runtime_libraries: tuple[str, ...] = ()
    """Shared libraries (C, C++, Rust) none of whose exported symbols the built program (`run`'s executable) may
    define: the driver fails a build that does (a candidate's `memcmp` would take the library's place in every
    call the test makes, and in those its library code makes inline: `std::string`'s `==`, Rust's `assert_eq!`)."""


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
    nonce = new_nonce()
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
        "steps": [
            {
                "sources": st.sources,
                "build": st.build,
                "run": st.run,
                "record": st.record,
                "secret": list(st.secret),
                "runtime_libraries": list(st.runtime_libraries),
            }
            for st in steps
        ],
        "cases": cases,
        "build_timeout": BUILD_TIMEOUT_S,
        "case_timeout": case_timeout_s,
        "failure_marker": failure_marker,
        "run_address_space": run_memory_mb * 1024 * 1024,
    }
    builds = len({c["step"] for c in cases})
    # Each build gets its whole time limit inside the wall: a run killed before its build ended reports nothing,
    # and a build an answer makes slow is the answer's doing (the build fails), never an unreported run.
    wall = min(MAX_WALL_S, 5.0 + builds * BUILD_TIMEOUT_S + len(cases) * case_timeout_s)
    return Program(
        files={"driver.py": _DRIVER, ".judgegraph-run.json": json.dumps(spec)},
        command=["python3", "-I", "driver.py"],
        cases=shown,
        nonce=nonce,
        limits=limits.model_copy(update={"wall_s": wall, "cpu_s": int(wall) + 1}),
    )


def capturing(program: Program, stop_after_timeouts: int | None = None) -> Program:
    """A driver program whose stdin cases report what the program printed instead of comparing it (the judge
    compares outside the sandbox: statement examples, differential testing). Each case's message is then its
    output; a case that exits non-zero is an `error`. After `stop_after_timeouts` timeouts the other cases
    are `not_run`."""
    spec = json.loads(program.files[".judgegraph-run.json"])
    spec["stop_after_timeouts"] = stop_after_timeouts
    for case in spec["cases"]:
        if "input" in case:
            case["capture"] = True
    return replace(program, files={**program.files, ".judgegraph-run.json": json.dumps(spec)})
