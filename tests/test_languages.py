"""`run_code` in every language: finding the code as models write it, stdin/stdout cases compared the way
competitive-programming judges compare, test programs built with the code, the dataset shapes that carry them,
and whole judgments on both sandbox backends."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from benchmarks.fake_openai import FakeOpenAI
from judgegraph import Judge
from judgegraph.schema import IOTest, JudgeRequest, ToolCall
from judgegraph.tools import ToolContext, ToolServices, call_tool, language_named, languages
from judgegraph.tools.code.languages.java import java_main_class

ROOT = Path(__file__).resolve().parent.parent


def _driver() -> ModuleType:
    spec = importlib.util.spec_from_file_location("stdio_driver", ROOT / "tools" / "in_sandbox" / "stdio_driver.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DRIVER = _driver()

# Read two integers, print their sum: a correct and a wrong program per language.
SUM = {
    "python": "a, b = map(int, input().split())\nprint(a + b)\n",
    "c": '#include <stdio.h>\nint main(void) {\n    long a, b;\n    scanf("%ld %ld", &a, &b);\n    printf("%ld\\n", a + b);\n}\n',
    "cpp": "#include <iostream>\nint main() {\n    long long a, b;\n    std::cin >> a >> b;\n    std::cout << a + b << '\\n';\n}\n",
    "java": (
        "import java.util.Scanner;\n\npublic class Adder {\n    public static void main(String[] args) {\n"
        "        Scanner in = new Scanner(System.in);\n        long a = in.nextLong(), b = in.nextLong();\n"
        "        System.out.println(a + b);\n"
        "    }\n}\n"
    ),
    "javascript": (
        'const [a, b] = require("fs").readFileSync(0, "utf8").trim().split(/\\s+/).map(Number);\nconsole.log(a + b);\n'
    ),
    "go": 'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar a, b int64\n\tfmt.Scan(&a, &b)\n\tfmt.Println(a + b)\n}\n',
    "rust": (
        "use std::io::Read;\n\nfn main() {\n    let mut s = String::new();\n    std::io::stdin().read_to_string(&mut s).unwrap();\n"
        "    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();\n"
        '    let (a, b) = (v[0], v[1]);\n    println!("{}", a + b);\n}\n'
    ),
}
WRONG = {lang: code.replace("a + b", "a * b") for lang, code in SUM.items()}
assert all(WRONG[lang] != SUM[lang] for lang in SUM)
SUM_TESTS = [
    {"input": "2 3\n", "output": "5\n"},
    {"input": "10 -4", "output": "6"},
    {"input": "2 2\n", "output": "4  \n\n"},  # trailing spaces and blank lines do not count
]
FENCE = {"python": "python", "c": "c", "cpp": "cpp", "java": "java", "javascript": "js", "go": "go", "rust": "rust"}

# A test program per language, as HumanEvalPack and MultiPL-E write them: the code defines `add`; the test
# program exits 0 when every check holds.
ADD = {
    "c": ("int add(int a, int b) { return a + b; }", "#include <assert.h>\nint main(void) { assert(add(2, 3) == 5); }"),
    "cpp": (
        "int add(int a, int b) { return a + b; }",
        "#undef NDEBUG\n#include <cassert>\nint main() { assert(add(2, 3) == 5); assert(add(-1, 1) == 0); }",
    ),
    "java": (
        "import java.util.*;\n\nclass Solution {\n    public int add(int a, int b) { return a + b; }\n}",
        "public class Main {\n    public static void main(String[] args) {\n        Solution s = new Solution();\n"
        "        List<Integer> got = Arrays.asList(s.add(2, 3), s.add(-1, 1));\n"
        "        if (!got.equals(Arrays.asList(5, 0))) throw new AssertionError();\n    }\n}",
    ),
    "javascript": (
        "const add = (a, b) => a + b;",
        "const assert = require('node:assert');\nassert.deepEqual(add(2, 3), 5);\nconsole.assert(add(-1, 1) === 0);",
    ),
    "go": (
        "func add(a int, b int) int {\n\treturn a + b\n}",
        'import "os"\n\nfunc main() {\n\tif add(2, 3) != 5 {\n\t\tos.Exit(1)\n\t}\n}',
    ),
    "rust": (
        "fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\nfn main() {}",
        "#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 3), 5);\n    }\n}",
    ),
}
GO_TESTING = (
    "package main\n\nfunc add(a int, b int) int {\n\treturn a + b\n}\n\nfunc main() {}\n",
    'package main\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif add(2, 3) != 5 {\n\t\tt.Fatal("add")\n\t}\n}\n',
)


# ---------------------------------------------------------------- finding the code


def test_languages_are_found_by_name_fence_tag_or_usual_alias() -> None:
    assert set(languages) == {"python", "c", "cpp", "java", "javascript", "go", "rust"}
    for alias, name in {"c++": "cpp", "CPP": "cpp", "js": "javascript", "node": "javascript", "rs": "rust"}.items():
        assert language_named(alias).name == name
    with pytest.raises(KeyError, match="no language 'cobol'; known: c, cpp, go"):
        language_named("cobol")


@pytest.mark.parametrize("lang", sorted(set(SUM) - {"python"}))
def test_code_is_found_fenced_or_bare_with_prose_around_it(lang: str) -> None:
    language = language_named(lang)
    code = SUM[lang].strip()
    fenced = f"Here is the program:\n\n```{FENCE[lang]}\n{code}\n```\n\nIt reads both numbers."
    assert language.extract(fenced, None).strip() == code  # type: ignore[union-attr]
    bare = f"Sure! The idea is simple.\n\n{code}\n\nThis runs in O(1)."
    assert language.extract(bare, None) == code
    # Several blocks: an example of use before the program; the one with the entry point is the program.
    several = f"Input:\n```\n2 3\n```\nSolution:\n```{FENCE[lang]}\n{code}\n```"
    assert language.extract(several, None).strip() == code  # type: ignore[union-attr]
    assert language.extract("I cannot help with that.", None) is None


def test_the_java_class_to_run_is_the_public_one_else_the_one_with_main() -> None:
    assert java_main_class(SUM["java"]) == "Adder"
    assert java_main_class("class Helper {}\nclass Prog {\n  static void main(String[] a) {}\n}") == "Prog"
    assert java_main_class("interface X {}") == "Main"


# ---------------------------------------------------------------- comparing output


@pytest.mark.parametrize(
    ("expected", "got", "tolerance", "same"),
    [
        ("5\n", "5", None, True),
        ("1 2\n3\n", "1 2  \r\n3\r\n\r\n", None, True),  # line ends, trailing spaces, trailing blank lines
        ("1 2\n3\n", "1  2\n3\n", None, False),  # spaces inside a line count
        ("1 2 3", "1\n2\n3", None, False),
        ("YES", "yes", None, False),
        ("0.333333", "0.3333331", 1e-6, True),
        ("0.333333", "0.3334", 1e-6, False),
        ("1000000", "1000000.5", 1e-6, True),  # relative error for large numbers
        ("1 2", "1 2\n\n", 1e-6, True),
        ("1 2", "1 2 3", 1e-6, False),
        ("nan", "nan", 1e-6, True),  # the same token
        ("1.0", "nan", 1e-6, False),
        ("ok 1.5", "OK 1.5", 1e-6, False),
    ],
)
def test_output_is_compared_as_competitive_programming_judges_do(
    expected: str, got: str, tolerance: float | None, same: bool
) -> None:
    assert DRIVER.same_output(expected, got, tolerance) is same


# ---------------------------------------------------------------- dataset shapes


def test_competitive_programming_rows_load_their_stdin_stdout_cases() -> None:
    apps = JudgeRequest.model_validate(
        {
            "problem_id": 4001,
            "question": "Print the sum.",
            "input_output": json.dumps({"inputs": ["1 2\n", ["3", "4"]], "outputs": ["3\n", ["7"]]}),
            "solutions": json.dumps(["print(sum(map(int, open(0).read().split())))"]),
            "response": "print(3)",
        }
    )
    assert apps.id == "4001" and apps.prompt == "Print the sum."
    assert apps.tests == [IOTest(input="1 2\n", output="3\n"), IOTest(input="3\n4", output="7")]
    assert "input_output" not in apps.metadata and "solutions" in apps.metadata
    call_based = JudgeRequest.model_validate(
        {
            "problem_id": 1,
            "question": "f",
            "input_output": json.dumps({"fn_name": "f", "inputs": [[1]], "outputs": [2]}),
        }
        | {"response": "x"}
    )
    assert call_based.tests == [] and "input_output" in call_based.metadata  # not stdin/stdout: left alone
    contests = JudgeRequest.model_validate(
        {
            "name": "1A. Theatre Square",
            "description": "Count the flagstones.",
            "public_tests": {"input": ["6 6 4\n"], "output": ["4\n"]},
            "private_tests": {"input": ["1 1 1\n"], "output": ["1\n"]},
            "generated_tests": None,
            "chosen": "a",
            "rejected": "b",
            "language": "cpp",
        }
    )
    assert [t.output for t in contests.tests if isinstance(t, IOTest)] == ["4\n", "1\n"]
    assert contests.language == "cpp" and contests.metadata == {"name": "1A. Theatre Square"}
    live = JudgeRequest.model_validate(
        {
            "question_id": "abc301_a",
            "question_content": "Who won?",
            "public_test_cases": json.dumps(
                [{"input": "5\nTTAAT\n", "output": "T\n", "testtype": "stdin"}, {"testtype": "functional"}]
            ),
            "response": "x",
        }
    )
    assert live.id == "abc301_a" and live.tests == [IOTest(input="5\nTTAAT\n", output="T\n")]


def test_stdin_stdout_cases_are_checked_like_the_rest_of_a_request() -> None:
    with pytest.raises(ValueError, match="tolerance"):
        JudgeRequest.model_validate(
            {"id": "x", "prompt": "p", "candidates": ["a", "b"]} | {"tests": [{"output": "1", "tolerance": -1}]}
        )
    with pytest.raises(ValueError, match="output"):
        JudgeRequest.model_validate({"id": "x", "prompt": "p", "candidates": ["a", "b"], "tests": [{"input": "1"}]})


# ---------------------------------------------------------------- running, on both backends


async def _run(services: ToolServices, request: dict[str, Any], candidate: int = 0) -> dict[str, Any]:
    ctx = ToolContext(request=JudgeRequest.model_validate({"id": "r", "prompt": "p"} | request), services=services)
    result = await call_tool(ToolCall(name="run_code", arguments={"candidate": candidate}), ctx)
    assert result.ok, result.error
    assert result.data is not None
    return {"text": result.text, **result.data}


@pytest.mark.parametrize("lang", sorted(SUM))
async def test_each_language_runs_stdin_stdout_cases(services: ToolServices, lang: str) -> None:
    good, bad = f"```{FENCE[lang]}\n{SUM[lang]}```", f"```{FENCE[lang]}\n{WRONG[lang]}```"
    # No `language` field: each response's fence says.
    data = await _run(services, {"candidates": [good, bad], "tests": SUM_TESTS}, 0)
    assert data["language"] == lang and data["all_passed"] and data["passed"] == 3, data["text"]
    data = await _run(services, {"candidates": [good, bad], "tests": SUM_TESTS}, 1)
    assert [c["status"] for c in data["cases"]] == ["failed", "failed", "passed"], data["text"]
    assert 'expected "5\\n", got "6\\n"' in data["cases"][0]["message"]


@pytest.mark.parametrize("lang", sorted(ADD))
async def test_each_language_builds_its_test_programs_with_the_code(services: ToolServices, lang: str) -> None:
    code, test = ADD[lang]
    data = await _run(services, {"candidates": [code, "x"], "tests": [test], "language": lang})
    assert data["all_passed"] and data["total"] == 1, data["text"]
    broken = code.replace("a + b", "a - b")
    data = await _run(services, {"candidates": [broken, "x"], "tests": [test], "language": lang})
    assert data["cases"][0]["status"] == "failed" and not data["all_passed"], data["text"]


async def test_go_tests_in_the_testing_package_run_with_go_test(services: ToolServices) -> None:
    code, test = GO_TESTING
    data = await _run(services, {"candidates": [code, "x"], "tests": [test], "language": "go"})
    assert data["all_passed"], data["text"]
    data = await _run(services, {"candidates": [code.replace("a + b", "a"), "x"], "tests": [test], "language": "go"})
    assert not data["all_passed"] and "FAIL" in data["cases"][0]["message"], data["text"]


async def test_build_errors_runtime_errors_timeouts_and_tolerance_are_reported(services: ToolServices) -> None:
    cases = [{"input": "1 2", "output": "0.333333"}, {"input": "2 3", "output": "0.666667", "tolerance": 1e-4}]
    divide = '#include <stdio.h>\nint main(void) { double a, b; scanf("%lf %lf", &a, &b); printf("%.7f\\n", a / b); }'
    data = await _run(services, {"candidates": [divide, "x"], "tests": cases, "language": "c"})
    assert [c["status"] for c in data["cases"]] == ["failed", "passed"], data["text"]
    data = await _run(services, {"candidates": ["int main(void) { return x; }", "x"], "tests": cases, "language": "c"})
    assert data["load_error"] and "build failed" in str(data["load_error"]) and data["passed"] == 0
    crash = "#include <stdlib.h>\nint main(void) { abort(); }"
    data = await _run(services, {"candidates": [crash, "x"], "tests": cases[:1], "language": "c"})
    assert data["cases"][0]["status"] == "error" and "signal 6" in data["cases"][0]["message"]
    hog = "#include <stdlib.h>\n#include <string.h>\nint main(void) { char *p = malloc(1 << 30); if (!p) return 1; memset(p, 1, 1 << 30); return 0; }"
    data = await _run(services, {"candidates": [hog, "x"], "tests": [{"output": ""}], "language": "c"})
    assert data["cases"][0]["status"] == "error", data["text"]  # 512 MB, not 1 GB
    spin = "int main(void) { for (;;) {} }"
    data = await _run(services, {"candidates": [spin, "x"], "tests": cases[:1], "language": "c"})
    assert data["cases"][0]["status"] == "timeout" and not data["all_passed"]


async def test_an_unknown_language_is_a_clear_tool_error(services: ToolServices) -> None:
    request = JudgeRequest.model_validate(
        {"id": "r", "prompt": "p", "candidates": ["x", "y"], "tests": SUM_TESTS, "language": "cobol"}
    )
    result = await call_tool(
        ToolCall(name="run_code", arguments={"candidate": 0}), ToolContext(request=request, services=services)
    )
    assert not result.ok and "no language 'cobol'" in (result.error or "")


@pytest.mark.parametrize("backend", ["docker", "process"])
async def test_the_judge_decides_code_pairs_in_other_languages_by_their_tests(
    backend: str, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox=backend) as judge:
        for lang in ("cpp", "java", "rust"):
            good = f"Read both, add them.\n```{FENCE[lang]}\n{SUM[lang]}```"
            bad = f"{WRONG[lang]}\nThat is the answer."  # bare code, prose after it
            for order in (0, 1):
                candidates = [good, bad] if order == 0 else [bad, good]
                t = await judge.arun(
                    {"id": f"{lang}-{order}", "prompt": "Sum two integers.", "candidates": candidates}
                    | {"tests": SUM_TESTS, "language": lang}
                )
                assert t.verdict is not None and t.verdict.winner == order, (lang, order, t.verdict)
                assert t.verdict.decided_by == "evidence", t.verdict


async def test_humaneval_pairs_are_decided_by_the_tests_however_the_code_is_written() -> None:
    """benchmarks/real_data.py's code measure at a small size: every format, both orders (EVALS.md: all 164)."""
    from benchmarks.real_data import CODE_FORMATS, code_formats

    results = await code_formats(n=8, sandbox="process")
    assert set(results) == set(CODE_FORMATS)
    for name, agreement in results.items():
        assert agreement.checked >= 8 and agreement.share == 1.0, (name, agreement.disagreements)


def test_every_language_is_one_module_of_tools_lang_with_the_whole_protocol() -> None:
    """A language lives in one module of `tools/code/languages/` (registered under its file's name), and a language module
    that misses part of the protocol fails here: finding code, building programs and tests, and, for the
    compiled and interpreted languages, calling a function the way LeetCode does."""
    import inspect

    from judgegraph.tools.code.calls import CallingLanguage
    from judgegraph.tools.code.languages import ProgramLanguage

    modules = {p.stem for p in (ROOT / "tools" / "code" / "languages").glob("*.py") if not p.stem.startswith("_")}
    assert set(languages.names()) == modules
    for name in languages.names():
        language = languages.get(name)
        assert inspect.getmodule(type(language)).__name__ == f"judgegraph.tools.code.languages.{name}", name  # type: ignore[union-attr]
        assert language.fence_tags and callable(language.extract) and callable(language.program), name
        assert isinstance(language, CallingLanguage), name  # one call path: every language's functions are called
        if isinstance(language, ProgramLanguage):
            for hook in ("step", "call_runner"):
                assert getattr(type(language), hook) is not getattr(ProgramLanguage, hook), (name, hook)
