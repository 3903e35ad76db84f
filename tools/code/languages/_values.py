"""How values travel into and out of a compiled answer: a signature's parameters split and typed, scalars written
as each language spells them (the languages' modules write their own containers)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence

from judgegraph.tools.code.languages._base import split_params
from judgegraph.tools.code.statement import LEETCODE_NODES


def param_types(params: str) -> list[str]:
    """Each parameter's type, its name, `const`, references and annotations taken off."""
    types = []
    for p in split_params(params):
        p = re.sub(r"@\w+\s*", "", p.split("=")[0])
        p = re.sub(r"\b(?:const|final)\b", "", p).replace("&", " ")
        m = re.match(r"^(.*?[\w>\]\*])\s*\b(\w+)\s*$", p.strip())
        types.append(re.sub(r"\s+", " ", m.group(1)).strip() if m else p.strip())
    return types


def declared_locals(
    types: list[str],
    calls: Sequence[tuple[object, ...]],
    write: Callable[[str, object], str | None],
    declaration: str = "{t} a{i} = {v};",
) -> list[list[str]] | None:
    """For each call, a local for each argument (`T a0 = ...;`: C++ methods take references) as `declaration`
    spells it; None if an argument cannot be written as its type."""
    out = []
    for args in calls:
        if len(args) != len(types):
            return None
        values = [write(t, v) for t, v in zip(types, args, strict=True)]
        if None in values:
            return None
        out.append([declaration.format(t=t, i=i, v=v) for i, (t, v) in enumerate(zip(types, values, strict=True))])
    return out


def call_on_locals(target: str, arity: int) -> str:
    """`target(a0, a1, ...)`: a call on the argument locals."""
    return f"{target}({', '.join(f'a{i}' for i in range(arity))})"


def c_scalar(kind: str, v: object, long_suffix: str) -> str | None:
    """A C-family literal (C++, Java) of `kind`: bool, char, string, int, long or real; None if `v` is not one."""
    if kind == "bool":
        return ("true" if v else "false") if isinstance(v, bool) else None
    if kind == "char":
        return c_char(v) if isinstance(v, str) and len(v) == 1 else None
    if kind == "string":
        return json.dumps(v) if isinstance(v, str) else None
    if isinstance(v, bool):
        return None
    if kind in ("int", "long"):
        return f"{v}{long_suffix if kind == 'long' else ''}" if isinstance(v, int) else None
    if kind == "real":
        return repr(float(v)) if isinstance(v, int | float) else None
    return None


def c_char(c: str) -> str:
    return "'" + ("\\" + c if c in "'\\" else c) + "'"


# ---------------------------------------------------------------- arguments as the statement writes them

_INT32 = range(-(2**31), 2**31)


def value_kind(v: object) -> str | None:
    """What a statement's value is, in no language: `bool`, `int` (32 bits), `long`, `real`, `string` or
    `list<K>` (`list<?>` for an empty one); None for anything else (None itself, a map)."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int" if v in _INT32 else "long"
    if isinstance(v, float):
        return "real" if math.isfinite(v) else None
    if isinstance(v, str):
        return "string"
    if isinstance(v, list | tuple):
        kinds = [value_kind(x) for x in v]
        return None if None in kinds else f"list<{common_kind(kinds)}>"  # type: ignore[arg-type]
    return None


def common_kind(kinds: list[str]) -> str:
    """The one kind that holds all of `kinds` (`?` where none is known, `!` where none holds them all)."""
    out = "?"
    for k in kinds:
        out = _merge(out, k)
    return out


def _merge(a: str, b: str) -> str:
    if a == "?" or a == b:
        return b
    if b == "?":
        return a
    numbers = ("int", "long", "real")
    if a in numbers and b in numbers:
        return max(a, b, key=numbers.index)
    if a.startswith("list<") and b.startswith("list<"):
        return f"list<{_merge(a[5:-1], b[5:-1])}>"
    return "!"


_OWN_TYPES = re.compile(
    r"\b(?:class|struct|enum|union|interface|trait|record|type|typename|using)\s+(\w+)|\btypedef\b[^;]*?\b(\w+)\s*;"
    r"|[<\[,]\s*([A-Z]\w*)\s*(?=[:,>\]]|\s+(?:extends|super)\b|\s+[\w|~\s*]+[\],])"
)
"""A type the answer declares: a class, struct, alias or type of its own, or a type parameter (`template <class
T>`, `<T extends Number>`, `<T: Add>`, `[T int | int64]`)."""


def own_types(code: str) -> set[str]:
    """The types `code` declares for itself (`_OWN_TYPES`)."""
    return {name for m in _OWN_TYPES.finditer(code) for name in m.groups() if name}


def argument_kind(calls: Sequence[tuple[object, ...]], i: int) -> str | None:
    """The one kind every call's `i`-th argument is (`value_kind`, `common_kind`); None where one has none, or
    they have no known common one (an empty list alone, a number beside a string)."""
    kinds = [value_kind(args[i]) for args in calls]
    kind = None if None in kinds else common_kind(kinds)  # type: ignore[arg-type]
    return None if kind is None or "?" in kind or "!" in kind else kind


def natural_types(
    types: list[str],
    calls: Sequence[tuple[object, ...]],
    write: Callable[[str, object], str | None],
    spell: Callable[[str], str | None],
    generic: Callable[[str], bool],
) -> list[str] | None:
    """Each parameter's type, where the judge writes every call's argument as it, and else the type the
    language writes the statement's values in (`spell` of their common kind: `std::string`, `Vec<i64>`), where
    the value is a number, truth value or string (any type that takes one takes it so: `std::optional<int>`
    does, `std::pair` does not) or the declared type is `generic`: a type parameter, `auto`, `Object`, or a
    class or alias of the answer's own. Such a function is called with the statement's values as they are.
    None where every type is written already, a call has another number of arguments, some values have no
    common kind the language spells, or a list goes to a library's type (a set, a map: the judge's limit, not
    the answer's doing)."""
    if any(len(args) != len(types) for args in calls) or any(LEETCODE_NODES.search(t) for t in types):
        return None  # a tree or a linked list the statement writes as a list: not written as a list
    out, natural = [], False
    for i, t in enumerate(types):
        if all(write(t, args[i]) is not None for args in calls):
            out.append(t)
            continue
        kind = argument_kind(calls, i)
        if kind is not None and kind.startswith("list<") and not generic(t):
            return None  # a list into a library's container the judge does not write: its limit
        spelled = None if kind is None else spell(kind)
        if spelled is None:
            return None
        out.append(spelled)
        natural = True
    return out if natural else None


def spelling(scalars: dict[str, str], list_of: Callable[[str], str]) -> Callable[[str], str | None]:
    """A language's spelling of a kind (`value_kind`): its scalar types, and `list_of` an element's type."""

    def spell(kind: str) -> str | None:
        if kind.startswith("list<"):
            inner = spell(kind[5:-1])
            return None if inner is None else list_of(inner)
        return scalars.get(kind)

    return spell


def generic_in(code: str, words: frozenset[str]) -> Callable[[str], bool]:
    """Whether a declared type is generic in `code`: each name in it is one of the language's `words` (its
    scalars, its list type, `auto`, `Object`) or a type `code` declares for itself."""
    known = words | own_types(code)
    return lambda t: all(name in known for name in re.findall(r"[A-Za-z_]\w*", t))
