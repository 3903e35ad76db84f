"""Go: built with `go build` (or `go test -c` for `testing` tests); test programs run from the record runner;
LeetCode-style calls of a function, arguments written as the declared types, values read back as JSON."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from judgegraph.tools.code.language import Step, languages, sandbox_source
from judgegraph.tools.code.languages._base import RUNTIME_LIMITS, ProgramLanguage, runner_source, split_params
from judgegraph.tools.code.languages._test_names import GO_LITERALS, go_defined, renamed
from judgegraph.tools.code.languages._values import (
    c_char,
    c_scalar,
    call_on_locals,
    declared_locals,
    generic_in,
    natural_types,
    spelling,
)

GO_PREDECLARED = frozenset(
    """
    append cap close complex copy delete imag len make new panic print println real recover bool byte
    comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16
    uint32 uint64 uintptr any true false iota nil
    """.split()
)
"""Go's predeclared identifiers (1.19's, the toolchain here: `max`, `min` and `clear` came later, and answers
define their own): a package-level declaration of one shadows it in the test's file too."""


class Go(ProgramLanguage):
    runtime_names = GO_PREDECLARED
    declares = re.compile(r"^[ \t]*(?:func|var|const|type)[ \t]+(\w+)", re.MULTILINE)

    def redefinition(self, name: str) -> str:
        return f"func {name}() {{}}"

    signature = re.compile(r"\bfunc\s+(\w+)\s*(?:\[[^\]]*\])?\s*\(([^()]*)\)")
    """A function, its type parameters (`func addTwo[T int | int64](a, b T) T`) passed over."""
    """A Go function (a method, `func (s *T) f(...)`, is not: its receiver comes first)."""
    build_error_line = re.compile(r"^\S*?main\.go:(\d+):\d+:", re.M)
    """Go reports every error with its line (`main.go:12:5: ...`)."""
    aliases = (re.compile(r"^[ \t]*type[ \t]+(?P<name>\w+)[ \t]*=[ \t]*(?P<type>[^\n;]+?)[ \t]*$", re.M),)
    """An alias (`type I = int`): a defined type (`type I int`) is a type of its own, not written as `int`."""

    def call_runner(self, code: str, name: str, calls: Sequence[tuple[object, ...]]) -> str | None:
        return _go(code, name, calls)

    def natural_runner(self, code: str, name: str, calls: Sequence[tuple[object, ...]]) -> str | None:
        return _go(code, name, calls, natural=True)

    def placed_answer(self, code: str) -> str:
        return _go_answer(code)

    def step(self, code: str, test: str | None) -> Step:
        package = re.compile(r"^\s*package\s+\w+", re.MULTILINE)
        if not package.search(code):
            code = "package main\n\n" + code
        if test is None:
            return Step({"main.go": code}, ["go", "build", "-o", "main", "main.go"], ["./main"])
        if re.search(r"func\s+Test\w*\s*\(\s*\w+\s+\*testing\.T\s*\)", test):  # `go test` style
            files = ["solution.go", "solution_test.go"]
            # The test's own names, spelled with the build's secret key: none the answer can write
            test = renamed(test, go_defined(test), GO_LITERALS, go=True)
            sources = {"solution.go": code, "solution_test.go": test}
            if re.search(r"func\s+TestMain\s*\(", test):  # the test's own TestMain: its exit status decides
                return Step(sources, ["go", "test", "-c", "-o", "main", *files], ["./main"], secret=tuple(sources))
            named = package.search(test) or package.search(code)
            name = named.group().split()[-1] if named else "main"
            sources["jg_runner_test.go"] = runner_source("record_runner_test.go").replace("__JG_PACKAGE__", name)
            sources["jg_record.go"] = runner_source("record.go").replace("__JG_PACKAGE__", name)
            build = ["go", "test", "-c", "-o", "main", *files, "jg_runner_test.go", "jg_record.go"]
            return Step(sources, build, ["./main"], record=True, secret=tuple(sources))
        # A test program: a second file of the same package, with its own imports; its main runs from the runner.
        if not package.search(test):
            test = "package main\n\n" + test
        test = re.sub(r"\bfunc\s+main\s*\(\s*\)", "func jgTestMain()", test, count=1)
        test = renamed(test, go_defined(test), GO_LITERALS, go=True)
        sources = {
            "main.go": code,
            "test.go": test,
            "jg_runner.go": runner_source("record_runner.go"),
            "jg_record.go": runner_source("record.go").replace("__JG_PACKAGE__", "main"),
        }
        build = ["go", "build", "-o", "main", "main.go", "test.go", "jg_runner.go", "jg_record.go"]
        return Step(sources, build, ["./main"], record=True, secret=tuple(sources))


_GO_ENV = {"CGO_ENABLED": "0", "GO111MODULE": "off", "GOFLAGS": "-p=1", "GOTOOLCHAIN": "local"}


_GO_INTEGER = re.compile(r"u?int(?:8|16|32|64)?|uintptr")


def _go_value(t: str, v: object) -> str | None:
    t = t.replace(" ", "")
    if t.startswith("[]"):
        if not isinstance(v, list | tuple):
            return None
        items = [_go_value(t[2:], x) for x in v]
        return None if None in items else f"{t}{{{', '.join(items)}}}"  # type: ignore[arg-type]
    if t in ("byte", "rune"):
        return c_char(v) if isinstance(v, str) and len(v) == 1 else None
    if t == "string":
        return json.dumps(v, ensure_ascii=False) if isinstance(v, str) else None
    if t == "bool":
        return c_scalar("bool", v, "")
    if _GO_INTEGER.fullmatch(t):
        return c_scalar("int", v, "")
    return c_scalar("real", v, "") if t in ("float64", "float32") else None


def _go_chars(t: str) -> str:
    """`true` where a Go type's innermost element is a character (`byte`, `rune`): printed as a string, as the
    statement writes it, not as the number Go holds."""
    return "true" if t.replace(" ", "").lstrip("[]") in ("byte", "rune") else "false"


def _go_printable(t: str) -> bool:
    t = t.replace(" ", "").lstrip("[]")
    return t in ("bool", "string", "byte", "rune", "float64", "float32") or _GO_INTEGER.fullmatch(t) is not None


_GO_IMPORT = re.compile(r'^\s*import\s*(?:\(([^)]*)\)|(\w+\s+)?("[^"]+"))', re.MULTILINE)


_GO_JSON = sandbox_source("call_json.go")


def _go_answer(code: str) -> str:
    """The answer without its package clause and imports (the runner writes one import block for both), its own
    `main` renamed."""
    code = re.sub(r"^\s*package\s+\w+\s*$", "", code, flags=re.MULTILINE)
    code = _GO_IMPORT.sub("", code)
    return re.sub(r"\bfunc\s+main\s*\(", "func jgAnswerMain(", code)


def _go_imports(code: str) -> list[str]:
    out = []
    for m in _GO_IMPORT.finditer(code):
        if m.group(1) is not None:
            out += [line.strip() for line in m.group(1).splitlines() if line.strip()]
        else:
            out.append(((m.group(2) or "") + m.group(3)).strip())
    return out


def _go_types(params: str) -> list[str]:
    """Each parameter's type; `a, b int` gives both `int`."""
    types: list[str | None] = []
    for p in split_params(params):
        parts = p.split(None, 1)
        types.append(parts[1].strip() if len(parts) == 2 else None)
    for i in range(len(types) - 2, -1, -1):
        if types[i] is None:
            types[i] = types[i + 1]
    return [t or "" for t in types]


_GO_TOKEN = sandbox_source("call_token.go")
"""The build's token that starts the report line (spelled by the driver, under a name the answer cannot know)."""


_GO_WORDS = frozenset(
    "interface any int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 float32 float64 string bool byte "
    "rune".split()
)
"""What a Go type the judge writes as the statement's value may name, beside the answer's own types."""
_GO_SPELL = spelling(
    {"bool": "bool", "int": "int", "long": "int", "real": "float64", "string": "string"}, lambda element: f"[]{element}"
)


def _go(code: str, name: str, calls: Sequence[tuple[object, ...]], natural: bool = False) -> str | None:
    generics = r"(?:\[[^\]]*\])?" if natural else ""  # `func addTwo[T int | int64](...)`: the values infer T
    m = re.search(rf"\bfunc\s+{re.escape(name)}\s*{generics}\s*\(([^()]*)\)\s*([^{{]*?)\s*\{{", code)
    if m is None:
        return None
    types, returns = _go_types(m.group(1)), m.group(2).strip()
    if natural:
        declared_as = types
        generic = generic_in(code, _GO_WORDS)
        if (types := natural_types(types, calls, _go_value, _GO_SPELL, generic)) is None:  # type: ignore[assignment]
            return None
    elif returns and not _go_printable(returns):
        return None
    declared = declared_locals(types, calls, _go_value, "var a{i} {t} = {v}")
    if declared is None:
        return None
    if natural:  # a number, truth value or string goes as an untyped constant: a defined type (`type I int`) or a
        # type parameter takes it, as it takes the literal the statement writes
        scalar = [i for i, (t, d) in enumerate(zip(types, declared_as, strict=True)) if t != d and "[" not in t]
        for lines in declared:
            for i in scalar:
                lines[i] = re.sub(rf"^var a{i} \S+ = ", f"const a{i} = ", lines[i])
    call = call_on_locals(name, len(types))
    cases = []
    for k, lines in enumerate(declared):
        lines.append(f"jgR := {call}" if returns else call)
        value = f"jgJSON(jgR, {_go_chars(returns)})" if returns else '"null"'
        first = f"jgJSON(a0, {_go_chars(types[0])})" if types else '"null"'
        lines.append(f'fmt.Printf("\\n%s{{\\"value\\":%s,\\"first\\":%s}}\\n", __JG_KEY___token(), {value}, {first})')
        cases.append(f"\tcase {k}:\n\t\t" + "\n\t\t".join(lines))
    imports = dict.fromkeys(['"encoding/json"', '"fmt"', '"math"', '"reflect"', '"regexp"', *_go_imports(code)])
    return (
        "package main\n\nimport (\n" + "".join(f"\t{i}\n" for i in imports) + ")\n\n"
        f"{_go_answer(code)}\n{_GO_JSON}\n{_GO_TOKEN}\n"
        "func main() {\n\tvar jgCase int\n\tfmt.Scan(&jgCase)\n\tswitch jgCase {\n" + "\n".join(cases) + "\n\t}\n}\n"
    )


languages.register(
    "go",
    Go(
        "go",
        ("go", "golang"),
        re.compile(r"\s*(package|import|func|type|var|const)\b"),
        re.compile(r"func\s+main\s*\("),
        RUNTIME_LIMITS,
        1024,
        _GO_ENV,
    ),
)
