"""The names a test program defines for itself, spelled with the build's secret key (#57).

C, C++, Go and Rust build the test in one program with the answer, so an answer could name the test's own data
(C's `extern int cases[][3];` before the test defines it, Go's package-level `var cases` in the same package, Rust's
crate-level `const CASES`) and answer each call from the test's expected values. So every name the test defines at
its top level is renamed, consistently through the test, to one made of `__JG_KEY__`: the driver writes a fresh
random name there in the sandbox, after the answer was written, and an answer that writes the placeholder itself
is refused (`SPELLED_PLACEHOLDER`). What the test takes from the answer (the functions it calls, a prototype it
declares for one) keeps its name."""

from __future__ import annotations

import re

SECRET = "__JG_KEY__"
"""The driver's placeholder for the build's secret name (`in_sandbox/stdio_driver.py`)."""

_IDENTIFIER = r"[A-Za-z_]\w*"

C_LITERALS = re.compile(
    r'//[^\n]*|/\*.*?\*/|R"(?P<raw>[^()\\\s]{0,16})\(.*?\)(?P=raw)"'
    r'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])+\'',
    re.DOTALL,
)
"""C and C++ comments, strings (raw strings too) and characters."""
GO_LITERALS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|`[^`]*`|\'(?:\\.|[^\'\\\n])+\'', re.DOTALL)
"""Go's comments, strings (raw ones in backquotes) and runes."""
RUST_LITERALS = re.compile(
    r'//[^\n]*|/\*.*?\*/|b?r(?P<hashes>#*)".*?"(?P=hashes)'
    r'|b?"(?:\\.|[^"\\])*"|b?\'(?:\\[^\']{1,10}|[^\'\\])\'',
    re.DOTALL,
)
"""Rust's comments, strings (raw and byte strings too) and characters (a lifetime, `'a`, is not one)."""


def renamed(test: str, names: set[str], literals: re.Pattern[str], go: bool = False) -> str:
    """`test` with each of `names` spelled `<SECRET>_<name>` wherever it stands as a name of its own: not inside a
    comment or literal, nor as a member after `.`, `->` or `::` (`v.size`, `std::max`), nor (`go`) as a field:
    declared in a struct type, or a key in a composite literal (`{expected: 5}`)."""
    if not names:
        return test
    fields = _struct_bodies(_blanked(test, literals)) if go else []
    pattern = re.compile(f"(?P<literal>{literals.pattern})|(?P<name>{_IDENTIFIER})", literals.flags)
    out, last = [], 0
    for m in pattern.finditer(test):
        name = m.group("name")
        if name is None or name not in names:
            continue
        before = test[: m.start()].rstrip()
        if before.endswith((".", "->", "::")):
            continue
        after = test[m.end() :].lstrip(" \t")
        if go and after.startswith(":") and not after.startswith((":=", "::")):
            continue
        line = test[test.rfind("\n", 0, m.start()) + 1 : m.start()]
        if any(a <= m.start() < b for a, b in fields) and re.fullmatch(rf"\s*(?:{_IDENTIFIER}\s*,\s*)*", line):
            continue
        out.append(test[last : m.start()] + f"{SECRET}_{name}")
        last = m.end()
    return "".join(out) + test[last:]


def _struct_bodies(code: str) -> list[tuple[int, int]]:
    """Where each Go `struct { ... }` type's fields are declared in `code` (literals blanked)."""
    spans = []
    for m in re.finditer(r"\bstruct\s*\{", code):
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        spans.append((m.end(), i))
    return spans


def _blanked(source: str, literals: re.Pattern[str]) -> str:
    """`source` with every comment and literal blanked to spaces (lines and offsets kept)."""
    return literals.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), source)


def _top_level(source: str) -> list[str]:
    """The text of `source` outside every brace (a block's contents blanked), so what stands at its top level."""
    out, depth = [], 0
    for ch in source:
        if ch == "{":
            depth += 1
            out.append(" " if depth > 1 else "{")
        elif ch == "}":
            depth -= 1
            out.append(" " if depth > 0 else "}")
        else:
            out.append(ch if depth == 0 else ("\n" if ch == "\n" else " "))
    return "".join(out).split("\n")


# ------------------------------------------------------------------------------------------------------ C and C++

_C_KEYWORDS = frozenset(
    """
    auto bool break case char class const constexpr continue default delete do double else enum explicit extern
    float for friend goto if inline int long mutable namespace new noexcept operator private protected public
    register return short signed sizeof static static_assert struct switch template this thread_local throw try
    typedef typename union unsigned using virtual void volatile while consteval constinit decltype override final
    """.split()
)


def c_defined(test: str) -> set[str]:
    """The names a C or C++ test program defines at file scope: its objects, its functions with a body, its types
    and aliases (never `main`, which the runner renames, nor a prototype or `extern` declaration, which name what
    the answer defines)."""
    code = _blanked(test, C_LITERALS)
    code = re.sub(r"^[ \t]*#.*(?:\\\n.*)*$", "", code, flags=re.MULTILINE)  # preprocessor lines
    code = re.sub(r"\btemplate\s*<[^{};]*?>", " ", code)
    defined: set[str] = set()
    for head, block in _c_statements("\n".join(_top_level(code))):
        if re.match(r"(?:extern\b|using\s+namespace\b|friend\b|static_assert\b)", head):
            continue
        kind = re.match(rf"(?:typedef\s+)?(?:struct|class|union|enum(?:\s+class)?|namespace)\s+({_IDENTIFIER})", head)
        if kind:
            defined.add(kind.group(1))
            if not head.startswith("typedef"):
                continue
        if alias := re.match(rf"using\s+({_IDENTIFIER})\s*=", head):
            defined.add(alias.group(1))
        elif head.startswith("typedef"):
            last = re.findall(rf"({_IDENTIFIER})\s*(?:\[[^\]]*\]\s*)*\)?\s*(?:\([^()]*\))?\s*$", head)
            defined.update(last[-1:])
        else:
            defined.update(_c_declarators(head, body=block))
    return {n for n in defined if n not in _C_KEYWORDS and n != "main"}


def _c_statements(flat: str) -> list[tuple[str, bool]]:
    """Each top-level statement of `flat` (blocks already blanked): its text up to its `;`, or up to a block's
    opening brace (True: a function's body, a type's or a namespace's), an initializer's braces kept within."""
    statements, current, i = [], "", 0
    while i < len(flat):
        ch = flat[i]
        if ch == ";":
            statements.append((current.strip(), False))
            current = ""
        elif ch == "{":
            close = flat.find("}", i)
            close = len(flat) if close < 0 else close
            if current.rstrip().endswith(("=", ",", "(")) or not current.strip():
                current += " " * (close + 1 - i)  # an initializer's braces (or a stray block): part of the statement
            else:
                statements.append((current.strip(), True))
                current = ""
            i = close
        else:
            current += ch
        i += 1
    if current.strip():
        statements.append((current.strip(), False))
    return [(head, block) for head, block in statements if head]


def _c_declarators(head: str, body: bool) -> list[str]:
    """The names one top-level declaration `head` defines: a function's where a body follows (`body`), else each
    object's (a prototype, `int add(int, int);`, defines nothing)."""
    depth, parts, current = 0, [], ""
    for ch in head:
        depth += ch in "([<"
        depth -= ch in ")]>"
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    names = []
    for i, part in enumerate(parts):
        part = part.split("=", 1)[0].strip()
        function = re.search(
            rf"({_IDENTIFIER})\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*(?:const|noexcept|override)?\s*$", part
        )
        pointer = re.search(rf"\(\s*[*&]\s*({_IDENTIFIER})\s*\)", part)  # `int (*fp)(int)`
        found: re.Match[str] | None
        if pointer:
            found = pointer
        elif function:
            found = function if body and i == len(parts) - 1 else None
        else:
            found = re.search(rf"({_IDENTIFIER})\s*(?:\[[^\]]*\]\s*)*$", part)
        # A qualified name (`A::f`, an out-of-line member) is no new name of the test's
        if found and not part[: found.start(1)].rstrip().endswith("::"):
            names.append(found.group(1))
    return names


# ------------------------------------------------------------------------------------------------------------ Go

_GO_KEPT = re.compile(r"(?:Test|Benchmark|Example|Fuzz)\w*|init|main|jgTestMain|_")
"""What `go test` finds by name, and the names the runner gives or calls."""


def go_defined(test: str) -> set[str]:
    """The names a Go test file declares at package level: its variables, constants, types and functions (not a
    method, nor what `go test` runs by name)."""
    lines = _top_level(_blanked(test, GO_LITERALS))
    defined: set[str] = set()
    group = None  # inside `var (` or `const (`
    for line in lines:
        stripped = line.strip()
        if group:
            if stripped.startswith(")"):
                group = None
            elif first := re.match(rf"({_IDENTIFIER}(?:\s*,\s*{_IDENTIFIER})*)", stripped):
                defined.update(n.strip() for n in first.group(1).split(","))
            continue
        if m := re.match(r"(var|const|type)\s*\(\s*$", stripped):
            group = m.group(1)
        elif m := re.match(rf"(?:var|const)\s+({_IDENTIFIER}(?:\s*,\s*{_IDENTIFIER})*)", stripped):
            defined.update(n.strip() for n in m.group(1).split(","))
        elif m := re.match(rf"(?:type|func)\s+({_IDENTIFIER})", stripped):
            defined.add(m.group(1))
    return {n for n in defined if not _GO_KEPT.fullmatch(n)}


# ---------------------------------------------------------------------------------------------------------- Rust

_RUST_ITEM = re.compile(
    rf"^\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+|async\s+|const\s+(?=fn))*"
    rf"(?:const|static(?:\s+mut)?|fn|struct|enum|union|type|trait|mod|macro_rules!)\s+({_IDENTIFIER})"
)


def rust_defined(test: str) -> set[str]:
    """The names a Rust test defines at crate level: constants, statics, functions, types, traits, modules and
    macros (not `main`, which the runner renames, nor the runner's own)."""
    lines = _top_level(_blanked(test, RUST_LITERALS))
    found = {m.group(1) for line in lines if (m := _RUST_ITEM.match(line))}
    return {n for n in found if n not in ("main", "jg_test_main")}
