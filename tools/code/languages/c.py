"""C: built with gcc (gnu17), run as a program; test programs run from a runner that records their `main`'s
return; LeetCode-style calls with its pointer-and-size signatures, values written as C and read back as JSON."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from judgegraph.tools.code.language import Step, languages, sandbox_source
from judgegraph.tools.code.languages._base import (
    C_ALIASES,
    C_REACHES_RUNNER,
    C_RUNTIME,
    COMPILER_TEMPS,
    NATIVE_LIMITS,
    ProgramLanguage,
    c_test_program,
    split_params,
)
from judgegraph.tools.code.languages._values import argument_kind, c_char, c_scalar
from judgegraph.tools.code.statement import LEETCODE_NODES

C_LIBRARY = frozenset(
    """
    strcmp strncmp strcasecmp strncasecmp strcoll memcmp strlen strnlen strcpy strncpy strcat strncat strchr strrchr
    strstr strdup strndup strspn strcspn strpbrk strtok memcpy memmove memset memchr abs labs llabs div fabs fabsf
    fabsl sqrt sqrtf pow powf exp log log2 log10 floor ceil round trunc fmod fmin fmax hypot sin cos tan atan atan2
    printf fprintf sprintf snprintf vprintf vfprintf vsprintf vsnprintf puts fputs putchar fputc putc fflush fwrite
    write exit _exit _Exit quick_exit abort atexit at_quick_exit raise signal setjmp longjmp assert __assert_fail
    __assert __assert_perror_fail malloc calloc realloc free qsort bsearch atoi atol atoll atof strtol strtoll
    strtoul strtoull strtod strtof isdigit isalpha isalnum isspace isupper islower ispunct isxdigit toupper tolower
    rand srand time clock getchar scanf sscanf fgets fopen fclose fread
    """.split()
)
"""What C tests call from the C library: comparisons, lengths, output, exits and the assertion's machinery."""


class C(ProgramLanguage):
    runtime_names = C_LIBRARY
    reaches_runner = C_REACHES_RUNNER
    aliases = C_ALIASES

    def redefinition(self, name: str) -> str:
        return f"int {name}() {{ return 0; }}"

    def call_arity(self, params: str) -> int | None:
        """The statement's arguments only (an array's size and the out-parameters are the runner's); None where
        a parameter is not one of LeetCode's shapes."""
        parsed = _c_params(params)
        return None if parsed is None else len(parsed[0])

    def call_runner(self, code: str, name: str, calls: Sequence[tuple[object, ...]]) -> str | None:
        return _c(code, name, calls)

    def natural_runner(self, code: str, name: str, calls: Sequence[tuple[object, ...]]) -> str | None:
        return _c(code, name, calls, natural=True)

    def step(self, code: str, test: str | None) -> Step:
        if test is None:
            build = ["gcc", "-std=gnu17", "-O2", "-o", "main", "main.c", "-lm"]
            return Step({"main.c": code}, build, ["./main"])
        build = ["gcc", "-std=gnu17", "-O2", "-save-temps", "-o", "main", "main.c", "-lm"]
        return Step(
            {"main.c": c_test_program(code, test, cpp=False)},
            build,
            ["./main"],
            record=True,
            secret=("main.c", *COMPILER_TEMPS),
            runtime_libraries=C_RUNTIME,
        )


_C_START = re.compile(r"\s*(#include|#define|(int|void|long|char|double|typedef|struct|static|const)\b)")


_C_INTEGER = re.compile(
    r"(?:(?:un)?signed ?)?(?:long ?long|long|short|int|size_t|u?int(?:8|16|32|64)_t)(?: ?int)?|(?:un)?signed"
)
"""An integer type as `_c_type` writes it (`long long`, `unsigned int`, `long long int`)."""


_C_TYPE = (
    r"(?:(?:static|inline|const)\s+)*(?:(?:un)?signed\s+)?"
    r"(?:(?:long\s+long|long|short)(?:\s+int)?|int|char|bool|double|float|void|size_t|u?int(?:8|16|32|64)_t|(?:un)?signed)"
)
"""A return type LeetCode's C functions declare (before their `*`s)."""


_C_RETURNED = ("returnSize", "returnColumnSizes")
"""Out-parameters through which LeetCode's C functions return an array's length (and each row's)."""


@dataclass(frozen=True)
class _CParam:
    """One of the statement's arguments as a LeetCode C function takes it: `int* nums, int numsSize` is one."""

    kind: str
    """`scalar`, `string` (`char*`), `array` (`T*` and its size), `strings` (`char**` and its size) or `grid`
    (`T**`, its size and its rows' sizes)."""
    element: str
    """The C type of the scalar or of the array's elements."""


def _c_params(params: str) -> tuple[list[_CParam], list[str]] | None:
    """The statement's arguments in the C parameter list (sizes folded into the array before them), and the
    out-parameters it ends with (`returnSize`, `returnColumnSizes`); None where a parameter is not one of
    LeetCode's shapes."""
    found: list[tuple[str, str]] = []
    for p in split_params(params):
        m = re.fullmatch(r"(?:const\s+)?([\w\s]+?)\s*(\*{0,2})\s*(\w+)", p.strip())
        if m is None:
            return None
        found.append((_c_type(m.group(1)) + m.group(2), m.group(3)))
    out: list[_CParam] = []
    returned: list[str] = []
    i = 0
    while i < len(found):
        t, name = found[i]
        following = [n for _, n in found[i + 1 : i + 3]]
        if name in _C_RETURNED:
            returned.append(name)
        elif t.endswith("**") and following[:2] == [f"{name}Size", f"{name}ColSize"]:
            out.append(_CParam("grid", t[:-2]))
            i += 2
        elif t == "char**" and following[:1] == [f"{name}Size"]:
            out.append(_CParam("strings", "char*"))
            i += 1
        elif t.endswith("*") and not t.endswith("**") and following[:1] == [f"{name}Size"]:
            out.append(_CParam("array", t[:-1]))
            i += 1
        elif t == "char*":
            out.append(_CParam("string", "char"))
        elif "*" not in t and (t in ("bool", "char", "double", "float") or _C_INTEGER.fullmatch(t)):
            out.append(_CParam("scalar", t))
        else:
            return None
        i += 1
    return out, returned


def _c_type(written: str) -> str:
    """A C type as the runner declares it: words one space apart (`long long`, `unsigned int`: the words are the
    type, so none may be dropped), its pointer stars right after them (`char*`)."""
    return re.sub(r"\s*\*\s*", "*", " ".join(written.split()))


def _c_string(v: str) -> str:
    """A C string literal of `v`'s UTF-8 bytes (octal escapes outside printable ASCII)."""
    out = []
    for b in v.encode():
        c = chr(b)
        out.append("\\" + c if c in '"\\' else c if 0x20 <= b < 0x7F and c != "?" else f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def _c_text(v: object) -> str | None:
    """A C string literal of `v`, or None where `v` is not a string C can hold (one with a NUL in it)."""
    return _c_string(v) if isinstance(v, str) and "\0" not in v else None


def _c_scalar(t: str, v: object) -> str | None:
    if t == "bool":
        return c_scalar("bool", v, "")
    if t == "char":
        return c_char(v) if isinstance(v, str) and len(v) == 1 and v.isascii() else None
    if _C_INTEGER.fullmatch(t):
        return c_scalar("long" if "long" in t else "int", v, "LL")
    return c_scalar("real", v, "") if t in ("double", "float") else None


def _c_declare(name: str, p: _CParam, v: object) -> list[str] | None:
    """Locals (`name`, `nameSize`, ...) holding an argument, and the C arguments that pass it; None if `v` is not
    of its shape."""
    if p.kind == "scalar":
        value = _c_scalar(p.element, v)
        return None if value is None else [f"{p.element} {name} = {value};", name]
    if p.kind == "string":
        text = _c_text(v)
        return None if text is None else [f"char {name}[] = {text};", name]
    if not isinstance(v, list | tuple):
        return None
    if p.kind in ("array", "strings"):
        items = [_c_text(x) if p.kind == "strings" else _c_scalar(p.element, x) for x in v]
        written = [x for x in items if x is not None]
        if len(written) != len(items):
            return None
        padded = ", ".join([*written, "0"])  # never an empty initializer; the size says how many there are
        element = "char*" if p.kind == "strings" else p.element
        return [f"{element} {name}[] = {{{padded}}}; int {name}Size = {len(v)};", f"{name}, {name}Size"]
    rows, lines = [], []
    for r, row in enumerate(v):
        declared = _c_declare(f"{name}r{r}", _CParam("array", p.element), row)
        if declared is None:
            return None
        lines.append(declared[0])
        rows.append(f"{name}r{r}")
    lines.append(f"{p.element}* {name}[] = {{{', '.join([*rows, '0'])}}}; int {name}Size = {len(v)};")
    sizes = ", ".join([*(f"{name}r{r}Size" for r in range(len(v))), "0"])
    lines.append(f"int {name}Cols[] = {{{sizes}}};")
    return [" ".join(lines), f"{name}, {name}Size, {name}Cols"]


def _c_print(p: _CParam, value: str, size: str, cols: str) -> str | None:
    """A statement printing `value` (of `p`'s shape) as JSON."""
    print_one = {"bool": "jg_bool", "char": "jg_char", "double": "jg_real", "float": "jg_real", "char*": "jg_str"}
    one = print_one.get(p.element) or ("jg_int" if _C_INTEGER.fullmatch(p.element) else None)
    if one is None:
        return None
    if p.kind == "scalar":
        return f"{one}({value});"
    if p.kind == "string":
        return f"jg_str({value});"
    row = f"{one}({value}[i]);"
    if p.kind == "grid":
        row = f"putchar('['); for (int j = 0; j < {cols}[i]; j++) {{ if (j) putchar(','); {one}({value}[i][j]); }}"
        row += " putchar(']');"
    return f"putchar('['); for (int i = 0; i < {size}; i++) {{ if (i) putchar(','); {row} }} putchar(']');"


_C_JSON = sandbox_source("call_json.c")
"""The values as JSON, and the build's token that starts the report line (spelled by the driver: `__JG_MASKED__`
and `__JG_MASK__`, under a name `__JG_KEY__` the answer cannot know)."""


_C_HEADERS = "".join(
    f"#include <{h}.h>\n" for h in ("stdio", "stdlib", "string", "stdbool", "math", "limits", "ctype", "stdint")
)
"""What LeetCode's C environment gives an answer without its own includes."""


_C_NATURAL = {"bool": "bool", "int": "int", "long": "long long", "real": "double"}


def _c_natural(kind: str) -> _CParam | None:
    """A statement's value of `kind` (`value_kind`) as LeetCode's C takes it: a scalar, a string, an array and its
    size, strings, or a grid."""
    if kind in _C_NATURAL:
        return _CParam("scalar", _C_NATURAL[kind])
    if kind == "string":
        return _CParam("string", "char")
    if kind == "list<string>":
        return _CParam("strings", "char*")
    inner = kind[5:-1] if kind.startswith("list<") else ""
    if inner in _C_NATURAL:
        return _CParam("array", _C_NATURAL[inner])
    row = inner[5:-1] if inner.startswith("list<") else ""
    return _CParam("grid", _C_NATURAL[row]) if row in _C_NATURAL else None


def _c_naturally(calls: Sequence[tuple[object, ...]]) -> list[_CParam] | None:
    """Each argument of `calls` as the statement's values are (`_c_natural`), where all calls agree on it."""
    if len({len(args) for args in calls}) != 1:
        return None
    params = []
    for i in range(len(calls[0])):
        kind = argument_kind(calls, i)
        param = None if kind is None else _c_natural(kind)
        if param is None:
            return None
        params.append(param)
    return params


def _c(code: str, name: str, calls: Sequence[tuple[object, ...]], natural: bool = False) -> str | None:
    if natural:  # any signature: the statement's values as C takes them, the result printed as its type is
        m = re.search(rf"(?:^|[;}}])\s*((?:[\w\s]|\*)*?)\b{re.escape(name)}\s*\(([^)]*)\)\s*\{{", code, re.M)
        params = _c_naturally(calls) if m and calls and not LEETCODE_NODES.search(m.group(0)) else None
        if m is None or params is None:
            return None
        returns = _c_type(re.sub(r"\b(?:static|inline|const)\b", " ", m.group(1)))
        return _c_runner(code, name, calls, params, [], "void" if returns == "void" else "__auto_type", "jg_any(jg_r);")
    m = re.search(rf"\b({_C_TYPE}\s*\**)\s*\b{re.escape(name)}\s*\(([^)]*)\)\s*\{{", code)
    parsed = _c_params(m.group(2)) if m else None
    if m is None or parsed is None:
        return None
    params, returned = parsed
    returns = _c_type(re.sub(r"\b(?:static|inline|const)\b", " ", m.group(1)))
    if returns.endswith("**") and returned == list(_C_RETURNED):
        shape = _CParam("grid", returns[:-2])
    elif returns == "char*" and not returned:
        shape = _CParam("string", "char")
    elif returns.endswith("*") and returned == ["returnSize"]:
        shape = _CParam("strings" if returns == "char**" else "array", returns[:-1])
    elif returns == "void" or (not returned and "*" not in returns):
        shape = _CParam("scalar", returns)
    else:
        return None
    value = 'fputs("null", stdout);' if returns == "void" else _c_print(shape, "jg_r", "jg_rs", "jg_rcs")
    return None if value is None else _c_runner(code, name, calls, params, returned, returns, value)


def _c_runner(
    code: str,
    name: str,
    calls: Sequence[tuple[object, ...]],
    params: list[_CParam],
    returned: list[str],
    returns: str,
    value: str,
) -> str | None:
    """The runner: each call's arguments declared as `params`, its result kept as `returns` and printed by
    `value` (`void`: nothing kept, `null` printed), the first argument printed after it."""
    value = 'fputs("null", stdout);' if returns == "void" else value
    first = _c_print(params[0], "a0", "a0Size", "a0Cols") if params else 'fputs("null", stdout);'
    if first is None:
        return None
    extra = {"returnSize": "&jg_rs", "returnColumnSizes": "&jg_rcs"}
    cases = []
    for k, args in enumerate(calls):
        if len(args) != len(params):
            return None
        declared = [_c_declare(f"a{i}", p, v) for i, (p, v) in enumerate(zip(params, args, strict=True))]
        if any(d is None for d in declared):
            return None
        lines = [d[0] for d in declared if d is not None]
        passing = [d[1] for d in declared if d is not None] + [extra[r] for r in returned]
        call = f"{name}({', '.join(passing)})"
        lines.append(f"{call};" if returns == "void" else f"{returns} jg_r = {call};")
        report = f'printf("{{\\"value\\":"); {value} printf(",\\"first\\":"); {first} printf("}}\\n");'
        lines.append(f'printf("\\n"); __JG_KEY___token(); {report} break;')
        cases.append(f"case {k}: {{ {' '.join(lines)} }}")
    return (
        f"{_C_HEADERS}#define main jg_answer_main\n{code}\n#undef main\n{_C_JSON}\n"
        "int main(void) { int jg_case = -1; int jg_rs = 0; int* jg_rcs = 0; (void)jg_rs; (void)jg_rcs;\n"
        'if (scanf("%d", &jg_case) != 1) return 2; switch (jg_case) {\n' + "\n".join(cases) + "\n} return 0; }\n"
    )


languages.register("c", C("c", ("c",), _C_START, re.compile(r"\bmain\s*\("), NATIVE_LIMITS, 512, {}))
