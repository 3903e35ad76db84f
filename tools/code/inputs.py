"""Inputs for differential testing, made without a model: mutations of the statement's example inputs, small and
edge values typed from a function's signature, and value-level mutations of contest samples that keep their
shape (the counts stay). Deterministic for a given statement (seeded by its text), bounded in count and size."""

from __future__ import annotations

import ast
import hashlib
import itertools
import random
import re
from typing import TypeVar

_T = TypeVar("_T")


MAX_INPUTS = 40
MAX_ITEMS = 12
"""Longest list or string a generated input holds (the statement's own may be longer; mutations do not grow
them past it)."""


def _rng(seed_text: str) -> random.Random:
    return random.Random(int.from_bytes(hashlib.sha256(seed_text.encode()).digest()[:8], "big"))


# ---------------------------------------------------------------- values


def mutations(value: object, rng: random.Random) -> list[object]:
    """Small changes to one value, of the same type: what separates a right program from a nearly right one
    (off by one, empty, a repeated element, another order)."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return list(dict.fromkeys(v for v in (value + 1, value - 1, 0, 1, 2 * value, -value) if v != value))
    if isinstance(value, float):
        return [value + 0.5, value - 1.0, 0.0, value * 2]
    if isinstance(value, str):
        texts = ["", value[:1], value[::-1], value + value[:1], value[1:]]
        if len(value) > 1:
            chars = list(value)
            rng.shuffle(chars)
            texts.append("".join(chars))
        digits = [i for i, c in enumerate(value) if c.isdigit()]
        for i in rng.sample(digits, min(3, len(digits))):  # formats with numbers in them (dates, times, ids)
            for d in ("0", "9", str((int(value[i]) + 1) % 10)):
                texts.append(value[:i] + d + value[i + 1 :])
        return [v for v in dict.fromkeys(texts) if v != value]
    if isinstance(value, list):
        out: list[object] = [[], value[:1], value[::-1], sorted(value, key=repr), value[1:]]
        if value:
            out.append([*value, value[-1]])
            i = rng.randrange(len(value))
            for changed in mutations(value[i], rng)[:2]:
                out.append([*value[:i], changed, *value[i + 1 :]])
            shuffled = list(value)
            rng.shuffle(shuffled)
            out.append(shuffled)
        return _distinct([v for v in out if v != value])
    if isinstance(value, tuple):
        return [tuple(v) for v in mutations(list(value), rng) if isinstance(v, list)]
    return []


def _distinct(values: list[_T]) -> list[_T]:
    seen: set[str] = set()
    out: list[_T] = []
    for v in values:
        key = repr(v)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


_BY_TYPE: dict[str, list[object]] = {
    "int": [0, 1, 2, 3, -1, 7, 10, 100],
    "float": [0.0, 1.0, 2.5, -1.5, 10.0],
    "bool": [True, False],
    "str": ["", "a", "ab", "aba", "abc", "Hello World", "aA1 !"],
}


_NAMED_LIST = re.compile(r"^(?:arr\w*|lst|list\w*|l|nums?|numbers|xs|values|array|items|elements|data|seq\w*)$")
_NAMED_STR = re.compile(r"^(?:s|st|str\w*|text|txt|word\w*|sentence|name|date|message|line)$")
_NAMED_INT = re.compile(r"^(?:n|m|k|x|y|z|a|b|c|i|j|num\w*|base|value|limit|count|size|p|q)$")


def _values_named(name: str) -> list[object] | None:
    """An unannotated parameter's values, by the names statements give them (`arr`, `s`, `n`)."""
    if _NAMED_LIST.match(name):
        return _values_of(ast.parse("List[int]", mode="eval").body)
    if _NAMED_STR.match(name):
        return _BY_TYPE["str"]
    if _NAMED_INT.match(name):
        return _BY_TYPE["int"]
    return None


def _values_of(annotation: ast.expr | None) -> list[object] | None:
    """Small and edge values of an annotated type (`int`, `str`, `List[int]`, `list[str]`, `Optional[...]`)."""
    if annotation is None:
        return None
    if isinstance(annotation, ast.Name) and annotation.id in _BY_TYPE:
        return _BY_TYPE[annotation.id]
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return _values_of(ast.parse(annotation.value, mode="eval").body)
        except SyntaxError:
            return None
    if isinstance(annotation, ast.Subscript):
        outer = annotation.value
        name = outer.id if isinstance(outer, ast.Name) else outer.attr if isinstance(outer, ast.Attribute) else ""
        inner = annotation.slice
        if name.lower() == "list":
            items = _values_of(inner)
            if items is None:
                return None
            small = [v for v in items if v not in ("", "Hello World")][:5] or items[:3]
            return [[], small[:1], small[:3], small[::-1], [small[0]] * 3, small[1:] + small[:1]]
        if name == "Optional":
            values = _values_of(inner)
            return None if values is None else [None, *values]
    return None


def from_signature(source: str, function: str) -> list[tuple[object, ...]]:
    """Argument tuples typed from `function`'s annotations in `source` (a statement's starter or a candidate):
    every parameter's small values, combined, bounded."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == function:
            params = [a for a in node.args.args if a.arg not in ("self", "cls")]
            pools = [_values_of(a.annotation) if a.annotation is not None else _values_named(a.arg) for a in params]
            if not params or any(p is None for p in pools):
                return []
            combos = list(itertools.islice(itertools.product(*[p for p in pools if p is not None]), 400))
            _rng(source + function).shuffle(combos)
            return [tuple(c) for c in combos[:MAX_INPUTS]]
    return []


def call_inputs(example_args: list[tuple[object, ...]], seed_text: str) -> list[tuple[object, ...]]:
    """Mutations of the examples' argument tuples: one argument changed at a time, the examples' own first."""
    rng = _rng(seed_text)
    out: list[tuple[object, ...]] = []
    for args in example_args:
        for position, value in enumerate(args):
            for changed in mutations(value, rng):
                if _size(changed) <= max(MAX_ITEMS, _size(value)):
                    out.append((*args[:position], changed, *args[position + 1 :]))
    rng.shuffle(out)
    return _distinct(out)[:MAX_INPUTS]


def _size(value: object) -> int:
    return len(value) if isinstance(value, str | list | tuple) else 1


# ---------------------------------------------------------------- stdin

_TOKEN = re.compile(r"-?\d+|[A-Za-z]+")


def stdin_inputs(samples: list[str], seed_text: str) -> list[str]:
    """Mutations of contest samples that keep their shape: the first line and a line holding one number (sizes
    and counts, most often) are kept, unless the sample is that one line (`n`, `a b`: the values themselves);
    on other lines one value changes at a time (a number by a little, a word by a letter), or the line's values
    are reordered; a count and the list it counts change size together."""
    rng = _rng(seed_text)
    out: list[str] = []
    for sample in samples:
        lines = sample.rstrip("\n").split("\n")
        for k, line in enumerate(lines):
            tokens = line.split()
            alone = len(lines) == 1
            if not alone and (k == 0 or (len(tokens) < 2 and not re.search(r"[A-Za-z]", line))):
                continue  # the first line and lone numbers are sizes and counts, most often
            for j, token in enumerate(tokens):
                for changed in _token_mutations(token, rng):
                    new = [*tokens[:j], changed, *tokens[j + 1 :]]
                    out.append("\n".join([*lines[:k], " ".join(new), *lines[k + 1 :]]) + "\n")
            if len(tokens) > 1:
                shuffled = list(tokens)
                rng.shuffle(shuffled)
                out.append("\n".join([*lines[:k], " ".join(shuffled), *lines[k + 1 :]]) + "\n")
                out.append("\n".join([*lines[:k], " ".join(tokens[::-1]), *lines[k + 1 :]]) + "\n")
        out += _resized(lines)
    rng.shuffle(out)
    normalized = {s.rstrip("\n") for s in samples}
    return [s for s in dict.fromkeys(out) if s.rstrip("\n") not in normalized][:MAX_INPUTS]


def _resized(lines: list[str]) -> list[str]:
    """Where a line holding one number n is followed by a line of n values (a count and its list), the list one
    shorter, one longer and of one value, with the count changed to match: the sizes a sample never shows."""
    out = []
    for k in range(len(lines) - 1):
        if not re.fullmatch(r"\s*\d+\s*", lines[k]):
            continue
        n, values = int(lines[k]), lines[k + 1].split()
        if n < 2 or len(values) != n:
            continue
        for size in (n - 1, n + 1, 1):
            changed = values[:size] if size <= n else [*values, values[-1]]
            out.append("\n".join([*lines[:k], str(size), " ".join(changed), *lines[k + 2 :]]) + "\n")
    return out


def _token_mutations(token: str, rng: random.Random) -> list[str]:
    if re.fullmatch(r"-?\d+", token):
        n = int(token)
        return [str(v) for v in dict.fromkeys((n + 1, n - 1 if n > 0 else n + 2, max(0, n // 2))) if v != n]
    if re.fullmatch(r"[A-Za-z]+", token) and len(token) > 1:
        chars = list(token)
        i = rng.randrange(len(chars))
        chars[i] = "a" if chars[i] != "a" else "b"
        return ["".join(chars), token[::-1]]
    return []
