"""How values travel into and out of a compiled answer: a signature's parameters split and typed, scalars written
as each language spells them (the languages' modules write their own containers)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from judgegraph.tools.code.languages._base import split_params


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
