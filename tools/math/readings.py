"""What number a final answer states, read as what it is: a plain number; a worded answer (a number with words
around it that name what it counts: `42 apples`, `42 \\text{ cm}^2`, `It is 25%`, `forty-two`); an equation that
names its value (`x = 42`, `6 \\times 7 = 42`); a relation (`x \\geq 42`, `41 \\neq 42`), which states no number;
or an expression (`\\sqrt{42}`, `2 \\cdot 21`, `42!`), compared by its value, never by a number written inside it.

A policy searches every reading: an answer read by its last number would let `\\sqrt{42}`, `42^{2}` or
`x \\geq 42` earn the reward for 42. So a worded answer is read only where its one number is the answer: words
that change the value or the claim (`squared`, `thousand`, `half of`, `not`, `at least`, `about`) or a second
number leave it unread, which matches nothing."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from judgegraph.tools.math.arithmetic import evaluate, tokenize
from judgegraph.tools.math.normal import plain_number

Kind = Literal["number", "worded", "relation", "expression", "unread"]


@dataclass(frozen=True)
class Reading:
    """How an answer in normal form (`normal.normalize`) states a number."""

    kind: Kind
    value: Fraction | None = None
    """The number it states (kinds `number` and `worded`); None otherwise."""
    why: str = ""

    @property
    def states_number(self) -> bool:
        return self.value is not None


RELATION = re.compile(
    r"[<>≤≥≠≮≯≰≱∈∉⊂⊆⊃⊇∝∼≅≡]|!="
    r"|\\(?:le|ge|leq|geq|lt|gt|ne|neq|leqslant|geqslant|nleq|ngeq|nless|ngtr|equiv|in|notin|ni|subset|subseteq"
    r"|supset|supseteq|sim|cong|propto|mid|nmid|parallel|perp|prec|succ|preceq|succeq)(?![A-Za-z])"
)
"""A relation between values: it says something of a number and states none."""

_CHANGES_VALUE = frozenset(
    # operators and multipliers said in words: the number is not the value
    "times plus minus over divided multiplied squared cubed factorial thousand thousands million millions billion "
    "billions trillion hundred hundreds dozen dozens twice double doubled triple tripled thrice quadruple halved "
    "negative sqrt pi log ln exp sin cos tan mod modulo power powers exponent root roots "
    # comparisons, bounds, estimates, negations and hedges: the claim is not that the answer is the number
    "not no never nor neither none than least most approximately approx about around roughly nearly almost circa "
    "under below above beyond exceeds exceed exceeding less more fewer greater smaller larger bigger higher lower "
    "within between except excluding besides other instead off short increased decreased increase decrease "
    "additional extra another maybe perhaps possibly probably likely unlikely guess estimate estimated assume "
    "assuming if unless wrong incorrect false isn't aren't wasn't weren't can't cannot won't doesn't don't "
    "shouldn't couldn't wouldn't nearest closest near range until".split()
)
"""Words that, beside a number, make it something other than the answer: the reading refuses them all, so a
worded answer is read only where its words name what the number counts or say that it is the answer."""

_OF_VALUE = frozenset(
    "square cube half third quarter fifth tenth sum product difference quotient reciprocal inverse double "
    "triple negative opposite multiple fraction percent factor log logarithm root".split()
)
"""Nouns that name a function of the number when `of` follows them (`half of 42`, `the square of 42`); alone
(`the sum is 42`) they name what the number is."""

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:\s*/\s*\d+)?%?")
"""A number in normal form (thousands separators removed: a comma separates two numbers)."""
_UNIT_LETTERS = frozenset("a i m g s h l n j w v".split())
"""Single letters a worded answer may hold, apart from its number: the article and pronoun, and unit symbols
(`42 m`, `5 s`, `3 L`, `10 N`); any other single letter is a variable, which makes it an expression. A letter
written onto the number (`42x`, `42k`, `42i`) is never a word: a variable, a multiplier or the imaginary unit."""
_ATTACHED_LETTER = re.compile(r"^[A-Za-z](?![A-Za-z])")

_UNIT_POWER = re.compile(r"(?<=[A-Za-z])\s*\^\s*\(?\s*[23]\s*\)?")
"""`cm^2`, `m^(3)`: a unit's power, which names the unit, not a power of the number."""
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_PROSE = re.compile(r"[A-Za-z\s'\",.:;()\-]*")
"""What a worded answer holds besides its number: Latin words and sentence punctuation. A math sign, a
digit, `!` (a factorial), `?` (a doubt) or another script is not prose, and leaves the answer to the other readings."""
_APPLIED = re.compile(r"\b(?:sqrt|log|ln|exp|sin|cos|tan|abs)\s*\(")
"""A function applied to the number: `sqrt(42)`."""
_ABBREVIATIONS = re.compile(r"\b(?:i\.\s?e|e\.\s?g|etc|viz|cf)\.", re.IGNORECASE)
"""`nine, i.e. 9`: prose's abbreviations, whose letters are no variables."""
_STRAY_HYPHEN = re.compile(r"(?<![A-Za-z])-|-(?![A-Za-z])")

_ONES = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen".split()
    )
}
_TENS = {w: 10 * i for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_NUMBER_WORDS = _ONES.keys() | _TENS.keys() | _SCALES.keys()


def read(a: str) -> Reading:
    """The number `a` (an answer in normal form) states, and how it states it."""
    value = plain_number(a)
    if value is None:
        value = _mixed_number(a)
    if value is not None:
        return Reading("number", value)
    if RELATION.search(a):
        return Reading("relation", why="a relation states no number")
    if "=" in a:
        return _equation(a)
    a = _UNIT_POWER.sub("", a)  # `cm^2` names a unit: its 2 is no number of the answer's
    numbers = list(_NUMBER.finditer(a))
    if len(numbers) == 1:
        m = numbers[0]
        if _ATTACHED_LETTER.match(a[m.end() :]):
            return Reading("expression")
        return _worded(a[: m.start()] + " " + a[m.end() :], m.group(), a)
    if len(numbers) > 1:
        return _several(a)
    return _in_words(a)


_MIXED = re.compile(r"(-)?\s*(\d+)\s*(?:\(\((\d+)\)/\((\d+)\)\)|(\d+)\s*/\s*(\d+))")
"""A mixed number in normal form: `3 1/2`, `3\\frac{1}{2}` (normalized to `3((1)/(2))`)."""


def _mixed_number(a: str) -> Fraction | None:
    """The value of a mixed number (a whole part and a proper fraction beside it: `3 1/2` is 7/2, as the answers of
    math contests write it and math-verify reads it); None for anything else (`3 4/2` is no mixed number)."""
    m = _MIXED.fullmatch(a.strip())
    if m is None:
        return None
    numerator, denominator = int(m[3] or m[5]), int(m[4] or m[6])
    if not 0 < numerator < denominator:
        return None
    value = int(m[2]) + Fraction(numerator, denominator)
    return -value if m[1] else value


def _several(a: str) -> Reading:
    """More than one number: an expression (`2 * 21`), or prose, read by its last clause where that states one
    number (`10 out of 40, which is 25%`), else not read."""
    if _PROSE.fullmatch(_NUMBER.sub(" ", a)) and len(_WORD.findall(a)) > 1:
        return _last_clause(a) or Reading("unread", why="it names several numbers")
    return Reading("expression")


_COPULA = re.compile(r"\b(?:is|are|was|were|equals|gives|makes|becomes|totals|comes\s+to)\b|:(?=\s)", re.IGNORECASE)
"""What a line's last clause says its value with: a verb, or a label's colon (`April 48, May 24: 72`; not the
colon of a time, `4:30`, which no space follows)."""


def _last_clause(a: str) -> Reading | None:
    """What the prose's last `is` (or `equals`, `makes`, `comes to`, a label's colon) says, where that clause is a
    worded answer of one number and what leads to it is prose, or math of the same value: `which is 25%` states
    25, `April 48, May 24: 72` states 72; `we get 2x is 42` states no number (2x is 42 is a relation)."""
    found = list(_COPULA.finditer(a))
    if not found:
        return None
    left, right = a[: found[-1].start()], a[found[-1].end() :]
    stated = read(right)
    if stated.value is None or stated.kind not in ("number", "worded"):
        return None
    if found[-1].group() != ":" and not _leads_to(left, stated.value):  # a label is no equation's side
        return Reading("relation", why=f"{left.strip()!r} is {right.strip()!r}: not a value")
    return Reading("worded", stated.value)


def _worded(rest: str, number: str, a: str) -> Reading:
    """One number and the words around it (`rest`)."""
    rest = _ABBREVIATIONS.sub(" ", rest)
    if not _PROSE.fullmatch(rest) or _STRAY_HYPHEN.search(rest) or _APPLIED.search(rest):
        return Reading("expression")  # `42^(2)`, `sqrt(42)`, `42!`, `2x + 42`
    words = [w.lower() for w in _WORD.findall(rest)]
    if any(len(w) == 1 and w not in _UNIT_LETTERS for w in words):
        return Reading("expression")  # `42x`: a variable
    refused = _refused(words)
    if refused:
        return Reading("unread", why=f"{refused!r} changes what {number!r} says")
    value = plain_number(number)
    return Reading("worded", value) if value is not None else Reading("unread", why=f"{a!r} is no number")


def _refused(words: list[str]) -> str | None:
    for i, w in enumerate(words):
        after = words[i + 1] if i + 1 < len(words) else ""
        if w in _CHANGES_VALUE or (w in _OF_VALUE and after == "of") or (w in ("up", "close") and after == "to"):
            return w
    return None


def _in_words(a: str) -> Reading:
    """A number written in words (`forty-two`, `twelve apples`): one run of number words, the other words read as
    a worded answer's words."""
    if not _PROSE.fullmatch(a):
        return Reading("expression")
    words = [w.lower() for w in _WORD.findall(a.replace("-", " "))]
    runs: list[list[str]] = []
    after_number = False
    for w in words:
        if w in _NUMBER_WORDS:
            if after_number:
                runs[-1].append(w)
            else:
                runs.append([w])
        after_number = w in _NUMBER_WORDS
    if not runs:
        return Reading("expression") if len(words) <= 1 else Reading("unread", why="it states no number")
    if len(runs) > 1:
        return Reading("unread", why="it names several numbers")
    value = _words_value(runs[0])
    refused = _refused([w for w in words if w not in _NUMBER_WORDS])
    if value is None or refused:
        return Reading("unread", why=f"{refused!r} changes what it says" if refused else "not one number")
    return Reading("worded", Fraction(value))


def _words_value(run: list[str]) -> int | None:
    """`forty two thousand` -> 42000; None for words side by side that are two numbers (`two three`)."""
    total = current = 0
    last = ""
    for w in run:
        if w in _ONES:
            if last in _ONES or (last in _TENS and _ONES[w] >= 10):
                return None
            current += _ONES[w]
        elif w in _TENS:
            if last in _ONES or last in _TENS:
                return None
            current += _TENS[w]
        elif w == "hundred":
            if not 0 < current < 100:
                return None
            current *= 100
        else:
            if current == 0:
                return None
            total, current = total + current * _SCALES[w], 0
        last = w
    return total + current


_MATH_TAIL = re.compile(r"(?:[\d.+\-*/^()\s]|(?<![A-Za-z])[A-Za-z](?![A-Za-z]))*$")
"""The math a side of an equation ends in, after the prose that leads to it (`so we get 6 * 7`: `6 * 7`)."""
_TAIL_CHARS = 200


def _equation(a: str) -> Reading:
    """`total = 42`, `so we get 6 * 7 = 42`, `= 42` (a computation's last line): the value of its last side, where
    every other side names it or equals it; `41 = 42` or `2x = 42` is a relation."""
    sides = [s.strip() for s in a.split("=")]
    last = read(sides[-1]) if sides[-1] else Reading("unread")
    if last.value is None:
        return Reading("relation", why="an equation whose last side states no number")
    for side in sides[:-1]:
        if not _leads_to(side, last.value):
            return Reading("relation", why=f"{side!r} = {sides[-1]!r} is not a value")
    return Reading(last.kind, last.value)


def _leads_to(before: str, value: Fraction) -> bool:
    """Whether what comes before a value (an equation's other side, the prose before a clause's `is`) names it
    or leads to it: prose or a name (`x`, `the total`), or math that ends it and equals it (`so we get 6 * 7`)."""
    tail = _MATH_TAIL.search(before[-_TAIL_CHARS:])  # bounded: the scan backtracks on long prose
    math_part = tail.group().strip() if tail else ""
    if not math_part or re.fullmatch(r"[A-Za-z]", math_part):
        return True
    found = plain_number(math_part)
    if found is None:
        evaluated = evaluate(tokenize(math_part), percent=False)
        found = Fraction(evaluated) if evaluated is not None else None
    return found == value


_MATH_COMMANDS = frozenset(
    "frac dfrac tfrac sqrt cdot times div pi log ln exp sin cos tan lfloor rfloor lceil rceil binom mathbf mathrm "
    "textbf left right".split()
)
_WORD_OR_COMMAND = re.compile(r"(\\?)([A-Za-z]{2,})")


def beyond_arithmetic(a: str) -> bool:
    """Whether an expression holds anything but arithmetic that any reader computes alike: words (an expression
    inside a sentence), a LaTeX command outside arithmetic's (`\\neg`, `\\overline`, `\\cancel`) or a subscript
    other than a log's base (`42_8`). A lenient reader drops what it does not know and reads the number left
    (math-verify reads `\\neg 42` and `42_{8}` as 42), so such an expression is not read against a number."""
    if re.search(r"(?<!log)_|[?~;:'\"]", a):
        return True
    return any(m.group(2) not in _MATH_COMMANDS for m in _WORD_OR_COMMAND.finditer(a))
