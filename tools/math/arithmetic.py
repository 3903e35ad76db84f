"""Arithmetic as solutions write it, read exactly: LaTeX and Unicode turned into plain arithmetic (`\\frac`,
`\\sqrt`, `×`, `²`), tokens, and an exact evaluator (fractions, with a digit cap and a power cap: solution text is
untrusted; no eval, no sympy)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

MAX_NUMBER_DIGITS = 30
MAX_POWER_BITS = 4000
# ---------------------------------------------------------------- LaTeX and Unicode to plain arithmetic

_JOIN = re.compile(r"\\(?:left|right|big|Big|bigg|Bigg)(?![A-Za-z])|\^\s*\{?\s*\\circ\s*\}?|°|\{,\}")
"""Marks that sit inside an expression (`\\left(`, `30^\\circ`, `1{,}000`): removed without a trace."""
_DROP = re.compile(r"\\(?:displaystyle|textstyle|quad|qquad|,|;|!|:|\s)(?![A-Za-z])|&|\\\$|\*\*|__")
"""Spacing, alignment, an escaped dollar and markdown emphasis: read as a space."""
_RELATION_BREAK = re.compile(
    r"==|!=|<=|>=|:=|=>|=<|\\(?:neq|ne|leq|le|geq|ge|lt|gt|Rightarrow|rightarrow|implies|to|iff|equiv|pm|mp)"
    r"(?![A-Za-z])|[≠≤≥<>→⇒±∓]"
)
_SYMBOLS = {
    r"\times": " * ",
    r"\cdot": " * ",
    r"\ast": " * ",
    r"\div": " / ",
    r"\approx": " ≈ ",
    r"\simeq": " ≈ ",
    r"\pi": " pi ",
    r"\%": "%",
}
_UNICODE = str.maketrans(
    {"×": "*", "·": "*", "⋅": "*", "∙": "*", "÷": "/", "−": "-", "≃": "≈", "≡": " ; \\equiv ", "π": " pi "}
)
_TEXT_COMMANDS = re.compile(r"\\(?:text|textbf|textit|mathrm|mathbf|mbox|operatorname|emph)\s*\{([^{}]*)\}")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def braced_from(text: str, i: int) -> str | None:
    """The text from `i` (just past an opening brace) to the brace that closes it; None when it never closes."""
    depth = 1
    for j in range(i, len(text)):
        depth += text[j] == "{"
        depth -= text[j] == "}"
        if depth == 0:
            return text[i:j]
    return None


def _braced(text: str, i: int) -> tuple[str, int] | None:
    """The argument starting at `i` (`{...}` with balanced braces, or one character) and the index after it."""
    while i < len(text) and text[i] == " ":
        i += 1
    if i >= len(text):
        return None
    if text[i] != "{":
        return text[i], i + 1
    body = braced_from(text, i + 1)
    return None if body is None else (body, i + 2 + len(body))


def _expand(text: str, command: str, arity: int, build: str) -> str:
    """Replace `\\command{a}{b}` by `build` formatted with its arguments, innermost-safe (arguments expanded too)."""
    out, i = [], 0
    pattern = re.compile(re.escape(command) + r"(?![A-Za-z])")
    while (m := pattern.search(text, i)) is not None:
        args, j = [], m.end()
        for _ in range(arity):
            found = _braced(text, j)
            if found is None:
                break
            args.append(found[0])
            j = found[1]
        if len(args) < arity:
            out.append(text[i : m.end()])
            i = m.end()
            continue
        out.append(text[i : m.start()])
        out.append(build.format(*(_expand(a, command, arity, build) for a in args)))
        i = j
    out.append(text[i:])
    return "".join(out)


def plain(text: str) -> str:
    """A response's math as plain arithmetic: fractions, roots, products and relations spelled one way."""
    text = re.sub(r"\\[dt]frac(?![A-Za-z])", r"\\frac", text)
    text = _TEXT_COMMANDS.sub(lambda m: f" {m.group(1)} ", text)
    text = _expand(text, r"\frac", 2, "(({0})/({1}))")
    text = re.sub(r"\\sqrt\s*\[", r" \\root[", text)  # an n-th root: left as an unknown command
    text = _expand(text, r"\sqrt", 1, "sqrt(({0}))")
    text = text.replace(r"\[", "\n").replace(r"\]", "\n").replace(r"\(", " ").replace(r"\)", " ")
    text = text.replace("\\\\", "\n")
    text = _DROP.sub(" ", _JOIN.sub("", text))
    text = _RELATION_BREAK.sub(lambda m: f" ; {m.group()} " if m.group().startswith("\\") else " ; ", text)
    for k, v in _SYMBOLS.items():
        text = re.sub(re.escape(k) + r"(?![A-Za-z])", v, text)
    text = text.translate(_UNICODE).replace("$", " ").replace("{", "(").replace("}", ")")
    text = text.replace("[", "(").replace("]", ")")
    return _THOUSANDS.sub("", text)


# ---------------------------------------------------------------- tokens

_TOKEN = re.compile(
    r"(?P<space>\s+)|(?P<number>\d+(?:\.\d+)?|\.\d+)|(?P<word>\\?[A-Za-z_][A-Za-z_']*)|(?P<op>[-+*/^%()])"
    r"|(?P<rel>[=≈])|(?P<other>.)"
)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    spaced: bool
    """Whitespace came just before this token."""
    units: tuple[str, ...] = ()
    """The words that followed this number and name what it counts (`hours`, `quarts`), removed from the line."""


def tokenize(line: str) -> list[Token]:
    out: list[Token] = []
    spaced = True
    for m in _TOKEN.finditer(line):
        kind = m.lastgroup or "other"
        if kind == "space":
            spaced = True
            continue
        text = m.group()
        if kind == "word" and text in ("sqrt", "pi"):
            kind = "op" if text == "sqrt" else "number"
        out.append(Token(kind, text, spaced))
        spaced = False
    # `6 x 4` and `20 sacks x 65 pounds`, as plain text writes a product: an `x` standing alone between a
    # number (or its unit) and a number.
    for k in range(1, len(out) - 1):
        t, before, after = out[k], out[k - 1], out[k + 1]
        if t.text in ("x", "X") and t.spaced and after.spaced and after.kind == "number" and before.kind != "op":
            out[k] = Token("op", "*", True)
    return out


# ---------------------------------------------------------------- exact evaluation

Value = Fraction | float


class _NotEvaluable(Exception):
    """The side is not an expression this checker evaluates with certainty."""


class _Parser:
    """expr := term (('+'|'-') term)*; term := unary (('*'|'/') unary)*; unary := ('-'|'+') unary | power;
    power := postfix ('^' unary)?; postfix := primary '%'?; primary := number | pi | sqrt primary | (expr).
    Two operands side by side (implicit multiplication) are refused."""

    def __init__(self, toks: list[Token], percent: bool) -> None:
        self.toks, self.i, self.percent = toks, 0, percent

    def _peek(self) -> str | None:
        return self.toks[self.i].text if self.i < len(self.toks) else None

    def _take(self) -> Token:
        if self.i >= len(self.toks):
            raise _NotEvaluable("ends early")
        self.i += 1
        return self.toks[self.i - 1]

    def parse(self) -> Value:
        value = self._expr()
        if self.i != len(self.toks):
            raise _NotEvaluable("two operands without an operator")
        return value

    def _expr(self) -> Value:
        value = self._term()
        while self._peek() in ("+", "-"):
            op = self._take().text
            right = self._term()
            value = value + right if op == "+" else value - right
        return value

    def _term(self) -> Value:
        value = self._unary()
        while self._peek() in ("*", "/"):
            op = self._take().text
            right = self._unary()
            if op == "*":
                value = value * right
            elif right == 0:
                raise _NotEvaluable("division by zero")
            else:
                value = value / right
        return value

    def _unary(self) -> Value:
        if self._peek() in ("-", "+"):
            sign = -1 if self._take().text == "-" else 1
            return sign * self._unary()  # `-3^2` is -(3^2), as mathematics reads it
        return self._power()

    def _power(self) -> Value:
        base = self._postfix()
        if self._peek() != "^":
            return base
        self._take()
        return _pow(base, self._unary())  # right-associative: `2^3^2` is 2^(3^2)

    def _postfix(self) -> Value:
        value = self._primary()
        if self._peek() == "%":
            self._take()
            value = value / 100 if self.percent else value
        return value

    def _primary(self) -> Value:
        tok = self._take()
        if tok.kind == "number":
            if tok.text == "pi":
                return math.pi
            if len(tok.text) > MAX_NUMBER_DIGITS:
                raise _NotEvaluable("number too long")
            return Fraction(tok.text)
        if tok.text == "sqrt":
            return _sqrt(self._primary())
        if tok.text == "(":
            value = self._expr()
            if self._peek() != ")":
                raise _NotEvaluable("unclosed parenthesis")
            self._take()
            return value
        raise _NotEvaluable(f"unexpected {tok.text!r}")


def _sqrt(x: Value) -> Value:
    if x < 0:
        raise _NotEvaluable("square root of a negative number")
    if isinstance(x, Fraction):
        n, d = math.isqrt(x.numerator), math.isqrt(x.denominator)
        if n * n == x.numerator and d * d == x.denominator:
            return Fraction(n, d)
    return math.sqrt(x)


def _pow(base: Value, exponent: Value) -> Value:
    if isinstance(exponent, Fraction) and exponent.denominator == 1 and isinstance(base, Fraction):
        e = int(exponent)
        bits = max(base.numerator.bit_length(), base.denominator.bit_length(), 1)
        if abs(e) * bits > MAX_POWER_BITS:
            raise _NotEvaluable("power too large")
        if base == 0 and e < 0:
            raise _NotEvaluable("division by zero")
        return base**e
    try:
        value: object = float(base) ** float(exponent)
    except (OverflowError, ZeroDivisionError) as e:
        raise _NotEvaluable("power out of range") from e
    if not isinstance(value, float) or math.isinf(value) or math.isnan(value):
        raise _NotEvaluable("power out of range")  # a negative base to a fractional power is complex
    return value


def evaluate(toks: list[Token], percent: bool) -> Value | None:
    try:
        return _Parser(toks, percent).parse()
    except (_NotEvaluable, OverflowError, ZeroDivisionError, ValueError, RecursionError):
        return None
