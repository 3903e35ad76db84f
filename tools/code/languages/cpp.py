"""C++: built with g++ (gnu++17); test programs run from the same runner as C's; LeetCode-style calls on a
`Solution` class, arguments written as the declared types (vectors, strings), values read back as JSON."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from judgegraph.tools.code.language import Step, languages, sandbox_source
from judgegraph.tools.code.languages._base import (
    C_ALIASES,
    C_FAMILY,
    C_REACHES_RUNNER,
    C_RUNTIME,
    COMPILER_TEMPS,
    NATIVE_LIMITS,
    ProgramLanguage,
    c_test_program,
    code_only,
    split_params,
)
from judgegraph.tools.code.languages._values import (
    c_scalar,
    call_on_locals,
    declared_locals,
    generic_in,
    natural_types,
    param_types,
    spelling,
)
from judgegraph.tools.code.languages.c import C_LIBRARY

CPP_LIBRARY = C_LIBRARY | frozenset(
    """
    equal to_string accumulate all_of any_of none_of lower_bound upper_bound binary_search is_sorted is_permutation
    mismatch make_pair make_tuple tie equal_to not_equal_to
    """.split()
)
"""What C++ tests call unqualified (with `using namespace std`) to compare, besides C's library; names a task
may ask an answer to define (`sort`, `find`, `count`, `max`) are left out."""
_PLAIN_RESULT = sandbox_source("plain_result.hpp")
_TOP_CLASS = re.compile(r"^(?:class|struct)\s+(\w+)", re.MULTILINE)
_TEMPLATE_HEAD = re.compile(r"\btemplate\s*<[^;{]*>\s*(?:[\w:<>,*&\s]*?)\b(\w+)\s*\(")
_CALLABLE_OBJECT = re.compile(
    r"^[ \t]*(?:(?:static|const|constexpr|inline)\s+)*"
    r"(?:auto|(?:std::)?function\s*<[^;\n]*>|[A-Za-z_]\w*)\s+(\w+)\s*(?:=\s*\[|;)",
    re.MULTILINE,
)
"""A callable object the answer declares at the top of a line: a lambda (`auto add = [](...)`), a
`std::function`, or a functor's instance (`Adder add;`)."""
_OPERATOR = re.compile(r"\boperator\s*(==|!=|<=>|<=|>=|<|>|!)\s*\(([^()]*)\)")
_OWN_TYPE = re.compile(r"\b(?:struct|class|enum|union)\s+(\w+)")
_NOT_FUNCTIONS = {
    "assert",
    "static_assert",
    "if",
    "for",
    "while",
    "switch",
    "catch",
    "return",
    "sizeof",
    "main",
    "operator",
    "decltype",
    "alignof",
}


class Cpp(ProgramLanguage):
    runtime_names = CPP_LIBRARY
    reaches_runner = re.compile(rf"{C_REACHES_RUNNER.pattern}|\bnamespace\s+std\b", re.MULTILINE)
    """A directive, or code in the standard library's namespace (a specialisation of `std::is_integral` changes
    how the runner's value writer builds)."""
    aliases = (*C_ALIASES, re.compile(r"^[ \t]*using[ \t]+(?P<name>\w+)[ \t]*=[ \t]*(?P<type>[^;\n]+);", re.MULTILINE))

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

    def natural_runner(self, code: str, name: str, calls: Sequence[tuple[object, ...]]) -> str | None:
        return _cpp(code, name, calls, natural=True)

    def step(self, code: str, test: str | None) -> Step:
        if test is None:
            return Step({"main.cpp": code}, ["g++", "-std=gnu++17", "-O2", "-o", "main", "main.cpp", "-lm"], ["./main"])
        build = ["g++", "-std=gnu++17", "-O2", "-save-temps", "-o", "main", "main.cpp", "-lm"]
        checks, unchecked = result_checks(code, test)
        return Step(
            {"main.cpp": c_test_program(code, test, cpp=True, checks=checks, unchecked=unchecked)},
            build,
            ["./main"],
            record=True,
            secret=("main.cpp", *COMPILER_TEMPS),
            runtime_libraries=C_RUNTIME,
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
        # A braced list, not `vector<longlong>{...}`: `t` has lost the spaces that are part of its words
        return None if None in items else f"{{{', '.join(items)}}}"  # type: ignore[arg-type]
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


_CPP_WORDS = frozenset(
    "auto const std vector string int long short unsigned signed char bool double float size_t int32_t int64_t "
    "uint32_t uint64_t".split()
)
"""What a C++ type the judge writes as the statement's value may name, beside the answer's own types."""
_CPP_SPELL = spelling(
    {"bool": "bool", "int": "int", "long": "long long", "real": "double", "string": "std::string"},
    lambda element: f"std::vector<{element}>",
)


def _cpp(code: str, name: str, calls: Sequence[tuple[object, ...]], natural: bool = False) -> str | None:
    # Read with its preprocessor lines blanked: `#include <vector>` would otherwise run into a free function's type
    scan = re.sub(r"^[ \t]*#.*$", lambda d: " " * len(d.group()), code, flags=re.MULTILINE)
    m = re.search(rf"([\w:<>,\s\*&]+?)\s+\b{re.escape(name)}\s*\(([^)]*)\)\s*(?:const\s*)?\{{", scan)
    if m is None:
        return None
    head = re.split(r"[;{}]|\bpublic:|\bprivate:|\bprotected:", m.group(1).replace("std::", ""))[-1]
    returns = re.sub(r"\b(?:static|inline|virtual|constexpr|explicit)\b|\s+", "", head)
    types = param_types(m.group(2))
    if natural:  # a generic result prints as what it is (`jg_json` takes any number, string or range of them)
        types = natural_types(types, calls, _cpp_value, _CPP_SPELL, generic_in(code, _CPP_WORDS))  # type: ignore[assignment]
        if types is None:
            return None
    elif returns != "void" and not _cpp_printable(returns):
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


def _tested(code: str, test: str) -> tuple[list[str], list[str], list[str]]:
    """The answer's functions and callable objects that the test calls directly, names bare (`auto candidate =
    add;`) and calls as members (`Solution().twoSum(...)`), in order. A call is a name and `(` where no type
    stands before it (`vector<int> v(3)` declares)."""
    test = code_only(test)
    own = _NOT_FUNCTIONS | set(_OWN_TYPE.findall(code))
    found = [(m.group(1), m.start(1)) for m in (*C_FAMILY.finditer(code), *_CALLABLE_OBJECT.finditer(code))]
    declared = [n for n in dict.fromkeys(n for n, _ in found) if n not in own]
    at_top = {n for n, at in found if code[code.rfind("\n", 0, at) + 1] not in " \t"}  # a global's line
    direct, bare, members = [], [], []
    for name in declared:
        if any(_calls(test, m.start()) for m in re.finditer(rf"(?<![\w.:>]){name}\s*\(", test)):
            direct.append(name)
        if name in at_top and re.search(rf"(?<![\w.:>]){name}\b(?!\s*\()", test):
            bare.append(name)
        if re.search(rf"(?:\.|->)\s*{name}\s*\(", test):
            members.append(name)
    return direct, bare, members


def _calls(test: str, at: int) -> bool:
    """Whether the name at `at` is called, not declared: no type name or `>` stands before it (`return` may)."""
    before = re.search(r"(\w+|\S)\s*$", test[:at])
    return before is None or not (
        before.group(1) == ">" or (before.group(1)[0].isalnum() and before.group(1) != "return")
    )


def result_checks(code: str, test: str) -> tuple[list[str], list[str]]:
    """What stands before a C++ test so that nothing it compares is a type the answer defines (whose `==`, `!`
    and conversions are the answer's code), and what undoes its macros after the test (the runner that follows
    calls none of the answer's names): each direct call of the answer's functions passes its result through a
    check (`in_sandbox/plain_result.hpp`), each function or callable object named bare and each member the test
    calls on one of the answer's classes has its result type checked; a tested member defined twice or as a
    template (whose result no check can name) does not build. A result is plain when it is the language's or the
    standard library's: numbers, pointers, strings, containers, pairs, tuples and optionals of them."""
    direct, bare, members = _tested(code, test)
    if not (direct or bare or members):
        return [], []
    lines = [_PLAIN_RESULT]
    lines += [f"#define {name}(...) (__JG_KEY___plain::guard{{}}, {name}(__VA_ARGS__))" for name in direct]
    message = "judgegraph: the answer returns a type of its own, whose comparisons the test would make through its code"
    lines += [f'static_assert(__JG_KEY___plain::plain_callable<decltype({name})>, "{message}");' for name in bare]
    classes = [c for c in dict.fromkeys(_TOP_CLASS.findall(code)) if re.search(rf"\b{c}\b", test)]
    templates = set(_TEMPLATE_HEAD.findall(code))
    defined = Counter(m.group(1) for m in C_FAMILY.finditer(code))
    for k, name in enumerate(members):
        if defined[name] > 1 or name in templates:
            why = f"judgegraph: the answer defines {name} more than once or as a template: its result is unchecked"
            lines.append(f'static_assert(sizeof(int) == 0, "{why}");')
            continue
        lines += [
            "namespace __JG_KEY___plain {",
            f"template <class C, class = void> struct member_{k} : std::true_type {{}};",
            f"template <class C> struct member_{k}<C, std::void_t<decltype(&C::{name})>>",
            f"    : std::bool_constant<plain_function<decltype(&C::{name})>> {{}};",
            "}",
        ]
        lines += [f'static_assert(__JG_KEY___plain::member_{k}<{c}>::value, "{message}");' for c in classes]
    return lines, [f"#undef {name}" for name in direct]
