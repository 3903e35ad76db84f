"""When a final answer is the reference's: the same choice, number, fraction, percentage, tuple, words or
expression (sympy, behind a token whitelist, a length cap and a power check: candidate text is untrusted), or
what Hugging Face's math-verify accepts. A text with no extractable answer never matches."""

from __future__ import annotations

import logging
import math
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from fractions import Fraction
from tokenize import TokenError
from typing import Literal

import sympy
from sympy.parsing.sympy_parser import (
    convert_xor,
    implicit_multiplication_application,
    parse_expr,
    standard_transformations,
)

from judgegraph.errors import UnsafeExpression
from judgegraph.tools.math.answers import several_values
from judgegraph.tools.math.arithmetic import evaluate, tokenize
from judgegraph.tools.math.normal import MAX_NUMBER_DIGITS, choice_letter, meaningful, normalize
from judgegraph.tools.math.readings import RELATION, beyond_arithmetic, read
from judgegraph.tools.responses.silence import plain_words

Method = Literal["choice", "numeric", "worded", "relation", "symbolic", "tuple", "string", "math-verify", "none"]

MAX_EXPR_CHARS = 200
MAX_POWER_DIGITS = 4000  # a power whose value would have more digits than this is refused

_FUNCTIONS: dict[str, object] = {
    "sqrt": sympy.sqrt,
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tan": sympy.tan,
    "log": sympy.log,
    "ln": sympy.log,
    "exp": sympy.exp,
    "pi": sympy.pi,
    "e": sympy.E,
    "abs": sympy.Abs,
    "Abs": sympy.Abs,
    "Integer": sympy.Integer,
    "Float": sympy.Float,
    "Rational": sympy.Rational,
    "Symbol": sympy.Symbol,
}
# Names that only the parser's generated code refers to (evaluate=False builds Add/Mul/Pow explicitly).
_PARSER_NAMES: dict[str, object] = {"Add": sympy.Add, "Mul": sympy.Mul, "Pow": sympy.Pow}
_TOKEN = re.compile(r"\s+|\d+\.\d*|\.\d+|\d+|[A-Za-z]+|\*\*|[-+*/^(),]")
_TRANSFORMS = (*standard_transformations, implicit_multiplication_application, convert_xor)


@dataclass(frozen=True)
class Match:
    """The outcome of comparing one answer with the reference."""

    equivalent: bool
    method: Method
    detail: str


# ---------------------------------------------------------------- safe sympy


def to_sympy(s: str) -> sympy.Expr:
    """Parse a plain math expression, refusing anything outside the whitelist."""
    if len(s) > MAX_EXPR_CHARS:
        raise UnsafeExpression("expression too long")
    pos = 0
    for m in _TOKEN.finditer(s):
        if m.start() != pos:
            raise UnsafeExpression(f"unexpected character {s[pos]!r}")
        tok = m.group()
        if tok.isalpha() and tok not in _FUNCTIONS and len(tok) > 1:
            raise UnsafeExpression(f"unknown name {tok!r}")
        if tok[0].isdigit() and len(tok) > MAX_NUMBER_DIGITS:
            raise UnsafeExpression("number too long")
        pos = m.end()
    if pos != len(s) or not s.strip():
        raise UnsafeExpression("not an expression")
    local = {name: sympy.Symbol(name) for name in set(re.findall(r"\b[A-Za-z]\b", s)) - {"e"}}
    try:
        expr = parse_expr(
            s,
            local_dict=local,
            global_dict={**_FUNCTIONS, **_PARSER_NAMES},
            transformations=_TRANSFORMS,
            evaluate=False,
        )
    except (SyntaxError, TypeError, ValueError, AttributeError, NameError, TokenError, sympy.SympifyError) as e:
        raise UnsafeExpression(f"cannot parse: {e}") from None  # TokenError: unbalanced brackets, "372.)"
    if not isinstance(expr, sympy.Expr):
        raise UnsafeExpression("not an expression")
    _check_powers(expr)
    return expr


def _check_powers(expr: sympy.Basic) -> None:
    """Refuse powers whose value would be astronomically large (evaluating them would hang)."""
    for node in sympy.postorder_traversal(expr):
        if isinstance(node, sympy.Pow) and node.base.is_number and node.exp.is_number:
            try:
                exp = abs(float(node.exp))
                base = abs(float(node.base))
            except (TypeError, ValueError, OverflowError):
                raise UnsafeExpression("power too large") from None
            if base > 1 and exp * math.log10(base) > MAX_POWER_DIGITS:
                raise UnsafeExpression("power too large")


def _numbers_equal(a: Fraction, b: Fraction) -> bool:
    """Equal; or, where neither is a whole number (a decimal, a root's value), equal to six significant digits.
    A whole number is equal only to itself, up to float noise: 1000001 is not 1000000, and 41.99999 is not 42
    (as math-verify rounds, to six decimal places, not six digits)."""
    if a == b:
        return True
    if a.denominator == 1 and b.denominator == 1:
        return False
    close = 1e-12 if 1 in (a.denominator, b.denominator) else 1e-6
    return math.isclose(float(a), float(b), rel_tol=close, abs_tol=1e-12)


def _split_top_level(s: str) -> list[str]:
    inner = s[1:-1] if len(s) > 1 and s[0] in "([" and s[-1] in ")]" else s
    parts: list[str] = []
    depth, cur = 0, list[str]()
    for ch in inner:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur).strip())
    return parts


def _ends_closed(s: str) -> tuple[bool, bool] | None:
    """Which ends a bracketed answer closes (`[1, 3)`: the left only); None where it is not bracketed. Two
    bracketed answers that close their ends differently differ: `(1, 3)` is never `[1, 3]`, nor `[1, 3)`."""
    s = s.strip()
    if len(s) < 2 or s[0] not in "([" or s[-1] not in ")]":
        return None
    return s[0] == "[", s[-1] == "]"


def _rhs(s: str) -> str:
    """`x = 5` -> `5`: an answer stated as an equation for a single variable."""
    if s.count("=") == 1:
        lhs, rhs = s.split("=")
        if re.fullmatch(r"\s*[A-Za-z]\s*", lhs):
            return rhs.strip()
    return s


# ---------------------------------------------------------------- equivalence


class NeedsSymbolic(Exception):
    """Raised by `equivalent(..., symbolic=False)` where settling needs sympy or math-verify."""


class _Memo:
    """The latest comparisons, by (answer, reference): an RL step scores k rollouts of each prompt against one
    reference, and rollouts often state the same answer, which sympy or math-verify may take milliseconds to
    settle. `equivalent` is a pure function of its two strings, so a remembered result is the result."""

    MAX_ENTRIES = 8192
    MAX_KEY_CHARS = 1000  # longer answers are rare and not worth holding

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple[str, str], Match] = OrderedDict()

    def get(self, key: tuple[str, str]) -> Match | None:
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries.move_to_end(key)
            return hit

    def put(self, key: tuple[str, str], match: Match) -> None:
        if len(key[0]) + len(key[1]) > self.MAX_KEY_CHARS:
            return
        with self._lock:
            self._entries[key] = match
            if len(self._entries) > self.MAX_ENTRIES:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_memo = _Memo()


def forget_comparisons() -> None:
    """Drop the remembered comparisons (benchmarks start each pass cold)."""
    _memo.clear()


def equivalent(answer: str, reference: str, *, symbolic: bool = True) -> Match:
    """Whether `answer` (already extracted) states the same thing as `reference`: judgegraph's own comparison
    (numbers, fractions, percentages, choices, tuples, safe symbolic algebra), then Hugging Face's `math-verify`
    for what that does not settle (LaTeX sets and intervals, units in text, ...). On 800 labelled MATH solutions
    the two together agree with the labels more than either alone (EVALS.md, "Real data").

    With `symbolic=False`, only what plain comparisons settle (choices, numbers that match, nothing stated),
    in microseconds; anything else raises `NeedsSymbolic` (sympy and math-verify can take long enough that
    callers run them off the event loop), unless the same comparison was settled recently."""
    key = (answer, reference)
    remembered = _memo.get(key)
    if remembered is not None:
        return remembered
    match = _equivalent(answer, reference, symbolic)
    _memo.put(key, match)  # a plain check that settles agrees with the full one (tests/test_answers.py)
    return match


def _equivalent(answer: str, reference: str, symbolic: bool) -> Match:
    many, expected_many = several_values(answer), several_values(reference)
    if many != expected_many:  # a hedge, an enumeration or a subset is never credited by overlap
        said = "names several values" if many else "names one value"
        return Match(False, "none", f"{answer!r} {said}; the reference {reference!r} does not")
    own = _own_equivalent(answer, reference, symbolic)
    if own.equivalent or own.method in ("choice", "numeric", "worded", "relation", "none"):
        return own  # a number's reading is final: no other reader may credit another number of it
    if not symbolic:
        raise NeedsSymbolic
    if not _verifier_safe(answer, reference):
        return own
    if _math_verify(answer, reference):
        return Match(True, "math-verify", f"math-verify: {answer} == {reference} ({own.detail})")
    return own


def _verifier_safe(*texts: str) -> bool:
    """Whether math-verify may evaluate these (it has no guard against power towers or huge factorials, and its
    timeouts use signals, which only the main thread has): short, and any power or factorial one that
    judgegraph's own guarded parser accepts."""
    for text in texts:
        if len(text) > MAX_EXPR_CHARS:
            return False
        if re.search(r"\^|\*\*|!", text):
            try:
                to_sympy(_rhs(normalize(text)))
            except UnsafeExpression:
                return False
    return True


def _math_verify(answer: str, reference: str) -> bool:
    from math_verify import parse, verify  # imported on first use: it loads sympy's LaTeX parser

    # Its signal-based timeouts are off (tools run in worker threads); `_verifier_safe` screened the input.
    logging.getLogger("math_verify").setLevel(logging.ERROR)

    try:
        gold = parse(f"${reference}$", parsing_timeout=None)
        got = parse(f"${answer}$", parsing_timeout=None)
        return bool(gold and got and verify(gold, got, timeout_seconds=None))
    except Exception:  # a parser failure is "not shown equivalent", never a crash of the tool
        return False


def _own_equivalent(answer: str, reference: str, symbolic: bool = True) -> Match:
    ref_choice = choice_letter(reference) if len(reference.strip()) <= 3 else None
    if ref_choice is not None:
        got = choice_letter(answer)
        return Match(got == ref_choice, "choice", f"choice {got or '?'} vs {ref_choice}")
    a, r = _rhs(normalize(answer)), _rhs(normalize(reference))
    if not meaningful(a):
        return Match(False, "none", "the answer states nothing")
    ref = read(r)
    if ref.value is not None:
        return _against_number(a, ref.value, r, symbolic)
    if bool(RELATION.search(a)) != bool(RELATION.search(r)):
        return Match(False, "relation", f"{a!r} and {r!r}: a relation is never equal to a value")
    ra, rr = _split_top_level(a), _split_top_level(r)
    if len(rr) > 1:
        if len(ra) != len(rr):
            return Match(False, "tuple", f"{len(ra)} parts vs {len(rr)}")
        ends = _ends_closed(a), _ends_closed(r)
        if None not in ends and ends[0] != ends[1]:
            return Match(False, "tuple", f"{a} and {r} close their ends differently")
        ok = all(_own_equivalent(x, y, symbolic).equivalent for x, y in zip(ra, rr, strict=True))
        return Match(ok, "tuple", f"{a} {'==' if ok else '!='} {r}")
    if not symbolic:
        raise NeedsSymbolic
    try:
        ea, er = to_sympy(a), to_sympy(r)
    except UnsafeExpression:
        ok = plain_words(a) == plain_words(r) and bool(plain_words(r))
        return Match(ok, "string", f"{a!r} {'==' if ok else '!='} {r!r}")
    try:
        ok = bool(sympy.simplify(ea - er) == 0)
    except (TypeError, ValueError, RecursionError):
        ok = False
    return Match(ok, "symbolic", f"{a} {'==' if ok else '!='} {r}")


def _against_number(a: str, expected: Fraction, r: str, symbolic: bool) -> Match:
    """An answer against a reference that states a number: compared as what it is (`readings.read`), an
    expression by its value, never by a number written inside it. A value computed here is final: no other reader
    (math-verify reads `3²` as 3) may credit a number written inside it."""
    got = read(a)
    if got.value is not None:
        ok = _numbers_equal(got.value, expected)
        method: Method = "numeric" if got.kind == "number" else "worded"
        return Match(ok, method, f"{a} {'==' if ok else '!='} {r}")
    if got.kind != "expression":
        return Match(False, "relation" if got.kind == "relation" else "worded", f"{a!r} is not read: {got.why}")
    value = evaluate(tokenize(a), percent=False)  # plain arithmetic, exact, no sympy
    if value is None:
        if not symbolic:
            raise NeedsSymbolic
        try:
            value = _value_of(to_sympy(a))
        except UnsafeExpression:  # not parsed here: math-verify may read pure math (LaTeX it knows, guarded)
            if beyond_arithmetic(a):
                return Match(False, "worded", f"{a!r} holds more than arithmetic: not read against a number")
            return Match(False, "symbolic", f"{a!r} is not parsed")
    if value is None:
        return Match(False, "numeric", f"{a} has a variable; {r} is a number")
    ok = _numbers_equal(Fraction(value), expected)
    return Match(ok, "numeric", f"the value of {a} {'==' if ok else '!='} {r}")


def _value_of(expr: sympy.Expr) -> float | None:
    """An expression's value, where it has one (no variable, real, finite)."""
    if expr.free_symbols:
        return None
    try:
        value = complex(expr.evalf(30))
    except (TypeError, ValueError, OverflowError, RecursionError):
        return None
    if value.imag or not math.isfinite(value.real):
        return None
    return value.real
