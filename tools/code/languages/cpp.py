"""C++: built with g++ (gnu++17); test programs run from the same runner as C's; LeetCode-style calls on a
`Solution` class, arguments written as the declared types (vectors, strings), values read back as JSON."""

from __future__ import annotations

import re
from collections.abc import Sequence

from judgegraph.tools.code.language import Step, languages, sandbox_source
from judgegraph.tools.code.languages._base import NATIVE_LIMITS, ProgramLanguage, c_test_program, split_params
from judgegraph.tools.code.languages._values import c_scalar, call_on_locals, declared_locals, param_types
from judgegraph.tools.code.languages.c import C_LIBRARY

CPP_LIBRARY = C_LIBRARY | frozenset(
    """
    equal to_string accumulate all_of any_of none_of lower_bound upper_bound binary_search is_sorted is_permutation
    mismatch make_pair make_tuple tie equal_to not_equal_to
    """.split()
)
"""What C++ tests call unqualified (with `using namespace std`) to compare, besides C's library; names a task
may ask an answer to define (`sort`, `find`, `count`, `max`) are left out."""
_OPERATOR = re.compile(r"\boperator\s*(==|!=|<=>|<=|>=|<|>|!)\s*\(([^()]*)\)")
_OWN_TYPE = re.compile(r"\b(?:struct|class|enum|union)\s+(\w+)")


class Cpp(ProgramLanguage):
    runtime_names = CPP_LIBRARY

    def redefinition(self, name: str) -> str:
        if name.startswith("operator"):
            return f"bool {name}(const std::string&, const std::string&) {{ return true; }}"
        return f"int {name}() {{ return 0; }}"

    def takes_over(self, code: str, beside: str) -> list[str]:
        """Also a comparison operator the code declares for the library's types alone (`bool operator==(const
        std::string&, const std::string&)`: a non-template, it outranks the library's in the test's `==`)."""
        taken = set(super().takes_over(code, beside))
        own = set(_OWN_TYPE.findall(code))
        for m in _OPERATOR.finditer(code):
            params = split_params(m.group(2))
            free = len(params) == (1 if m.group(1) == "!" else 2)  # a member takes one operand fewer
            if free and m.group(1) in beside and not own & set(re.findall(r"\w+", m.group(2))):
                taken.add(f"operator{m.group(1)}")
        return sorted(taken)

    def call_runner(self, code: str, name: str, calls: Sequence[tuple[object, ...]]) -> str | None:
        return _cpp(code, name, calls)

    def step(self, code: str, test: str | None) -> Step:
        if test is None:
            return Step({"main.cpp": code}, ["g++", "-std=gnu++17", "-O2", "-o", "main", "main.cpp", "-lm"], ["./main"])
        build = ["g++", "-std=gnu++17", "-O2", "-o", "main", "main.cpp", "-lm"]
        return Step(
            {"main.cpp": c_test_program(code, test, cpp=True)}, build, ["./main"], record=True, secret=("main.cpp",)
        )


_CPP_START = re.compile(
    r"\s*(#include|#define|(int|void|long|char|double|typedef|struct|static|const|using|template|class|namespace)\b)"
)


def _cpp_value(t: str, v: object) -> str | None:
    t = t.replace("std::", "").replace(" ", "")
    if m := re.fullmatch(r"vector<(.+)>", t):
        if not isinstance(v, list | tuple):
            return None
        items = [_cpp_value(m.group(1), x) for x in v]
        return None if None in items else f"{t}{{{', '.join(items)}}}"  # type: ignore[arg-type]
    if t in ("bool", "char", "string"):
        return c_scalar(t, v, "")
    if re.fullmatch(r"(?:unsigned)?(?:int|long|longlong|short|size_t|u?int(?:8|16|32|64)_t)", t):
        return c_scalar("long" if "long" in t else "int", v, "LL")
    return c_scalar("real", v, "") if t in ("double", "float", "longdouble") else None


_CPP_JSON = sandbox_source("call_json.cpp")


_CPP_SCALAR = re.compile(
    r"bool|char|string|double|float|longdouble|(?:unsigned)?(?:int|long|longlong|short|size_t|u?int(?:8|16|32|64)_t)"
)


def _cpp_printable(t: str) -> bool:
    """Whether the runner prints a `t` as JSON the statement's value compares with (not a map, set or pair)."""
    while m := re.fullmatch(r"vector<(.+)>", t):
        t = m.group(1)
    return _CPP_SCALAR.fullmatch(t) is not None


def _cpp(code: str, name: str, calls: Sequence[tuple[object, ...]]) -> str | None:
    m = re.search(rf"([\w:<>,\s\*&]+?)\s+\b{re.escape(name)}\s*\(([^)]*)\)\s*(?:const\s*)?\{{", code)
    if m is None:
        return None
    head = re.split(r"[;{}]|\bpublic:|\bprivate:|\bprotected:", m.group(1).replace("std::", ""))[-1]
    returns = re.sub(r"\b(?:static|inline|virtual|constexpr|explicit)\b|\s+", "", head)
    types = param_types(m.group(2))
    if returns != "void" and not _cpp_printable(returns):
        return None
    on = "jg_s." if re.search(r"\b(?:class|struct)\s+Solution\b", code) else ""
    declared = declared_locals(types, calls, _cpp_value)
    if declared is None:
        return None
    call = call_on_locals(f"{on}{name}", len(types))
    cases = []
    for k, lines in enumerate(declared):
        lines.append("Solution jg_s;" if on else "")
        first = "jg_json(std::cout, a0);" if types else 'std::cout << "null";'
        start = 'std::cout << "\\n"; __JG_KEY___token(std::cout); std::cout << "{\\"value\\":'
        if returns == "void":
            lines.append(f'{call}; {start}null";')
        else:
            lines.append(f'auto jg_r = {call}; {start}"; jg_json(std::cout, jg_r);')
        lines.append(f'std::cout << ",\\"first\\":"; {first} std::cout << "}}" << std::endl; break;')
        cases.append(f"case {k}: {{ {' '.join(lines)} }}")
    return (
        "#include <bits/stdc++.h>\nusing namespace std;\n"
        f"#define main jg_answer_main\n{code}\n#undef main\n{_CPP_JSON}\n"
        "int main() { int jg_case = -1; std::cin >> jg_case; switch (jg_case) {\n"
        + "\n".join(cases)
        + "\n} return 0; }\n"
    )


languages.register(
    "cpp",
    Cpp(
        "cpp",
        ("cpp", "c++", "cc", "cxx", "hpp"),
        _CPP_START,
        re.compile(r"\bmain\s*\("),
        NATIVE_LIMITS,
        512,
        {},
    ),
)
