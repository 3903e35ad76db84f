"""Rust: built with rustc (2021); test programs run from the record runner (the candidate's own `#[test]`s are
not tests); LeetCode-style calls of `Solution`'s associated functions, values read back as JSON."""

from __future__ import annotations

import re
from collections.abc import Sequence

from judgegraph.tools.code.language import Step, languages, sandbox_source
from judgegraph.tools.code.languages._base import (
    RUNTIME_LIMITS,
    RUST_RUNTIME,
    ProgramLanguage,
    code_only,
    runner_source,
    split_params,
)
from judgegraph.tools.code.languages._test_names import RUST_LITERALS, renamed, rust_defined
from judgegraph.tools.code.languages._values import (
    c_char,
    c_scalar,
    declared_locals,
    generic_in,
    natural_types,
    spelling,
)
from judgegraph.tools.math.arithmetic import braced_from

RUST_MACROS = frozenset(
    """
    assert assert_eq assert_ne debug_assert debug_assert_eq debug_assert_ne panic println print eprintln eprint
    format vec unreachable todo unimplemented write writeln matches
    """.split()
)
RUST_PRELUDE = RUST_MACROS | frozenset(
    """
    Vec String Option Some None Result Ok Err Box ToString ToOwned PartialEq Eq PartialOrd Ord Clone Copy Default
    Iterator IntoIterator DoubleEndedIterator ExactSizeIterator Extend From Into TryFrom TryInto Drop Fn FnMut FnOnce
    Send Sync Sized AsRef AsMut Debug drop std core alloc
    """.split()
)
"""Rust's assertion and formatting macros and its prelude: a `macro_rules!` of the answer's shadows the std macro
in the text after it (the test's), and an item of the answer's shadows the prelude's name."""


class Rust(ProgramLanguage):
    runtime_names = RUST_PRELUDE
    declares = re.compile(
        r"(?:\bmacro_rules!\s*|\b(?:fn|struct|enum|trait|type|union|mod|const|static)\s+)(?:r#)?(\w+)"
    )
    """A raw identifier (`macro_rules! r#assert_eq`) declares the name too."""

    def redefinition(self, name: str) -> str:
        if name in RUST_MACROS:
            return f"macro_rules! {name} {{ ($($t:tt)*) => {{}}; }}"
        return f"struct {name};"

    signature = re.compile(r"\bfn\s+(\w+)\s*(?:<(?:[^<>]|<[^<>]*>)*>)?\s*\(([^()]*)\)")
    """A function, its generics passed over (one level of nesting: `<T: Sub<Output = T>>`)."""
    build_error_line = re.compile(r"^\s*--> main\.rs:(\d+):\d+", re.M)
    """rustc points at each error's line (`--> main.rs:12:5`; warnings are off)."""
    reaches_runner = re.compile(r"#!\s*\[")
    aliases = (
        re.compile(r"^(?:pub(?:\([^)]*\))?[ \t]+)?type[ \t]+(?P<name>\w+)[ \t]*=[ \t]*(?P<type>[^;\n]+);", re.M),
    )
    """A type alias at the crate's top level (an associated type, `type Output = P;` in an `impl`, is indented)."""
    """A crate attribute (`#![deny(warnings)]`, `#![no_implicit_prelude]`) holds for the runner's lines too."""

    def call_arity(self, params: str) -> int | None:
        """A method that takes `self` is not called: LeetCode's are associated functions."""
        split = split_params(params)
        return None if any(re.fullmatch(r"&?\s*(?:mut\s+)?self", p) for p in split) else len(split)

    def names_of(self, named: str) -> tuple[str, ...]:
        return (named, snake_case(named))

    def call_runner(self, code: str, name: str, calls: Sequence[tuple[object, ...]]) -> str | None:
        return _rust(code, name, calls)

    def natural_runner(self, code: str, name: str, calls: Sequence[tuple[object, ...]]) -> str | None:
        return _rust(code, name, calls, natural=True)

    def placed_answer(self, code: str) -> str:
        return _rust_answer(code)

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
        checks = "\n".join(result_checks(code, test))
        test = renamed(test, rust_defined(test), RUST_LITERALS)  # the test's own names: none the answer can write
        parts = (code.rstrip("\n"), _TEST_ASSERTIONS, test.rstrip("\n"), checks + runner_source("record_runner.rs"))
        source = "\n\n".join(parts)
        return Step(
            {"main.rs": source}, build, ["./main"], record=True, secret=("main.rs",), runtime_libraries=RUST_RUNTIME
        )


_TEST_ASSERTIONS = """// judgegraph: the test's assertions, which never write their text into the binary
// (`assert!(add(2, 3) == 5)` would, and the answer could read its expected values back from its own executable),
// and whose debug forms check in this optimised build too (they would compile to nothing, and any answer would
// pass them).
#[allow(unused_macros)]
macro_rules! assert {
    ($c:expr $(,)?) => { ::core::assert!($c, "assertion failed") };
    ($c:expr, $($m:tt)+) => { ::core::assert!($c, $($m)+) };
}
#[allow(unused_macros)]
macro_rules! debug_assert {
    ($c:expr $(,)?) => { ::core::assert!($c, "assertion failed") };
    ($c:expr, $($m:tt)+) => { ::core::assert!($c, $($m)+) };
}
#[allow(unused_macros)]
macro_rules! debug_assert_eq { ($($t:tt)*) => { ::core::assert_eq!($($t)*) }; }
#[allow(unused_macros)]
macro_rules! debug_assert_ne { ($($t:tt)*) => { ::core::assert_ne!($($t)*) }; }"""

_PLAIN_RESULT = sandbox_source("plain_result.rs")
_FN = re.compile(r"\bfn\s+(\w+)\s*(<(?:[^<>]|<(?:[^<>]|<[^<>]*>)*>)*>)?\s*\(([^()]*)\)|\bfn\s+(\w+)")
"""A function's name, its generic parameters and its parameters; a `fn` whose signature this does not read is
named alone (group 4) and counted generic: its result is not checked, so it does not build."""
_IMPL = re.compile(r"\bimpl\b\s*(?:<[^{]*?>)?\s*([^{]*?)\s*\{")
_OWN_TYPE = re.compile(r"\b(?:struct|enum)\s+(\w+)\b(?!\s*<)")
"""A type the answer defines, not generic (a generic one is not plain: its parameters are the answer's choice)."""
_OPERATOR_TRAIT = re.compile(
    r"\b(?:PartialEq|PartialOrd|Eq|Ord|Deref|DerefMut|Add|Sub|Mul|Div|Rem|Neg|Not|BitAnd|BitOr|BitXor|Shl|Shr"
    r"|Index|IndexMut|From|Into|TryFrom|TryInto|AsRef|AsMut|Borrow|BorrowMut|Iterator|IntoIterator|ToOwned)\b"
)
"""The traits through which a test's comparison, arithmetic, indexing or conversion of a value runs the value's
code: an `impl` of one that names a type of the answer's (as the type or as the trait's parameter) makes that
type not plain. Derived impls are structural and stay plain, as do `Debug`, `Display`, `Clone` or `Default`."""


def _tested_functions(code: str, test: str) -> list[tuple[str, int, bool]]:
    """The answer's functions the test calls or names, as a path the checks can name (`add`, `Solution::two_sum`),
    with the number of parameters each takes (`self` among them) and whether it is generic."""
    test = code_only(test)
    impls = []  # (start, end, type) of each impl block
    for m in _IMPL.finditer(code):
        body = braced_from(code, m.end())
        end = len(code) if body is None else m.end() + len(body)
        header = m.group(1)
        owner = re.split(r"\bfor\b", header)[-1].strip()
        impls.append((m.end(), end, re.sub(r"<.*", "", owner).strip()))
    found = []
    for m in _FN.finditer(code):
        name, generic, params = m.group(1) or m.group(4), m.group(2) is not None or m.group(4) is not None, m.group(3)
        owner = next((t for start, end, t in impls if start <= m.start() < end), None)
        if owner is None:
            used = re.search(rf"(?<![\w.:]){name}\b", test) is not None
            path = name
        else:
            used = re.search(rf"\b{owner}\s*::\s*{name}\b|\.\s*{name}\s*\(", test) is not None
            path = f"{owner}::{name}"
        if used and name != "main":
            found.append((path, len(split_params(params or "")), generic))
    return list(dict.fromkeys(found))


def result_checks(code: str, test: str) -> list[str]:
    """What follows a Rust test so that nothing it compares is a type whose comparisons the answer wrote
    (`in_sandbox/plain_result.rs`): each function the test calls or names, passed as a function pointer whose
    result must be plain; the answer's own types are plain where no `impl` of a comparison, operator or
    conversion trait names them (derived comparisons are structural: an honest `ListNode`); a tested function
    that is generic (whose result no check can name before the test picks it) does not build."""
    tested = _tested_functions(code, test)
    if not tested:
        return []
    headers = [m.group(1) for m in _IMPL.finditer(code)]
    lines = [_PLAIN_RESULT]
    for name in dict.fromkeys(_OWN_TYPE.findall(code)):
        takes_over = [h for h in headers if re.search(rf"\b{name}\b", h) and _OPERATOR_TRAIT.search(h)]
        if not takes_over:
            lines.append(f"impl __JG_KEY___plain::Plain for {name} {{}}")
    calls = []
    for path, arity, generic in tested:
        if generic or arity > 8:
            calls.append(
                f'    compile_error!("judgegraph: the tested function {path} is generic: its result is unchecked");'
            )
        else:
            calls.append(f"    __JG_KEY___plain::returns{arity}({path});")
    return [*lines, "#[allow(dead_code)]", "fn __JG_KEY___checks() {", *calls, "}", ""]


_RUST_INTEGER = re.compile(r"[iu](?:8|16|32|64|128|size)")


_RUST_JSON = sandbox_source("call_json.rs")


def _rust_string(v: str) -> str:
    escaped = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return '"' + "".join(escaped.get(c, c if ord(c) >= 0x20 else f"\\u{{{ord(c):x}}}") for c in v) + '"'


def _rust_value(t: str, v: object) -> str | None:
    t = t.replace(" ", "")
    if m := re.fullmatch(r"Vec<(.+)>", t):
        if not isinstance(v, list | tuple):
            return None
        items = [_rust_value(m.group(1), x) for x in v]
        return None if None in items else f"vec![{', '.join(items)}]"  # type: ignore[arg-type]
    if t == "char":
        return c_char(v) if isinstance(v, str) and len(v) == 1 else None
    if t == "String":
        return f"String::from({_rust_string(v)})" if isinstance(v, str) else None
    if t == "bool":
        return c_scalar("bool", v, "")
    if _RUST_INTEGER.fullmatch(t):
        return c_scalar("int", v, "")
    if t in ("f64", "f32"):
        real = c_scalar("real", v, "")
        return real if real is None or "." in real or "e" in real or "inf" in real or "nan" in real else real + ".0"
    return None


def _rust_printable(t: str) -> bool:
    t = t.replace(" ", "")
    while m := re.fullmatch(r"Vec<(.+)>", t):
        t = m.group(1)
    return t in ("bool", "char", "String", "f64", "f32", "()") or _RUST_INTEGER.fullmatch(t) is not None


def _rust_answer(code: str) -> str:
    return re.sub(r"\bfn\s+main\s*\(", "fn jg_answer_main(", code)


_RUST_TOKEN = sandbox_source("call_token.rs")
"""The build's token that starts the report line (spelled by the driver, under a name the answer cannot know)."""


_RUST_WORDS = frozenset(
    "i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str String Vec mut".split()
)
"""What a Rust type the judge writes as the statement's value may name, beside the answer's own types (and
`impl Trait`, which takes whatever has the trait)."""
_RUST_SPELL = spelling(
    {"bool": "bool", "int": "i32", "long": "i64", "real": "f64", "string": "String"}, lambda element: f"Vec<{element}>"
)


def _rust(code: str, name: str, calls: Sequence[tuple[object, ...]], natural: bool = False) -> str | None:
    generics = (
        r"(?:<(?:[^<>]|<[^<>]*>)*>)?" if natural else ""
    )  # `fn add_two<T: Add>(...)`: called as the values infer it
    m = re.search(
        rf"\bfn\s+{re.escape(name)}\s*{generics}\s*\(([^()]*)\)\s*(?:->\s*([^{{]+?))?\s*(?:where[^{{]*)?\{{", code
    )
    if m is None:
        return None
    params = split_params(m.group(1))
    returns = (m.group(2) or "()").strip()
    if not natural and not _rust_printable(returns):
        return None
    owned, passing = [], []
    for i, p in enumerate(params):
        declared = p.split(":", 1)[1].strip() if ":" in p else ""
        kind = re.match(r"&\s*(mut\s+)?", declared)
        base = declared[kind.end() :].strip() if kind else declared
        if base == "str":
            base = "String"
        if kind and base.startswith("[") and base.endswith("]"):
            base = f"Vec<{base[1:-1]}>"
        owned.append(base)
        if kind is None:
            passing.append(f"a{i}.clone()")
        else:
            passing.append(f"&mut a{i}" if kind.group(1) else f"&a{i}")
    cases = []
    on = "Solution::" if re.search(r"\bimpl\s+Solution\b", code) else ""
    generic = generic_in(code, _RUST_WORDS)
    impl = lambda t: t.lstrip("&").lstrip().startswith(("impl ", "dyn ")) or generic(t)  # noqa: E731
    if natural and (owned := natural_types(owned, calls, _rust_value, _RUST_SPELL, impl)) is None:  # type: ignore[assignment]
        return None
    argument_lines = declared_locals(owned, calls, _rust_value, "let mut a{i}: {t} = {v};")
    if argument_lines is None:
        return None
    for k, lines in enumerate(argument_lines):
        lines.append(f"let jg_r = {on}{name}({', '.join(passing)});")
        first = "a0.jg()" if owned else '"null".to_string()'
        report = f'"\\n{{}}{{{{\\"value\\":{{}},\\"first\\":{{}}}}}}", __JG_KEY___token(), jg_r.jg(), {first}'
        lines.append(f"println!({report});")
        cases.append(f"        {k} => {{ {' '.join(lines)} }}")
    solution = "" if re.search(r"\bstruct\s+Solution\b", code) or not on else "struct Solution;\n"
    return (
        f"#![allow(warnings)]\n{solution}{_rust_answer(code)}\n{_RUST_JSON}\n{_RUST_TOKEN}\n"
        "fn main() {\n    let mut jg_line = String::new();\n    std::io::stdin().read_line(&mut jg_line).unwrap();\n"
        "    match jg_line.trim().parse::<usize>().unwrap_or(usize::MAX) {\n"
        + "\n".join(cases)
        + "\n        _ => {}\n    }\n}\n"
    )


def snake_case(name: str) -> str:
    """`twoSum` as Rust names it on LeetCode: `two_sum`."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


languages.register(
    "rust",
    Rust(
        "rust",
        ("rust", "rs"),
        re.compile(r"\s*(use\s|fn\s|pub\s|struct\s|enum\s|impl\s|mod\s|const\s|static\s|#!?\[)"),
        re.compile(r"fn\s+main\s*\("),
        RUNTIME_LIMITS,
        512,
        {"RUST_TEST_THREADS": "1"},
    ),
)
