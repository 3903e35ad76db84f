"""The names a test program defines for itself are spelled with the build's secret key (#57): an answer built in
one program with the test (C, C++, Go, Rust) cannot name the test's table and answer from its expected values. What
the test takes from the answer keeps its name. The end-to-end cases (a wrong answer reading the test's table in
each language, on both sandboxes) are the matrix's `READING_TESTS`, run in tests/test_library_takeover.py."""

from __future__ import annotations

import pytest

from judgegraph.tools import ToolServices
from judgegraph.tools.code.languages._test_names import (
    C_LITERALS,
    GO_LITERALS,
    RUST_LITERALS,
    SECRET,
    c_defined,
    go_defined,
    renamed,
    rust_defined,
)
from tests._code_evidence import _call

C_TEST = """#include <assert.h>
int cases[2][3] = {{2, 3, 5}, {10, 7, 17}};
static const char *names[] = {"a", "b"}, *other = "x";
int add(int a, int b);
extern int shared;
typedef struct { int x; } Pair;
struct Point { int x, y; } origin;
enum Color { RED, GREEN };
static int helper(int x) {
    return x + cases[0][0];
}
int (*fp)(int) = helper;
int main(void) {
    for (int i = 0; i < 2; i++) assert(add(cases[i][0], cases[i][1]) == cases[i][2]);
    return 0;
}"""


def test_a_c_tests_own_definitions_are_found_and_what_it_takes_from_the_answer_is_not() -> None:
    assert c_defined(C_TEST) == {"cases", "names", "other", "Pair", "Point", "origin", "Color", "helper", "fp"}
    # `add` is a prototype of the answer's function, `shared` an extern: both name the answer's
    out = renamed(C_TEST, c_defined(C_TEST), C_LITERALS)
    assert f"int {SECRET}_cases[2][3]" in out and f"add({SECRET}_cases[i][0]" in out
    assert "int add(int a, int b);" in out and "extern int shared;" in out
    assert '{"a", "b"}' in out  # literals untouched


def test_a_cpp_tests_definitions_skip_qualified_names_and_templates_keep_theirs() -> None:
    test = """#include <bits/stdc++.h>
using namespace std;
template <typename T> bool issame(vector<T> a, vector<T> b) { return a == b; }
const std::map<std::string, int> expected = {{"a", 1}};
using Row = vector<int>;
int Solution::helper() { return 1; }
int main() {
    auto candidate = twice;
    assert(issame(candidate({1, 2}), {2, 4}) && std::max(1, 2) == 2 && expected.size() == 1);
}"""
    assert c_defined(test) == {"issame", "expected", "Row"}
    out = renamed(test, {"issame", "expected", "max", "size"}, C_LITERALS)
    assert "std::max(1, 2)" in out and f"{SECRET}_expected.size()" in out  # members and qualified names keep theirs


def test_go_package_level_names_are_renamed_but_not_fields_or_what_go_test_runs() -> None:
    test = """package main

import "testing"

var cases = [][3]int{{2, 3, 5}}
const (
\tlimit = 5
\tother, third = 1, 2
)
type test struct {
\tactual   interface{}
\texpected interface{}
}
var expected = 5
func helper(x int) int { return x }
func TestAdd(t *testing.T) {
\ttests := []test{{actual: add(2, 3), expected: expected}}
\tfor _, c := range cases { _ = c; _ = tests[0].expected }
}
"""
    assert go_defined(test) == {"cases", "limit", "other", "third", "test", "expected", "helper"}
    out = renamed(test, go_defined(test), GO_LITERALS, go=True)
    assert "\texpected interface{}" in out and f"expected: {SECRET}_expected" in out and ".expected }" in out
    assert "func TestAdd(" in out and f"range {SECRET}_cases" in out


def test_rust_crate_level_items_are_renamed_and_literals_and_lifetimes_left() -> None:
    test = """const CASES: [(i32, i32, i32); 2] = [(2, 3, 5), (10, 7, 17)];
fn helper<'a>(x: &'a str) -> &'a str { x }
fn jg_test_main() {
    let s = "CASES";
    for (a, b, want) in CASES { assert_eq!(add(a, b), want); }
}
#[cfg(test)]
mod tests {
    use super::*;
    const INNER: i32 = 1;
}"""
    assert rust_defined(test) == {"CASES", "helper", "tests"}
    out = renamed(test, rust_defined(test), RUST_LITERALS)
    assert f"in {SECRET}_CASES" in out and '"CASES"' in out and "&'a str" in out and "INNER" in out


HUMANEVAL_X_CPP = (
    "#undef NDEBUG\n#include<assert.h>\n#include<vector>\nusing namespace std;\n"
    "bool issame(vector<int> a, vector<int> b) {\n    if (a.size() != b.size()) return false;\n"
    "    for (int i = 0; i < (int)a.size(); i++) if (a[i] != b[i]) return false;\n    return true;\n}\n"
    "int main() {\n    assert(issame(twice({1, 2}), {2, 4}));\n    assert(issame(twice({}), {}));\n}"
)


@pytest.mark.parametrize(
    ("language", "code", "test"),
    [
        (
            "cpp",
            "#include <vector>\nusing namespace std;\nvector<int> twice(vector<int> v) {\n"
            "    for (int& x : v) x *= 2;\n    return v;\n}",
            HUMANEVAL_X_CPP,
        ),
        ("c", "int add(int a, int b) { return a + b; }", C_TEST),
    ],
)
async def test_honest_answers_pass_tests_with_helpers_tables_and_prototypes(
    services: ToolServices, language: str, code: str, test: str
) -> None:
    request = {
        "prompt": "Write the function.",
        "mode": "pointwise",
        "candidates": [f"```{language}\n{code}\n```"],
        "tests": [test],
    }
    r = await _call(services, request, "run_code", candidate=0)
    assert r.data and r.data["passed"] == r.data["total"] == 1, r.text
