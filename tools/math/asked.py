"""The computation a prompt asks for: `What is 6 * 7?`, `Compute $2^{10} - 1$.`, `Evaluate \\frac{3}{4} \\cdot 80`.
Where the whole question is one closed arithmetic expression, its value is known without a reference or a model:
the judge computes it exactly and compares each final answer with it as with a reference the user gave.

Only what reads unambiguously is taken. The prompt, less the sentences that only say how to answer (`Put your final
answer in \\boxed{}`, `Think step by step`), must be the question and nothing else: a word problem, a base, a unit,
a modulus or any word inside the expression (`6 * 7 in base 8`, `20% of 50`) leaves it unread. The value must be
exact (a fraction): an irrational one (`\\sqrt{2}`, pi) has no one written form to compare with.

The prompt is the user's, not the candidate's: nothing a response writes reaches this reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from judgegraph.tools.math.arithmetic import evaluate, plain, tokenize

MAX_PROMPT_CHARS = 400
"""A prompt longer than this is a problem, not one computation."""

_HOW_TO_ANSWER_WORDS = (
    "final answer|boxed|box|step[- ]by[- ]step|show (?:your|all|the) work|explain|your reasoning|answer format"
    "|format your|only the (?:number|answer)|just the (?:number|answer)"
)
_HOW_TO_ANSWER = re.compile(rf"[^.?!\n]*\b(?:{_HOW_TO_ANSWER_WORDS})\b[^.?!\n]*[.?!]?", re.IGNORECASE)
"""A sentence that only says how to answer."""
_ASKING_WORDS = r"what\s+is|what's|compute|calculate|evaluate|find|work\s+out|determine"
_ASKED = re.compile(
    rf"(?:(?:question|q|problem)\s*:\s*)?(?:{_ASKING_WORDS})\s+(?:the\s+value\s+of\s+)?(?P<e>[^?]+?)\s*[?.!]?", re.I
)
_EQUALS_WHAT = re.compile(r"(?P<e>[^=?]+?)\s*=\s*(?:\?|\\?_+|what\s*\?)\s*", re.IGNORECASE)
"""`6 * 7 = ?`, `6 * 7 = __`."""
_OPERATORS = frozenset("+-*/^") | {"sqrt"}
_ROUNDED = re.compile(
    r"\$?\s*(?:\\approx|≈|~|approximately|about)?\s*(?P<number>-?\d+\.(?P<places>\d{2,}))\s*(?P<more>\.\.\.|…)?\s*\$?",
    re.IGNORECASE,
)
"""A decimal rounded to two or more places, as a response writes one (`≈ 0.67`, `$0.6667$`)."""


@dataclass(frozen=True)
class Asked:
    """A prompt's one computation and its exact value."""

    expression: str
    """As the prompt writes it."""
    value: Fraction

    def rounded_as(self, answer: str) -> bool:
        """`answer` is this value rounded to the decimals it writes (two or more), where the value has no finite
        decimal form: `0.67`, `≈ 0.6667` or `0.666...` for 2/3; never for a value a decimal writes exactly
        (`0.5` is 1/2, `0.49` is not)."""
        d = self.value.denominator
        for p in (2, 5):
            while d % p == 0:
                d //= p
        m = _ROUNDED.fullmatch(answer.strip())
        if d == 1 or m is None:
            return False
        places, written = len(m.group("places")), Fraction(m.group("number"))
        if written == Fraction(round(self.value * 10**places), 10**places):
            return True
        cut = Fraction(int(self.value * 10**places), 10**places)  # `0.666...`: the digits go on
        return m.group("more") is not None and written == cut

    @property
    def reference(self) -> str:
        """The value as a reference is written: an integer, or `p/q`."""
        v = self.value
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def asked_computation(prompt: str) -> Asked | None:
    """The one closed arithmetic computation `prompt` asks for, with its exact value; None where the prompt is
    anything else."""
    if len(prompt) > MAX_PROMPT_CHARS:
        return None
    question = " ".join(_HOW_TO_ANSWER.sub(" ", prompt).split())
    m = _ASKED.fullmatch(question) or _EQUALS_WHAT.fullmatch(question)
    if m is None:
        return None
    expression = m.group("e").strip().strip("$").strip()
    if expression.startswith("\\(") and expression.endswith("\\)"):
        expression = expression[2:-2].strip()
    toks = tokenize(plain(expression))
    if not toks or any(t.kind not in ("number", "op") or t.text in ("%", "pi") for t in toks):
        return None  # a word, a relation, a percent or a constant: not one closed computation
    if not any(t.text in _OPERATORS for t in toks):
        return None  # a bare number asks for nothing
    if _ambiguous([t.text for t in toks]):
        return None
    value = evaluate(toks, percent=False)
    if not isinstance(value, Fraction):
        return None
    return Asked(expression, value)


def _ambiguous(texts: list[str]) -> bool:
    """Written forms that people read two ways: a minus before a power (`-3^2`: -9 or 9) and a chain of powers
    (`2^3^2`: 512 or 64)."""
    for k, t in enumerate(texts):
        unary = t == "-" and (k == 0 or texts[k - 1] in ("+", "-", "*", "/", "^", "("))
        if unary and k + 2 < len(texts) and texts[k + 2] == "^":
            return True
        if t == "^" and k + 2 < len(texts) and texts[k + 2] == "^":
            return True
    return False
