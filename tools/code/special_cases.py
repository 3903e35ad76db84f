"""Programs that answer the statement's examples from a table of them: `{(2, 3): 5, (-4, 10): 6}.get((a, b))`,
`if a == 2 and b == 3: return 5`, `if s == "3\\n1 2 3": print(6)`, in any language. Such a program passes every
example and knows nothing else; where the examples are all the evidence there is (one rollout, no tests), passing
them would otherwise leave it undecided. A program that special-cases every example is failed by construction.

Read from the source's literals, language by language only in how comments and strings are written: every decisive
example's inputs must appear as consecutive literals followed closely by its expected output's (or just after it,
as a conditional expression writes them: `5 if (a, b) == (2, 3) else ...`), and the examples'
entries must stand together, with no other literal among them (a real table of the whole domain, like the days of
each month, holds more than the examples and is left alone). An example's inputs passed to the function under test
(`assert addTwo(2, 3) == 5`: a self-test) are not a table. Statements whose examples are too small to be told from
a base case (`n = 1` gives 1) are not read; an example whose output has no literal (None, an empty list) is the
table's default and is not looked for.

A table keyed by a value computed from the inputs (`{11: [1, 2, 3, 5], 9: [...]}[sum(nums)]`, `if len(nums) == 4:
return [1, 2, 3, 5]`, `print(6 if n == 3 else 105)`) is read by its outputs alone: every decisive example whose
output holds a literal that is not tiny finds that output as consecutive literals in the source, and where they
stand (the innermost bracket holding them all, else the whole source) holds no more other literals than one key
per example, so a table of a whole domain (the Catalan numbers, the days of each month) is left alone.

Either reading is only a suspicion: the program is then run with those outputs changed (`Table`), and only one
that gives the changed values on every example answers from its table.

What this does not see (stated, not hidden): a table padded with entries no example has, or whose outputs are
computed from literals rather than written. Those remain passes of the examples, as any program's are, and decide
nothing alone.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from judgegraph.tools.code.literals import UNREADABLE
from judgegraph.tools.code.statement import Example

MAX_GAP_TOKENS = 16
"""Tokens allowed between an example's last input literal and its output's (`): return `, `}} -> `)."""
MAX_SKIPPED = 2
"""Tiny literals allowed there (`== 0`, `!= -1`, `== true`): a comparison's, not an entry's."""
MIN_DISTINCT_INPUTS = 2
"""Across all the examples, input literals that are not tiny (a number beyond -2..2, a string of two or more
characters): fewer cannot be told from a program's base cases (`if n == 1: return 1`)."""
MAX_SOURCE_CHARS = 200_000
SENTINEL = 7919
"""The first value a table's outputs are changed to (then 7920, ...): no example's answer, no base case's."""

_C_FAMILY = (
    r"//[^\n]*|/\*.*?\*/",
    r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|`[^`]*`',
)
_PYTHON = (r"#[^\n]*", r'"""(?:\\.|[^\\])*?"""|\'\'\'(?:\\.|[^\\])*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_NUMBER = r"0[xX][0-9a-fA-F_]+|(?:\d[\d_]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_WORD = r"[A-Za-z_][A-Za-z_0-9]*"
_CLOSES = frozenset(")]}")
_BEFORE_A_SIGN = frozenset("return yield case else then and or not in is print puts echo await assert when".split())
"""Words after which a minus is a sign (`return -1`), not a subtraction (`n - 1`)."""
_BOOLEANS = {"true": "false", "false": "true", "True": "False", "False": "True"}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}


@dataclass(frozen=True)
class _Token:
    kind: str  # "number", "string", "word", "punct"
    text: str
    start: int


@dataclass(frozen=True)
class _Literal:
    """A value the source writes: a number, a boolean, or one whitespace-separated piece of a string."""

    token: int
    text: str
    """By value: `0x10` is 16, `-4` keeps its sign, a string's piece as its escapes read."""
    start: int
    end: int
    """Where its characters are in the source (a number's without its sign)."""
    kind: str


@dataclass(frozen=True)
class Table:
    """A program read as a table of the examples, and how to tell: the same program with each example's output
    in the table changed to a value no example has, and the examples expecting those values. A program that gives
    the changed values answers from its table; one that merely mentions the examples (a test table it asserts
    over) does not."""

    changed_code: str
    changed_examples: list[Example]


@functools.cache
def _lexer(language: str) -> re.Pattern[str]:
    comment, string = _PYTHON if language == "python" else _C_FAMILY
    return re.compile(
        rf"(?P<comment>{comment})|(?P<string>{string})|(?P<number>{_NUMBER})|(?P<word>{_WORD})|(?P<space>\s+)"
        r"|(?P<punct>.)",
        re.DOTALL,
    )


def _tokens(code: str, language: str) -> list[_Token]:
    out: list[_Token] = []
    for m in _lexer(language).finditer(code[:MAX_SOURCE_CHARS]):
        kind = m.lastgroup or "punct"
        if kind not in ("comment", "space"):
            out.append(_Token(kind, m.group(), m.start()))
    return out


def _number_text(text: str) -> str | None:
    t = text.replace("_", "")
    try:
        if t.lower().startswith("0x"):
            return str(int(t, 16))
        value = Fraction(t)
    except (ValueError, ZeroDivisionError):
        return None
    return str(value.numerator) if value.denominator == 1 else repr(float(value))


def _string_pieces(tok: _Token) -> Iterator[tuple[str, int, int]]:
    """A string literal's whitespace-separated pieces, its common escapes read (a line break, a tab), each with
    its span in the source."""
    quote = 3 if tok.text[:3] in ('"""', "'''") else 1
    raw = tok.text[quote:-quote]
    chars: list[str] = []
    at: list[tuple[int, int]] = []
    i = 0
    while i < len(raw):
        width = 2 if raw[i] == "\\" and i + 1 < len(raw) else 1
        chars.append(_ESCAPES.get(raw[i + 1], raw[i + 1]) if width == 2 else raw[i])
        at.append((i, i + width))
        i += width
    base = tok.start + quote
    for m in re.finditer(r"\S+", "".join(chars)):
        yield m.group(), base + at[m.start()][0], base + at[m.end() - 1][1]


def _signed(toks: list[_Token], i: int) -> bool:
    """The minus before number token `i` is its sign (`-4`, `return -1`), not a subtraction (`n - 1`)."""
    if i < 1 or toks[i - 1].text != "-":
        return False
    if i < 2:
        return True
    before = toks[i - 2]
    operand = before.kind in ("number", "string") or before.text in _CLOSES
    return not (operand or (before.kind == "word" and before.text not in _BEFORE_A_SIGN))


def _subscript(toks: list[_Token], i: int) -> bool:
    """`a[0]`, `v[1]`: an index, not a value the program holds."""
    if i < 2 or i + 1 >= len(toks) or toks[i - 1].text != "[" or toks[i + 1].text != "]":
        return False
    before = toks[i - 2]
    return (before.kind == "word" and before.text not in _BEFORE_A_SIGN) or before.text in _CLOSES


def literals(toks: list[_Token]) -> list[_Literal]:
    """The source's literals in order."""
    out: list[_Literal] = []
    for i, t in enumerate(toks):
        end = t.start + len(t.text)
        if t.kind == "number" and (text := _number_text(t.text)) is not None and not _subscript(toks, i):
            if _signed(toks, i) and text != "0":
                text = text[1:] if text.startswith("-") else "-" + text
            out.append(_Literal(i, text, t.start, end, "number"))
        elif t.kind == "string":
            out.extend(_Literal(i, piece, a, b, "string") for piece, a, b in _string_pieces(t))
        elif t.kind == "word" and t.text in _BOOLEANS:
            out.append(_Literal(i, t.text.lower(), t.start, end, "boolean"))
    return out


def _scalars(value: object) -> list[str] | None:
    """A value's literals in the order a program writes them; None where it holds something else."""
    if isinstance(value, bool):
        return [str(value).lower()]
    if isinstance(value, int):
        return [str(value)]
    if isinstance(value, float):
        return [_number_text(repr(value)) or repr(value)]
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list | tuple):
        out: list[str] = []
        for v in value:
            inner = _scalars(v)
            if inner is None:
                return None
            out.extend(inner)
        return out
    return None


def _texts(text: str) -> list[str]:
    return [_number_text(w) or w for w in text.split()]


def _example_literals(example: Example) -> tuple[list[str], list[str]] | None:
    """(inputs, output) as literals; None where the example cannot be read so."""
    if example.stdin is not None:
        inputs: list[str] | None = _texts(example.stdin)
    else:
        inputs = _scalars([*example.args, *example.kwargs.values()])
    by_text = example.stdin is not None or example.expected is UNREADABLE
    output = _texts(example.expected_text) if by_text else _scalars(example.expected)
    if not inputs or not output:
        return None
    return inputs, output


def _occurrence(
    found: list[_Literal], toks: list[_Token], inputs: list[str], output: list[str], called: set[str]
) -> tuple[int, int, int, int] | None:
    """The first place the inputs stand as consecutive literals with the output's close by: after them (a table,
    an `if`), or just before them (a conditional expression: `5 if (a, b) == (2, 3) else ...`). (first, first
    output, last output, last) as indices into `found`, first and last spanning the inputs and the output."""
    texts = [f.text for f in found]
    m, k = len(inputs), len(output)
    for s in range(len(texts) - m + 1):
        if texts[s : s + m] != inputs or _called_with(toks, found[s].token, called):
            continue
        for skip in range(MAX_SKIPPED + 1):  # `strcmp(s, "2 3") == 0) puts("5")`: a comparison's own 0
            o = s + m + skip
            if o + k > len(texts) or (skip and not _tiny(texts[o - 1])):
                break
            if texts[o : o + k] == output and found[o].token - found[s + m - 1].token <= MAX_GAP_TOKENS:
                return s, o, o + k - 1, o + k - 1
        o = s - k  # the output written before its inputs, nothing between
        if o >= 0 and texts[o:s] == output and found[s].token - found[s - 1].token <= MAX_GAP_TOKENS:
            return o, o, s - 1, s + m - 1
    return None


def _called_with(toks: list[_Token], at: int, called: set[str]) -> bool:
    """The literal at token `at` is an argument of a call to the function under test (a self-test)."""
    depth = 0
    for j in range(at - 1, max(at - 6, 0) - 1, -1):
        if toks[j].text in _CLOSES:
            depth += 1  # a bracket closed before the literal: `def f(n): return [2, 3]`
        elif toks[j].text in "([{" and toks[j].kind == "punct":
            if depth == 0 and toks[j].text == "(":
                return j > 0 and toks[j - 1].text in called
            depth = max(depth - 1, 0)  # a list the literal stands in, perhaps an argument: `f([2, 3])`
    return False


def _tiny(literal: str) -> bool:
    if _number_text(literal) is not None:
        return literal in ("-2", "-1", "0", "1", "2")
    return literal in ("true", "false") or len(literal) < 2


def find_table(code: str, language: str, examples: Sequence[Example], called: set[str]) -> Table | None:
    """`code` read as a table of the examples, keyed by their inputs or by anything (the module's two readings);
    None otherwise. `called`: the names the examples call (the function under test), whose calls are self-tests,
    not tables."""
    read = [(e, r) for e in examples if e.decisive and (r := _example_literals(e)) is not None]
    if sum(not _tiny(x) for _, (inputs, _) in read for x in inputs) < MIN_DISTINCT_INPUTS:
        return None
    toks = _tokens(code, language)
    found = literals(toks)
    keys = sum(e.decisive for e in examples)
    places = _keyed_by_inputs(found, toks, read, called) or _keyed_by_outputs(found, toks, read, called, keys)
    return None if places is None else _changed(code, found, places)


def _keyed_by_inputs(
    found: list[_Literal], toks: list[_Token], read: list[tuple[Example, tuple[list[str], list[str]]]], called: set[str]
) -> list[tuple[Example, list[range]]] | None:
    """Every example's inputs as consecutive literals followed closely by its output's, the entries standing
    together with no other literal among them."""
    spans: list[tuple[int, int, int, int]] = []
    for _, (inputs, output) in read:
        span = _occurrence(found, toks, inputs, output, called)
        if span is None:
            return None
        spans.append(span)
    covered = {i for first, _, _, last in spans for i in range(first, last + 1)}
    region = range(min(s for s, _, _, _ in spans), max(e for _, _, _, e in spans) + 1)
    # the examples' entries, and no other, stand together (a tiny literal between them is the code's: `return 0`)
    if not all(i in covered or _tiny(found[i].text) for i in region):
        return None
    return [(e, [range(o, last + 1)]) for (e, _), (_, o, last, _) in zip(read, spans, strict=True)]


def _keyed_by_outputs(
    found: list[_Literal],
    toks: list[_Token],
    read: list[tuple[Example, tuple[list[str], list[str]]]],
    called: set[str],
    keys: int,
) -> list[tuple[Example, list[range]]] | None:
    """The examples' outputs written as literals, whatever the keys (computed from the inputs): for every example
    whose output holds a literal that is not tiny, each place its output stands as consecutive literals (outside
    self-tests), where they stand holding at most `keys` other literals (one per decisive example). Only outputs
    holding a number that is not tiny are looked for: `return 0`, `print("YES")` and `return "Alice"` are what an
    honest program writes too (their examples' keys are allowed). Examples with the same output share its
    places; fewer than two examples found leave nothing to tell."""
    texts = [f.text for f in found]
    places: list[tuple[Example, list[range]]] = []
    for example, (_, output) in read:
        if not any(_number_text(x) is not None and not _tiny(x) for x in output):
            continue  # tiny or a label (`YES`, `Alice`): what an honest program writes too
        k = len(output)
        at = [
            range(s, s + k)
            for s in range(len(texts) - k + 1)
            if texts[s : s + k] == output and not _called_with(toks, found[s].token, called)
        ]
        places.append((example, at))
    # an output standing inside a longer one's (`[2, 3]` in `[2, 3, 5, 7]`) is that one's
    spans = [where for _, at in places for where in at]
    places = [
        (e, [w for w in at if not any(len(o) > len(w) and w.start >= o.start and w.stop <= o.stop for o in spans)])
        for e, at in places
    ]
    owner: dict[int, tuple[str, ...]] = {}
    for _, at in places:
        if not at:
            return None
        for where in at:
            answer = tuple(texts[i] for i in where)
            if any(owner.setdefault(i, answer) != answer for i in where):
                return None  # one literal answering two different outputs: not a table of them
    if len(places) < 2:
        return None
    first = min(found[i].token for i in owner)
    last = max(found[i].token for i in owner)
    lo, hi = _enclosing(toks, first, last)
    others = [f for i, f in enumerate(found) if lo <= f.token <= hi and i not in owner and not _tiny(f.text)]
    return places if len(others) <= keys else None


def _enclosing(toks: list[_Token], first: int, last: int) -> tuple[int, int]:
    """The innermost bracket pair holding tokens `first` to `last`, as token indices; the whole source where none
    does."""
    opens = {")": "(", "]": "[", "}": "{"}
    stack: list[int] = []
    best = (0, len(toks) - 1)
    for i, t in enumerate(toks):
        if t.kind != "punct":
            continue
        if t.text in "([{":
            stack.append(i)
        elif t.text in opens and stack and toks[stack[-1]].text == opens[t.text]:
            start = stack.pop()
            if start < first and i > last and i - start < best[1] - best[0]:
                best = (start, i)
    return best


def _changed(code: str, found: list[_Literal], outputs: list[tuple[Example, list[range]]]) -> Table:
    """The table with each example's output literals (wherever they stand) changed to values no example has, and
    the examples so."""
    edits: dict[int, str] = {}
    changed: list[Example] = []
    fresh = itertools.count(SENTINEL)
    numbers: dict[tuple[str, ...], list[int]] = {}  # examples with the same output share its new values
    for example, places in outputs:
        output = tuple(found[i].text for i in places[0])
        values = numbers.setdefault(output, [next(fresh) for _ in output])
        new_texts: list[str] = []
        for where in places:
            new_texts = []
            for i, n in zip(where, values, strict=True):
                lit = found[i]
                source, value = _replacement(lit, code[lit.start : lit.end], n)
                edits[i] = source
                new_texts.append(value)
        changed.append(_expecting(example, new_texts))
    out = code
    for i in sorted(edits, key=lambda i: found[i].start, reverse=True):
        out = out[: found[i].start] + edits[i] + out[found[i].end :]
    return Table(out, changed)


def _replacement(lit: _Literal, source: str, n: int) -> tuple[str, str]:
    """(what the source now writes, the literal's new value as text)."""
    if lit.kind == "boolean":
        return _BOOLEANS[source], _BOOLEANS[source].lower()
    if lit.kind == "number" or _number_text(lit.text) is not None:
        whole = "." not in lit.text and "e" not in lit.text.lower()
        digits = str(n) if whole else f"{n}.5"
        return digits, ("-" + digits if lit.text.startswith("-") and lit.kind == "number" else digits)
    word = f"Zq{n}x"
    return word, word


def _expecting(example: Example, texts: list[str]) -> Example:
    """`example` expecting `texts` in place of its output's literals, in order."""
    pieces = iter(texts)
    if example.stdin is None and example.expected is not UNREADABLE:
        value = _with_scalars(example.expected, pieces)
        return dataclasses.replace(example, expected=value, expected_text=repr(value))
    text = re.sub(r"\S+", lambda m: next(pieces, m.group()), example.expected_text)
    expected = example.expected if example.expected is UNREADABLE else text
    return dataclasses.replace(example, expected=expected, expected_text=text)


def _with_scalars(value: object, pieces: Iterator[str]) -> object:
    if isinstance(value, bool):
        return next(pieces) == "true"
    if isinstance(value, int | float):
        new = Fraction(next(pieces))
        return int(new) if isinstance(value, int) and new.denominator == 1 else float(new)
    if isinstance(value, str):
        return " ".join(next(pieces, w) for w in value.split())
    if isinstance(value, list):
        return [_with_scalars(v, pieces) for v in value]
    if isinstance(value, tuple):
        return tuple(_with_scalars(v, pieces) for v in value)
    return value
