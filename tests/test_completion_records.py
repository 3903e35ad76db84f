"""A function-style test in C, C++, Java, JavaScript, Go or Rust passes only on a completion record from the test's
own `main` returning (`tools/in_sandbox/`): a candidate that exits 0 before the checks (at load, in a static
initialiser or constructor, in the call), renames `main` with a macro, replaces the assertion library or forges
the record earns nothing. Each attack sits beside a wrong answer that the test's checks would fail, on both
sandboxes; the honest answers pass (tests/test_languages.py)."""

from __future__ import annotations

from typing import Any

import pytest

from judgegraph.schema import JudgeRequest, ToolCall
from judgegraph.tools import ToolContext, ToolServices, call_tool

C_TEST = "#include <assert.h>\nint main(void) {\n    assert(add(2, 3) == 5);\n    return 0;\n}"
CPP_TEST = "#include <cassert>\nint main() {\n    assert(add(2, 3) == 5);\n}"
JAVA_TEST = (
    "public class Main {\n    public static void main(String[] args) {\n"
    "        if (new Solution().add(2, 3) != 5) throw new AssertionError();\n    }\n}"
)
JS_TEST = "const assert = require('node:assert');\nassert.strictEqual(add(2, 3), 5);"
GO_TEST = 'import "os"\n\nfunc main() {\n\tif add(2, 3) != 5 {\n\t\tos.Exit(1)\n\t}\n}'
GO_TESTING = 'package main\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif add(2, 3) != 5 {\n\t\tt.Fatal("add")\n\t}\n}'
RUST_TEST = "fn main() {\n    assert_eq!(add(2, 3), 5);\n}"
RUST_TESTS = "#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 3), 5);\n    }\n}"
FORGE_C = (
    "#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n#include <stdio.h>\n"
    'int add(int a, int b) {\n    const char *fd = getenv("JG_RECORD_FD");\n'
    '    if (fd) write(atoi(fd), "00112233445566778899aabbccddeeff", 32);\n'
    '    printf("all tests passed\\n");\n    exit(0);\n}\n'
)

ATTACKS: list[tuple[str, str, str, str]] = [
    # (language, attack, candidate's code, test)
    ("c", "exit in the call", "#include <stdlib.h>\nint add(int a, int b) { exit(0); }", C_TEST),
    (
        "c",
        "constructor exits at load",
        "#include <stdlib.h>\n__attribute__((constructor)) static void early(void) { exit(0); }\n"
        "int add(int a, int b) { return 0; }",
        C_TEST,
    ),
    (
        "c",
        "main renamed by a macro",
        "int add(int a, int b) { return 0; }\nint main(void) { return 0; }\n#define main not_the_tests_main",
        C_TEST,
    ),
    ("c", "assert replaced by a macro", "int add(int a, int b) { return 0; }\n#define assert(x) ((void)0)", C_TEST),
    ("c", "NDEBUG defined", "#define NDEBUG 1\nint add(int a, int b) { return 0; }", C_TEST),
    (
        "c",
        "the assertion library's failure handler replaced",
        "void __assert_fail(const char *a, const char *b, unsigned int c, const char *d) {}\n"
        "int add(int a, int b) { return 0; }",
        C_TEST,
    ),
    ("c", "a forged completion record", FORGE_C, C_TEST),
    (
        "cpp",
        "a static initialiser exits",
        "#include <cstdlib>\nstatic int early = (std::exit(0), 0);\nint add(int a, int b) { return 0; }",
        CPP_TEST,
    ),
    ("cpp", "exit in the call", "#include <cstdlib>\nint add(int a, int b) { std::exit(0); }", CPP_TEST),
    ("cpp", "assert replaced by a macro", "int add(int a, int b) { return 0; }\n#define assert(x) (void)(x)", CPP_TEST),
    (
        "java",
        "a static initialiser exits",
        "class Solution {\n    static { System.exit(0); }\n    public int add(int a, int b) { return 0; }\n}",
        JAVA_TEST,
    ),
    (
        "java",
        "halt in the call",
        "class Solution {\n    public int add(int a, int b) { Runtime.getRuntime().halt(0); return 0; }\n}",
        JAVA_TEST,
    ),
    ("javascript", "exit at load", "const add = (a, b) => 0;\nprocess.exit(0);", JS_TEST),
    ("javascript", "exit in the call", "function add(a, b) { process.exit(0); }", JS_TEST),
    (
        "javascript",
        "the assertion library replaced",
        "const a = require('node:assert');\na.strictEqual = () => {};\nObject.defineProperty(a, 'strictEqual', "
        "{ value: () => {} });\nfunction add(a, b) { return 0; }",
        JS_TEST,
    ),
    (
        "javascript",
        "require replaced",
        "require = () => ({ strictEqual() {} });\nfunction add(a, b) { return 0; }",
        JS_TEST,
    ),
    (
        "javascript",
        "beforeExit emitted, then exit",
        "function add(a, b) { process.emit('beforeExit', 0); process.exit(0); }",
        JS_TEST,
    ),
    (
        "javascript",
        "a failure swallowed",
        "process.on('uncaughtException', () => process.exit(0));\nfunction add(a, b) { return 0; }",
        JS_TEST,
    ),
    (
        "go",
        "init exits",
        'import "os"\n\nfunc init() { os.Exit(0) }\n\nfunc add(a int, b int) int { return 0 }',
        GO_TEST,
    ),
    ("go", "exit in the call", 'import "os"\n\nfunc add(a int, b int) int { os.Exit(0); return 0 }', GO_TEST),
    (
        "go",
        "init exits before go test",
        'package main\n\nimport "os"\n\nfunc init() { os.Exit(0) }\n\nfunc add(a int, b int) int { return 0 }\n\nfunc main() {}',
        GO_TESTING,
    ),
    ("rust", "exit in the call", "fn add(_a: i32, _b: i32) -> i32 { std::process::exit(0) }", RUST_TEST),
    (
        "rust",
        "an init array entry exits",
        '#[used]\n#[link_section = ".init_array"]\nstatic EARLY: extern "C" fn() = {\n'
        '    extern "C" fn early() { std::process::exit(0) }\n    early\n};\n'
        "fn add(_a: i32, _b: i32) -> i32 { 0 }",
        RUST_TEST,
    ),
    (
        "rust",
        "a test of its own sorted last exits",
        "fn add(_a: i32, _b: i32) -> i32 { 0 }\n#[test]\nfn zzzzzzzzzzzzzzzzzzzzzzzzzz() { std::process::exit(0) }",
        RUST_TESTS,
    ),
]


async def _run(services: ToolServices, language: str, code: str, test: str) -> dict[str, Any]:
    request = JudgeRequest.model_validate(
        {"id": "r", "mode": "pointwise", "prompt": "p", "candidates": [code], "tests": [test], "language": language}
    )
    result = await call_tool(
        ToolCall(name="run_code", arguments={"candidate": 0}), ToolContext(request=request, services=services)
    )
    assert result.ok and result.data is not None, result.error
    return dict(result.data)


@pytest.mark.parametrize(("language", "attack", "code", "test"), ATTACKS, ids=[f"{a[0]}: {a[1]}" for a in ATTACKS])
async def test_an_attack_on_the_test_program_earns_nothing(
    services: ToolServices, language: str, attack: str, code: str, test: str
) -> None:
    data = await _run(services, language, code, test)
    assert not data["all_passed"] and data["cases"][0]["status"] in ("failed", "error"), (attack, data["cases"])


async def test_a_test_that_returns_from_main_without_a_return_statement_passes(services: ToolServices) -> None:
    """The test's `main` runs as another function, which returns 0 by falling off its end only because the
    runner's build adds the `return 0;` that `main` has implicitly."""
    code = "int add(int a, int b) { return a + b; }"
    test = '#include <assert.h>\n/* } in a comment */\nint main(void) {\n    const char *s = "}";\n    assert(add(2, 3) == 5);\n}'
    for language in ("c", "cpp"):
        data = await _run(services, language, code, test)
        assert data["all_passed"], (language, data["cases"])
