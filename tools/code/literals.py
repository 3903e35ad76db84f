"""Values as statements write them: Python's or JSON's spelling of a literal (`true`, `null`), and a call of
literals (`twoSum([2,7,11,15], 9)`). Parsing is `ast.literal_eval`: nothing here runs code."""

from __future__ import annotations

import ast
import re


class _Unreadable:
    """The expected value of a case whose output could not be read as data."""

    def __repr__(self) -> str:
        return "<unreadable>"


UNREADABLE: object = _Unreadable()


# ---------------------------------------------------------------- literals


def _jsonish(text: str) -> str:
    """LeetCode writes values as JSON: `true`, `false`, `null` outside strings become Python's."""
    out, i, quote = [], 0, ""
    words = {"true": "True", "false": "False", "null": "None"}
    while i < len(text):
        ch = text[i]
        if quote:
            out.append(ch)
            if ch == "\\" and i + 1 < len(text):
                out.append(text[i + 1])
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            out.append(ch)
        else:
            m = re.match(r"[A-Za-z_]\w*", text[i:])
            if m:
                out.append(words.get(m.group(0), m.group(0)))
                i += len(m.group(0))
                continue
            out.append(ch)
        i += 1
    return "".join(out)


def literal(text: str) -> object:
    """The value a literal denotes (Python's or JSON's spelling), else UNREADABLE."""
    text = text.strip().rstrip(",;").strip()
    if text.startswith("`") and text.endswith("`") and len(text) > 1:
        text = text.strip("`")
    if not text:
        return UNREADABLE
    for candidate in (text, _jsonish(text)):
        try:
            return ast.literal_eval(candidate)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return UNREADABLE


def literal_call(source: str) -> tuple[str, tuple[object, ...], dict[str, object]] | None:
    """`name(literal, ..., key=literal)` as (name, args, kwargs); None for anything else."""
    try:
        node = ast.parse(_jsonish(source.strip()), mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name is None:
        return None
    try:
        args = tuple(ast.literal_eval(a) for a in node.args)
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg is not None}
    except (ValueError, SyntaxError, TypeError, RecursionError):
        return None
    if any(k.arg is None for k in node.keywords):
        return None
    return name, args, kwargs
