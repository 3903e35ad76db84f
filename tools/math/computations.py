"""The worked computations in a response (`18 - 6 = 12`, `\\frac{3}{4} \\times 80 = 60`, `6 \\cdot 518400 =
3104400`), each checked on its own with exact arithmetic: evidence about a math solution that needs no reference
and no model.

Only what reads unambiguously as numbers is checked. A side that touches a variable (`2x + 3`), a function
(`f(2)`, `\\sin 30`), a unit joined to a number (`5cm`), a word that changes its meaning (`20% of 20`, `3 more
than`), two numbers without an operator (`1 \\frac{1}{10}`, a mixed number) or a power too large to evaluate is
skipped, not guessed; so is arithmetic in another base, modulo n or with carries, and an equation the response
itself says fails. Units that follow a number are read past (`20 sacks x 65 pounds = 1300 pounds`); a conversion
between units is not judged. Written values are read as people round them: `1/3 = 0.33` holds (one unit of the
last digit written, where the value needs more digits than written; `4.20 + 9.45 + 1.35 = 14.99` does not),
`250/60 = 4` (an integer where the value is not one: a count, a floor) is unsure, `≈` is lenient, and a repeating
decimal or a constant cut short and used again (`3.33 * 300`, `3.14159 * 18`) carries its rounding. Percentages
are read both ways (`0.25 × 100 = 25%` and `25% × 80 = 20` both hold).

Response text is untrusted: the evaluator is a small recursive-descent parser over exact fractions with bounded
powers; nothing reaches `eval` or sympy.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from judgegraph.tools.math.arithmetic import Token, Value, evaluate, plain, tokenize

Finding = Literal["right", "wrong", "unsure"]

MAX_LINE_CHARS = 2000
MAX_LINES = 2000
MAX_COMPUTATIONS = 200


@dataclass(frozen=True)
class Computation:
    """One relation between two numeric expressions, as the response wrote it, and what exact arithmetic says."""

    written: str
    left: str
    right: str
    value: str
    """The left side's value, as exact arithmetic gives it."""
    finding: Finding


_NUMERIC = frozenset({"number", "op"})
_DENY_BEFORE = frozenset(
    """of by than per over into times plus minus half twice double triple thrice squared cubed root remainder mod
    modulo choose binomial""".split()
)
"""Words that make the numbers after them mean something else (`20% of 20 = 4`, `3 more than 4 + 5`)."""
_DENY_AFTER = frozenset(
    """thousand thousands million millions billion billions trillion hundred hundreds dozen dozens percent times
    more less fewer of squared cubed plus minus tenths hundredths thousandths remainder r choose""".split()
)
"""Words that make the number before them mean something else (`= 5 thousand`, `= 3 more than`, `= 4 r 2`)."""


_FUNCTION_NAMES = frozenset("sin cos tan cot sec csc log ln lg exp lcm gcd max min det deg arg floor ceil mod".split())


def _names_something(word: str) -> bool:
    """A word that applies to the number after it: a LaTeX command (`\\sin 30`, `2005 \\circ 2004`), a
    subscript (`\\log_x`), a single letter (a variable: `x 2`), a function's name."""
    return word.startswith(("\\", "_")) or len(word) == 1 or word.lower() in _FUNCTION_NAMES


_FUNCTION_WORDS = frozenset(
    """a an the this that these those it its he she they we you i his her their our your my is are was were be been
    being has have had do does did will would can could should may might must and or but nor so then thus hence
    therefore also as if when while because since after before until for in on at to from with without into onto
    about above below left remaining total altogether overall each every apiece all both which who whom whose what
    where there here now still only just more less fewer most least another other""".split()
)
"""English's closed classes (articles, pronouns, auxiliaries, conjunctions, prepositions) and a few quantifiers:
where these follow a number, what follows is the sentence going on, not the number's unit."""


def _is_unit(tok: Token, after_slash: bool) -> bool:
    if tok.kind != "word" or tok.text.startswith(("\\", "_")) or not (tok.spaced or after_slash):
        return False
    word = tok.text.lower().strip("'")
    if word in _FUNCTION_WORDS or word in _DENY_AFTER or word in _FUNCTION_NAMES:
        return False
    return after_slash or len(word) > 1


def _without_units(toks: list[Token]) -> list[Token]:
    """`20 sacks x 65 pounds per sack` read as `20 x 65`, `36 (planned) + 4 (extra)` as `36 + 4`: words naming
    what a number counts, removed where they follow it. A word that goes on with the sentence ends the run."""
    out: list[Token] = []
    i, after_number = 0, False
    while i < len(toks):
        t = toks[i]
        j = _unit_run(toks, i) if after_number else i
        if j > i:
            words = tuple(w.text.lower() for w in toks[i:j] if w.kind == "word" and w.text.lower() != "per")
            out[-1] = Token(out[-1].kind, out[-1].text, out[-1].spaced, out[-1].units + words)
            out.append(Token("space", "", True))
            i = j
            continue
        out.append(t)
        after_number = t.kind == "number" or (t.kind == "op" and t.text == "%")
        i += 1
    # A removed run is read as the space it was.
    joined: list[Token] = []
    spaced = False
    for t in out:
        if t.kind == "space":
            spaced = True
            continue
        joined.append(Token(t.kind, t.text, t.spaced or spaced, t.units))
        spaced = False
    return joined


def _unit_run(toks: list[Token], i: int) -> int:
    """Where the unit words starting at `i` end (`i` itself where none start there): words, `per word`,
    `/word`, and a parenthesised note of words (`(planned)`, `(total cookies)`)."""
    j = i
    while j < len(toks):
        t = toks[j]
        if _is_unit(t, False) and (j > i or t.spaced):
            j += 1
        elif t.text in ("per", "/") and j + 1 < len(toks) and _is_unit(toks[j + 1], True):
            j += 2
        elif t.text == "(" and t.spaced:
            k = j + 1
            while k < len(toks) and (_is_unit(toks[k], True) or toks[k].text in (",", "-")):
                k += 1
            if k == j + 1 or k >= len(toks) or toks[k].text != ")":
                break
            j = k + 1
        else:
            break
    return j


def _units_differ(left: list[Token], right: list[Token]) -> bool:
    """Both sides name units and share none (`3 * 20 minutes = 1 hour`): a conversion, not the same quantity."""

    def units(side: list[Token]) -> set[str]:
        return {u.rstrip("s") for t in side for u in t.units}

    a, b = units(left), units(right)
    return bool(a and b and not a & b)


def _balanced(toks: list[Token]) -> bool:
    depth = 0
    for t in toks:
        depth += {"(": 1, ")": -1}.get(t.text, 0) if t.kind == "op" else 0
        if depth < 0:
            return False
    return depth == 0


def _left_side(seg: list[Token]) -> list[Token] | None:
    """The numeric expression that ends a segment, or None where it cannot be read on its own."""
    i = len(seg)
    while i > 0 and seg[i - 1].kind in _NUMERIC:
        i -= 1
    side = seg[i:]
    while side and side[0].text == "(" and not _balanced(side):
        side = side[1:]
    if not side or not _balanced(side):
        return None
    start = len(seg) - len(side)
    before = seg[start - 1] if start > 0 else None
    if side[0].text == "-" and len(side) > 1 and side[1].spaced:
        if before is not None:
            return None  # `a - 3 * 8`: the minus belongs to what came before
        side = side[1:]  # a list item's dash: `- 2^9 = 512`
    if side[0].kind == "op" and side[0].text not in ("(", "-", "sqrt"):
        return None
    if before is not None:
        if before.kind == "word" and (
            not side[0].spaced or _names_something(before.text) or before.text.lower() in _DENY_BEFORE
        ):
            return None
        if side[0].text == "-" and not (before.kind == "other" and before.text in "([{:;,"):
            return None
        if before.kind == "other" and not side[0].spaced and before.text not in "([{:;,":
            return None  # `2:30`, `3.5.2`, `#4`, `|S| - 3`
    return side


def _right_side(seg: list[Token]) -> list[Token] | None:
    """The numeric expression that starts a segment, or None where it cannot be read on its own."""
    i = 0
    while i < len(seg) and seg[i].kind in _NUMERIC:
        if i > 0 and seg[i].text == "(" and seg[i].spaced and i + 1 < len(seg) and seg[i + 1].kind == "word":
            break  # `= 14.99 (rounded to cents)`: a remark after the value
        i += 1
    side = seg[:i]
    while side and side[-1].text == ")" and not _balanced(side):
        side = side[:-1]
    if not side or not _balanced(side):
        return None
    after = seg[len(side)] if len(side) < len(seg) else None
    if side[-1].kind == "op" and side[-1].text not in (")", "%"):
        return None
    if after is not None:
        if after.kind == "word" and (
            not after.spaced
            or _names_something(after.text)
            or (after.text.lower().strip("'") in _DENY_AFTER and not side[-1].units)
        ):
            return None
        following = seg[len(side) + 1] if len(side) + 1 < len(seg) else None
        joined = following is not None and following.kind == "number" and not following.spaced
        if after.kind == "other" and not after.spaced and after.text in ":./" and joined:
            return None  # `2:30`, `3.5.2`, a date (a sentence's full stop ends the side)
        if after.kind == "op" and not (after.text == "(" and after.spaced):
            return None  # `5 (3)` and the like: an unbalanced or unreadable tail
    return side


# ---------------------------------------------------------------- comparison


def _places_written(toks: list[Token]) -> int | None:
    """The most decimal places any number on this side is written with; None when none has any."""
    places = [len(t.text.split(".")[1]) for t in toks if t.kind == "number" and "." in t.text]
    return max(places) if places else None


def _is_integer(v: Value) -> bool:
    return v == int(v) if isinstance(v, Fraction) else abs(v - round(v)) < 1e-9


def _compare(left: list[Token], right: list[Token], approximate: bool) -> tuple[Finding, Value] | None:
    """How the two sides relate, reading `%` both ways; None where a side cannot be evaluated."""
    findings: list[tuple[Finding, Value]] = []
    for percent in (True, False):
        a, b = evaluate(left, percent), evaluate(right, percent)
        if a is None or b is None:
            return None
        findings.append((_relate(a, b, left, right, approximate), a))
        if not any(t.text == "%" for t in left + right):
            break
    for wanted in ("right", "unsure", "wrong"):
        for finding, value in findings:
            if finding == wanted:
                return finding, value
    return None


def _rounded(toks: list[Token]) -> bool:
    """Whether a number on this side looks cut short: a repeating decimal (`3.33`, `0.67`, `1.667`: a fraction
    with a small denominator lies within half a unit of its last digit but is not equal to it) or a constant
    (`3.14159`)."""
    for t in toks:
        if t.kind == "number" and "." in t.text:
            written = Fraction(t.text)
            half = Fraction(1, 2 * 10 ** len(t.text.split(".")[1]))
            near = written.limit_denominator(9)
            if near != written and abs(near - written) < half:
                return True
            if any(abs(float(written) - c) < float(half) for c in _CONSTANTS):
                return True
    return False


_CONSTANTS = (math.pi, math.e, math.sqrt(2), math.sqrt(3), math.sqrt(5), (1 + math.sqrt(5)) / 2, math.log(2))
"""Irrational numbers written cut short (`3.14159`, `1.414`) and then used as if exact."""


def _relate(a: Value, b: Value, left: list[Token], right: list[Token], approximate: bool) -> Finding:
    """Whether the left side's value `a` is what the right side `b` says, as people write values: a number with
    d decimals stands for any value within one unit of its last digit, but only where the value needs more than d
    decimals (`1/3 = 0.33` holds; `4.20 + 9.45 + 1.35 = 14.99` does not)."""
    if a == b:
        return "right"
    exact = isinstance(a, Fraction) and isinstance(b, Fraction)
    try:
        fa, fb = float(a), float(b)
    except OverflowError:
        return "wrong" if exact else "unsure"
    diff, scale = abs(fa - fb), max(abs(fa), abs(fb))
    if not exact and diff <= 1e-9 * max(1.0, scale):
        return "right"
    if approximate:
        return "right" if diff <= max(1.0, 0.02 * scale) else ("unsure" if diff <= 0.1 * scale else "wrong")
    written, value, other = (
        (right, a, left) if _bare(right) else (left, b, right) if _bare(left) else (None, a, left + right)
    )
    places = _places_written(written) or 0 if written is not None else None
    if places is not None:
        unit = 10.0**-places
        needs_more = not (isinstance(value, Fraction) and (value * 10**places).denominator == 1)
        if needs_more and diff <= unit * (1 + 1e-9) and places > 0:
            return "right"
        if needs_more and places == 0 and diff < 1:
            return "unsure"  # `250 / 60 = 4`: rounded or floored on purpose
    # A repeating decimal cut short and used again (`3.33 * 300 = 1000`) carries its rounding.
    if _rounded(other) and diff <= 0.01 * scale:
        return "right"
    if not exact and diff <= 1e-6 * max(1.0, scale):
        return "right"
    return "wrong"


def _show(v: Value) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator} (≈{float(v):.6g})"


def _text(toks: list[Token]) -> str:
    return "".join((" " if t.spaced and k else "") + t.text for k, t in enumerate(toks))


def _plain_lines(text: str) -> list[tuple[str, str]]:
    """The text's lines as plain arithmetic, each with the line it came from, cut to MAX_LINE_CHARS first (a
    line nested past what the expander's recursion allows is dropped: no real computation is written that way)."""
    out: list[tuple[str, str]] = []
    for line in text.splitlines()[:MAX_LINES]:
        line = line[:MAX_LINE_CHARS]
        try:
            out.extend((part[:MAX_LINE_CHARS], line) for part in plain(line).splitlines())
        except RecursionError:
            continue
    return out


_OTHER_BASE = re.compile(r"\bbase[- ]?(?:\$?\d|\$?[a-z]\$?(?![a-z])|two|eight|sixteen)", re.IGNORECASE)
"""A response working in another base, where `7 + 1 = 10` holds: none of its arithmetic is read as decimal."""
_MODULAR = frozenset(["mod", "modulo", "\\pmod", "\\bmod", "\\mod", "\\equiv"])
"""Words in a relation's clause that put it modulo n, where `7 + 5 = 0` may hold."""
_SAID_FALSE = re.compile(
    r"not true|isn'?t true|is false|\bfalse\b|contradict|impossible|not possible|incorrect|\bwrong\b|not equal|"
    r"(?:does not|doesn'?t) hold|mistake|\berror\b|\bwait\b|\bcarr(?:y|ies|ied|ying)\b",
    re.IGNORECASE,
)
"""A line that says its own equation fails (`-8 = -3 (This is not true)`), a correction under way, or digit by
digit addition with carries (`6 + 1 + 1 = 7 + 0`)."""


def _clause(toks: list[Token], at: int) -> list[Token]:
    """The tokens around position `at` up to the punctuation on either side (`,` `;` `.` `:`)."""
    start, end = at, at
    while start > 0 and not (toks[start - 1].kind == "other" and toks[start - 1].text in ",;.:"):
        start -= 1
    while end < len(toks) and not (toks[end].kind == "other" and toks[end].text in ",;.:"):
        end += 1
    return toks[start:end]


def _bare(side: list[Token]) -> bool:
    """A side that is one number (`12`, `-3`, `25%`): a value written, not a computation."""
    core = side[1:] if side and side[0].text == "-" else side
    core = core[:-1] if core and core[-1].text == "%" else core
    return len(core) == 1 and core[0].kind == "number"


def computations(text: str) -> list[Computation]:
    """Every relation between two numeric sides in `text`, in order, with what exact arithmetic finds."""
    out: list[Computation] = []
    elsewhere = _OTHER_BASE.search(text) is not None
    for line, source in _plain_lines(text):
        toks = _without_units(tokenize(line))
        said_false = elsewhere or _SAID_FALSE.search(source) is not None
        rels = [k for k, t in enumerate(toks) if t.kind == "rel"]
        bounds = [-1, *rels, len(toks)]
        for n, r in enumerate(rels):
            left = _left_side(toks[bounds[n] + 1 : r])
            right = _right_side(toks[r + 1 : bounds[n + 2]])
            if left is None or right is None:
                continue
            if _bare(left) and _bare(right):
                continue  # `0.5 = 0.50`, `-8 = -3`: a restatement, not a computation
            if len(left) == 1 and left[0].units:
                continue  # `in 48 hours = 2400 + 600`: the number names a quantity, it is not one side
            compared = _compare(left, right, toks[r].text == "≈")
            if compared is None:
                continue
            finding, value = compared
            modular = any(t.kind == "word" and t.text.lower() in _MODULAR for t in _clause(toks, r))
            if finding == "wrong" and (said_false or modular or _units_differ(left, right)):
                finding = "unsure"
            written = f"{_text(left)} {toks[r].text} {_text(right)}"
            out.append(Computation(written, _text(left), _text(right), _show(value), finding))
            if len(out) >= MAX_COMPUTATIONS:
                return out
    return out
