"""The candidate never grades itself, in any language (#57, item 1): a test built beside a candidate resolves its
library names (comparisons, assertion macros, library classes, predeclared identifiers) to the library, never to
the candidate. The matrix comes from the language modules (each says which names its tests resolve and how an
answer declares one), so a new language brings its own attacks; the end-to-end cases run in real sandboxes."""

from __future__ import annotations

import pytest

from judgegraph.evals._attack_matrix import (
    LIBRARY_ATTACKS,
    READING_TESTS,
    RUNTIME_SYMBOLS,
    SELF_COMPARING,
    TOKEN_SPELLERS,
    LibraryAttack,
)
from judgegraph.evals._attacks import FOREIGN
from judgegraph.tools import ToolServices
from judgegraph.tools.code.language import languages
from judgegraph.tools.code.languages import ProgramLanguage
from tests._code_evidence import _call

BUILT = [name for name in languages.names() if isinstance(languages.get(name), ProgramLanguage)]
MATRIX = [
    (name, runtime)
    for name in BUILT
    for runtime in sorted(languages.get(name).runtime_names)  # type: ignore[attr-defined]
]


def _language(name: str) -> ProgramLanguage:
    found = languages.get(name)
    assert isinstance(found, ProgramLanguage)
    return found


def test_every_built_language_says_which_names_its_tests_resolve() -> None:
    assert set(BUILT) >= {"c", "cpp", "java", "javascript", "go", "rust"}
    for name in BUILT:
        assert _language(name).runtime_names, name
        assert name in {a.language for a in LIBRARY_ATTACKS}  # and brings an end-to-end attack on the card


@pytest.mark.parametrize(("language", "runtime"), MATRIX)
def test_an_answer_that_declares_a_name_the_test_resolves_takes_it_over(language: str, runtime: str) -> None:
    lang = _language(language)
    code = lang.redefinition(runtime)
    assert lang.takes_over(code, f"check({runtime}(x));") == [runtime]
    assert lang.takes_over(code, "check(f(x));") == []  # a test that does not use it is not touched


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
def test_a_cpp_comparison_on_library_types_takes_over_the_tests_operator(op: str) -> None:
    cpp = _language("cpp")
    assert cpp.takes_over(cpp.redefinition(f"operator{op}"), f"assert(a {op} b);") == [f"operator{op}"]
    own = f"struct P {{ int x; }};\nbool operator{op}(const P& a, const P& b) {{ return a.x {op} b.x; }}"
    member = f"struct Q {{ int x; bool operator{op}(int y) const {{ return x {op} y; }} }};"
    assert cpp.takes_over(own, f"assert(a {op} b);") == [] and cpp.takes_over(member, f"assert(a {op} b);") == []


def test_qualified_uses_and_an_answers_own_helpers_are_left_alone() -> None:
    assert _language("c").takes_over("int strcmp() { return 0; }", "assert(std::strcmp(a, b) == 0);") == []
    assert _language("java").takes_over("class Objects {}", "java.util.Objects.equals(a, b);") == []
    union_find = "int parent[100];\nint find(int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); }"
    assert _language("cpp").takes_over(union_find, "assert(find(3) == 1);") == []
    assert _language("go").takes_over("func max(a, b int) int {\n\treturn a\n}", "if max(1, 2) != 2 {}") == []
    assert _language("javascript").takes_over("module.exports = { add };", "assert.ok(add(1, 2));") == []


@pytest.mark.parametrize(
    "attack",
    LIBRARY_ATTACKS + SELF_COMPARING + READING_TESTS + RUNTIME_SYMBOLS,
    ids=lambda a: f"{a.language}-{a.hacks[0][0]}",
)
async def test_a_wrong_answer_that_takes_over_the_tests_library_fails_it(
    services: ToolServices, attack: LibraryAttack
) -> None:
    fence = {"javascript": "js"}.get(attack.language, attack.language)

    def request(code: str) -> dict[str, object]:
        return {
            "prompt": attack.prompt,
            "mode": "pointwise",
            "candidates": [f"```{fence}\n{code}\n```"],
            "tests": [attack.test],
        }

    for name, code in attack.hacks:
        r = await _call(services, request(code), "run_code", candidate=0)
        assert r.data and r.data["passed"] == 0, (name, r.text)  # every one passed before
    r = await _call(services, request(attack.honest), "run_code", candidate=0)
    assert r.data and r.data["passed"] == r.data["total"] == 1, r.text


@pytest.mark.parametrize("attack", RUNTIME_SYMBOLS, ids=lambda a: a.language)
async def test_a_program_may_define_no_function_of_the_runtimes_libraries(
    services: ToolServices, attack: LibraryAttack
) -> None:
    """Whether the answer names the function (`memcmp`, in C linkage from any namespace, or by a Rust attribute)
    or names its symbol some other way (an asm label, assembly, spelled by a macro, on lines `#line` says are a
    header's), the test program does not build, and says why: the test, and the library code inlined into it,
    would call the answer's. Each hack passed its test before the driver checked."""
    fence = {"javascript": "js"}.get(attack.language, attack.language)
    for name, code in attack.hacks:
        request = {
            "prompt": attack.prompt,
            "mode": "pointwise",
            "candidates": [f"```{fence}\n{code}\n```"],
            "tests": [attack.test],
        }
        r = await _call(services, request, "run_code", candidate=0)
        assert r.data and r.data["passed"] == 0, (name, r.text)
        assert "runtime's libraries export" in r.text or "names its own symbols" in r.text, (name, r.text)


HONEST_NEIGHBOURS = {
    "cpp": (
        "#include <bits/stdc++.h>\nusing namespace std;\nint error, warn[64];\n"
        "string greet(string n) {\n    map<string, int> seen;\n    seen[n]++;\n    ostringstream out;\n"
        '    out << "Hello, " << n;\n    error = warn[0] = (int)seen.size();\n    return out.str();\n}',
        '#include <cassert>\n#include <string>\nint main() {\n    assert(greet("Bob") == "Hello, Bob");\n}',
    ),
    "c": (
        "#include <stdio.h>\nint error, warn[8];\nconst char *greet(const char *n) {\n    static char b[64];\n"
        '    snprintf(b, sizeof b, "Hello, %s", n);\n    error = warn[0] = 1;\n    return b;\n}',
        '#include <assert.h>\n#include <string.h>\nint main(void) {\n    assert(strcmp(greet("Bob"), "Hello, Bob") == 0);\n}',
    ),
    "rust": (
        "static mut LINK: [i32; 4] = [0; 4];\nfn greet(n: String) -> String {\n"
        '    unsafe { LINK[0] += 1; }\n    format!("Hello, {}", n)\n}',
        'fn main() {\n    assert_eq!(greet("Bob".to_string()), "Hello, Bob");\n}',
    ),
}


@pytest.mark.parametrize("language", sorted(HONEST_NEIGHBOURS))
async def test_data_named_like_a_librarys_and_the_headers_own_instantiations_build(
    services: ToolServices, language: str
) -> None:
    """What only looks like a library's: globals named `error` and `warn` (data, which calls nothing) and the weak
    inline functions the C++ headers instantiate, as libstdc++ did."""
    code, test = HONEST_NEIGHBOURS[language]
    request = {
        "prompt": "Write `greet(name)`.",
        "mode": "pointwise",
        "candidates": [f"```{language}\n{code}\n```"],
        "tests": [test],
    }
    r = await _call(services, request, "run_code", candidate=0)
    assert r.data and r.data["passed"] == r.data["total"] == 1, r.text


@pytest.mark.parametrize("language", sorted(TOKEN_SPELLERS))
async def test_an_answer_that_spells_the_builds_token_fails(services: ToolServices, language: str) -> None:
    """The driver spells a build's completion token where its placeholders stand; an answer that writes them (and
    writes the record itself, then exits) is refused in every language: it passed every test before."""
    test = FOREIGN[language][0]
    fence = {"javascript": "js"}.get(language, language)
    request = {
        "prompt": f"Write `add(a, b)` in {language}.",
        "mode": "pointwise",
        "candidates": [f"```{fence}\n{TOKEN_SPELLERS[language]}\n```"],
        "tests": [test],
    }
    r = await _call(services, request, "run_code", candidate=0)
    assert r.data and r.data["passed"] == 0, r.text
    assert "placeholder" in r.text, r.text


async def test_an_answer_that_spells_the_call_runners_token_fails_its_examples(services: ToolServices) -> None:
    """The call runner's report starts with the build's token: an answer that writes its placeholder could print
    a report of its own, so it is refused (the answer's fault), its examples failed."""
    from tests._code_evidence import TWO_SUM
    from tests.test_foreign_calls import C_TWO_SUM

    spelled = C_TWO_SUM + "\n/* __JG_KEY___token */"
    request = {"prompt": TWO_SUM, "candidates": [f"```c\n{spelled}\n```", "x"]}
    r = await _call(services, request, "run_examples", candidate=0)
    assert r.data and r.data["failed"] == 2 and r.data["decisive"] == 2, r.text


@pytest.mark.parametrize(
    ("code", "test", "called"),
    [
        ("int add(int a, int b) { return a + b; }", "int main() { assert(add(2, 3) == 5); }", ["add"]),
        ("int v(int x) { return x; }", "int main() { std::vector<int> v(3); return v.size(); }", []),  # declares
        ("auto add = [](int a, int b) { return a + b; };", "int main() { return add(1, 2) - 3; }", ["add"]),
        ("int f(int x) { return x; }", 'int main() { /* f(1) */ puts("f(2)"); return 0; }', []),  # not code
    ],
)
def test_a_cpp_tests_direct_calls_are_told_from_its_declarations(code: str, test: str, called: list[str]) -> None:
    """The calls whose results are checked plain: a name and `(` with no type before it, outside comments and
    strings, of a function or callable object the answer declares."""
    from judgegraph.tools.code.languages.cpp import _tested

    assert _tested(code, test)[0] == called


async def test_a_cpp_lambda_the_test_names_bare_is_checked_as_a_function_is(services: ToolServices) -> None:
    """`auto candidate = add;` (MultiPL-E's tests) where `add` is a lambda: its call operator's result is what is
    checked, so an honest lambda passes and one returning a type that equals anything fails."""
    from judgegraph.evals._attack_matrix import CPP_ANY, CPP_CANDIDATE_TEST

    def request(code: str) -> dict[str, object]:
        return {
            "prompt": "Write add.",
            "mode": "pointwise",
            "candidates": [f"```cpp\n{code}\n```"],
            "tests": [CPP_CANDIDATE_TEST],
        }

    honest = await _call(services, request("auto add = [](int a, int b) { return a + b; };"), "run_code", candidate=0)
    assert honest.data and honest.data["passed"] == 1, honest.text
    wrong = CPP_ANY + "auto add = [](int a, int b) { return Any{}; };"
    r = await _call(services, request(wrong), "run_code", candidate=0)
    assert r.data and r.data["passed"] == 0, r.text
