"""Final-answer extraction and equivalence: numbers, fractions, percentages, symbolic math, multiple choice.

Candidate text is untrusted. Expressions reach sympy only after a token whitelist (digits, operators,
parentheses, known function names, single-letter symbols), a length cap and a check that no power is
large enough to hang evaluation. A text with no extractable answer never matches (the "master-key" probes
":" or "Let's solve this step by step" fail here).
"""

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

Method = Literal["choice", "numeric", "worded", "symbolic", "tuple", "string", "math-verify", "none"]

MAX_EXPR_CHARS = 200
MAX_NUMBER_DIGITS = 40
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


# ---------------------------------------------------------------- extraction


def _braced_from(text: str, i: int) -> str | None:
    """The text from `i` (just past an opening brace) to the brace that closes it; None when it never closes."""
    depth = 1
    for j in range(i, len(text)):
        depth += text[j] == "{"
        depth -= text[j] == "}"
        if depth == 0:
            return text[i:j]
    return None


_ANSWER_PHRASE = re.compile(
    r"(?:final answer|the answer|answer)[*_]*\s*(?:is|:|=)?[*_]*\s*[:=]?[*_]*\s*(.+?)(?:\.\s|\.$|\n|$)", re.IGNORECASE
)
"""`The answer is x`, `Final answer: x`, and their markdown (`**Final answer:** x`, `*Answer*: x`)."""


_RESTATED = re.compile(r"(?:the\s+)?(?:final\s+)?answer\s*(?:is\b|:|=)\s*", re.IGNORECASE)
"""The phrase said again inside the answer: Minerva's harness format, which MATH evaluations prompt for, ends
`Final Answer: The final answer is x. I hope it is correct.`"""


def _phrase_answer(found: str) -> str:
    """A phrase's answer without the markdown emphasis around it (`**x**`, `_x_`) or the phrase said again."""
    s = re.sub(r"^(?:\*\*|__|\*|_)\s*|\s*(?:\*\*|__|\*|_)$", "", found.strip()).strip()
    restated = _RESTATED.match(s)
    return _phrase_answer(s[restated.end() :]) if restated and restated.end() < len(s) else s


_GSM8K = re.compile(r"####\s*(.+?)\s*$", re.MULTILINE)
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?%?")


_REPEATED_LETTER = re.compile(
    r"^[\s*_`$]*(?i:(?:final\s+)?answer\s*(?:is)?\s*[:=]?)?[\s*_`$]*(?:\\(?:boxed|textbf|text)\{)?"
    r"([A-J])\1{4,}\}?[\s*_`$.]*$"
)


def repeated_letter(text: str) -> str | None:
    """The letter a multiple-choice response ends on, repeated: LiveBench's and JudgeBench's prompts ask for the
    chosen letter five times in one string ("FFFFF") and their scorers read it first. Its last line must be
    that string alone (five or more of one capital letter A-J, markdown or `Answer:` around it allowed)."""
    found = _REPEATED_LETTER.match(_last_line(text))
    return found.group(1) if found else None


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1].strip() if lines else ""


@dataclass(frozen=True)
class FinalAnswer:
    """A response's final answer, and whether the response marks it as its answer."""

    text: str
    committed: bool
    """Said as the answer (a box, `####`, an answer phrase or `A:` line, the chosen letter repeated, a number alone
    on the last line), not read from the last line of prose."""


def final_answer(text: str) -> FinalAnswer | None:
    """The one final answer of a response, or None when it states none: the single reader behind every path
    (`match_reference`, `derived_reference`, group rewards), so what is matched against a reference is also what
    derives one.

    In order, as math-verify and the Minerva and Qwen-Math graders read a response: the chosen letter repeated
    (`CCCCC`); the last box (`\\boxed{}`, `\\fbox{}`: an earlier box it replaces is not a hedge, and a last box
    left open is no answer, never a reason to fall back to an earlier one); GSM8K's last `#### x`; the last
    answer phrase (`The answer is x`, `Final answer: x`) or `A: x` line; else the last line that holds a value
    (after its last `=`). Two boxes joined by "or" are read as one answer naming both values, which matches no
    single reference (`several_values`)."""
    if letter := repeated_letter(text):
        return FinalAnswer(letter, True)
    boxed = _final_box(text)
    if boxed is not None:
        return FinalAnswer(boxed, True) if boxed else None
    gsm: list[str] = _GSM8K.findall(text)
    if gsm:
        return FinalAnswer(gsm[-1].strip(), True)
    said = [
        (m.start(), a, _SAYS_ANSWER.search(m.group(0)) is not None)
        for m in _ANSWER_PHRASE.finditer(text)
        if _meaningful(a := _phrase_answer(m.group(1)))
    ]
    said += [(m.start(), a, True) for m in _A_LINE.finditer(text) if _meaningful(a := _phrase_answer(m.group(1)))]
    if said:
        _, answer, says = max(said)
        return FinalAnswer(answer.strip(), says)
    line = _final_line(text)
    if line is None:
        return None
    alone = _NUMBER_LINE.match(_last_line(text).rstrip("."))
    return FinalAnswer(line, alone is not None)


def extract_final_answer(text: str) -> str | None:
    """The text of `final_answer`: what a response's answer is read as against a reference."""
    found = final_answer(text)
    return found.text if found else None


def committed_answer(text: str) -> str | None:
    """The final answer where the response marks it as its answer (`FinalAnswer.committed`); None otherwise:
    a response whose answer is only the last line of its prose gives nothing to derive a reference from."""
    found = final_answer(text)
    return found.text if found and found.committed else None


_SAYS_ANSWER = re.compile(r"answer[*_]*\s*(?:is\b|[:=])", re.IGNORECASE)
"""A phrase commits where it says so ("the answer is", "Final answer:"); "plain answer one" does not."""
_NUMBER_LINE = re.compile(r"^[*_`$\s]*(-?\d[\d,]*(?:\.\d+)?)[*_`$\s]*$")
"""A last line that is a number alone: the answer "at the very end of your response", as AIME-style prompts (and
LiveBench's, whose scorer reads the response's end) ask for it."""


_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{")
_BOX_HEDGE = re.compile(
    r"^[\s$.,;:()\\]*(?:\\text\{\s*)?(?:(?:,|/|\b(?:or|and|either|maybe|perhaps|possibly)\b)[\s$.,;:(){}\\]*)+$", re.I
)
"""What stands between two boxes that offer both: `\\boxed{41} or \\boxed{42}`, `$\\boxed{1}$, $\\boxed{2}$`."""


def _final_box(text: str) -> str | None:
    """The last box's contents ("" when it is empty or never closes); None when the text has no box. Boxes
    nested in the last one state it (`\\boxed{\\boxed{x}}`); the box before it, joined by a hedge word, joins it."""
    outer: list[tuple[int, int, str]] = []  # (start, end, contents) of the boxes not inside another
    for m in _BOX.finditer(text):
        if outer and m.start() < outer[-1][1]:
            continue
        inner = _braced_from(text, m.end())
        if inner is None:
            outer.append((m.start(), len(text), ""))  # never closes: nothing after it is read
            break
        outer.append((m.start(), m.end() + len(inner) + 1, inner))
    if not outer:
        return None
    start, _, last = outer[-1]
    last = (_final_box(last) or last).strip()  # \\boxed{\\boxed{x}} states x
    if not _meaningful(normalize(last)):  # \\boxed{} or \\boxed{\\phantom{2}}
        return ""
    if len(outer) > 1:
        _, before_end, before = outer[-2]
        if _BOX_HEDGE.match(text[before_end:start]) and before.strip():
            return f"{before.strip()} \\text{{ or }} {last}"
    return last


_A_LINE = re.compile(r"^[*_\s]*A[*_]*\s*:[*_]*\s*(.+?)\s*$", re.MULTILINE)
"""`A: 57500`: the few-shot question-and-answer format (`Q: ... A: ...`) many grade-school solutions end in."""


def _final_line(text: str) -> str | None:
    """The last line that holds a value, after its last `=`: itself where it is short ("068", "**1,250**.",
    "x = 3"), else its last number; where it names several numbers as alternatives ("41 or 42"), all of it, so
    that it matches no single value."""
    lines = [line.strip() for line in text.strip().splitlines() if _meaningful(line)]
    if not lines:
        return None
    with_value = [line for line in lines if re.search(r"\d", line)]
    line = with_value[-1] if with_value else lines[-1]
    segment = line.rsplit("=", 1)[-1]
    if line is lines[-1] and len(line) <= 40 and not says_nothing(segment):
        return _phrase_answer(segment.strip().rstrip(".")) or None
    numbers: list[str] = _NUMBER.findall(segment)
    if not numbers:
        return None
    if len(numbers) > 1 and _PROSE_HEDGE.search(segment):
        return segment.strip()
    return numbers[-1].strip()


_PROSE_HEDGE = re.compile(
    r"\d[%$]?\s*\(?\s*(?:,|;|/|\bor\b|\band\b)\s*(?:(?:maybe|possibly|perhaps|even|also)\s+)?\$?-?\d", re.I
)
"""Two numbers offered side by side in prose: `41 or 42`, `41, 42`, `41 (or maybe 42)`."""


def reference_answer(reference: str) -> str:
    """The answer a reference states: itself, or the marked final answer of a worked solution (GSM8K's `#### n`,
    MATH's `\\boxed{}`), so a dataset's `answer`/`solution` column works as the reference as it is."""
    if _GSM8K.search(reference) or "\\boxed{" in reference or "\\fbox{" in reference:
        return extract_final_answer(reference) or reference
    return reference


_ALTERNATIVES = re.compile(
    r"\b(?:or|either|and|one of|respectively|otherwise)\b|\\(?:approx|pm|mp|lor|vee|cup|sim|simeq|text\{\s*or)"
    r"|[≈±∓∪;]|(?<!\d)\s/\s(?!\d)",
    re.IGNORECASE,
)


def several_values(answer: str) -> bool:
    """Whether an answer names more than one value: values joined by or / either / and, a set, list, tuple or
    interval, `\\approx` or `\\pm` between values, a value followed by an alternative ("5 (or 6)"). Such an
    answer matches only a reference that names several values too, compared whole (set to set, tuple to tuple),
    never by overlap, first or last element."""
    s = re.sub(r"\\(?:left|right|big|Big)\b|\\[,;!: ()\[\]]|\$", "", answer)
    s = re.sub(r"\\[{}]", lambda m: m.group()[1], s)
    if _ALTERNATIVES.search(s):
        return True
    return _LISTED.search(_THOUSANDS.sub("", s)) is not None


_LISTED = re.compile(r"(?:[\d)}\]]|(?<![A-Za-z\\])[A-Za-z])\s*,\s*(?:[-+\d({\[\\]|[A-Za-z](?![A-Za-z]))")
"""A comma between two values, at any depth: a list, set, tuple or interval (`1, 2`, `it is {41, 42}`, `x, y`),
not a comma in prose (`nine, so 9`)."""


def _meaningful(s: str) -> bool:
    return bool(re.search(r"[A-Za-z0-9]", s))


# Stock openings and empty wrappers that fool judges while saying nothing ("master keys": ":", "Thought
# process:", "Let's solve this problem step by step.", "\\boxed{}", "I think the answer is correct.").
_STOCK = re.compile(
    r"let'?s (?:\w+ ){0,4}step[- ]by[- ]step|step[- ]by[- ]step|thought process|reasoning|solution"
    r"|(?:the |my )?(?:final )?answer(?: is)?"
    r"|i think (?:the|this|my) answer is (?:correct|right)|(?:this|that|it) is (?:correct|right)"
    r"|\\boxed\{\s*\}|解|答案",
    re.IGNORECASE,
)


_MANY_WORDS = 64
"""More distinct words than any run of stock phrases holds: such a text says something (and the stock-phrase
scan, which costs a third of a millisecond on a worked solution, is skipped for it)."""


def says_nothing(text: str) -> bool:
    """Whether a response is empty, punctuation, or only stock phrases: nothing a check could credit."""
    if len(text) > 400 and len(set(text.lower().split())) > _MANY_WORDS:
        return False
    return not re.search(r"[^\W_]", _STOCK.sub(" ", text))  # any letter or digit, in any script


def commits_to_nothing(response: str, prompt: str = "") -> bool:
    """Whether a response gives nothing a check could credit: `says_nothing`, or the prompt echoed back (whole,
    or its last line: the question restated with no answer after it)."""
    if says_nothing(response):
        return True
    if not prompt.strip() or len(response) > 2 * len(prompt) + 40:  # longer than an echo could be
        return False
    said = _words(response)
    if not said:
        return False
    question = prompt.strip().splitlines()[-1]
    return said in (_words(prompt), _words(question))


# ---------------------------------------------------------------- normalisation

_LATEX_SUBS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), repl)
    for pattern, repl in (
        (r"\\[hv]?phantom\{[^{}]*\}", ""),
        (r"\\[()\[\]]", ""),  # \( x \) and \[ x \]: math delimiters, as $ is
        (r"\\left|\\right|\\!|\\,|\\;|\\:|\\displaystyle", ""),
        (r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}", r"((\1)/(\2))"),
        (r"\\sqrt\{([^{}]*)\}", r"sqrt(\1)"),
        (r"\\cdot|\\times", "*"),
        (r"\\pi", "pi"),
        (r"\\(?:text|mathrm|mbox|textbf)\{([^{}]*)\}", r"\1"),
        (r"\^\{([^{}]*)\}", r"^(\1)"),
        (r"\^\\circ|°|\\circ|\\degree", ""),
        (r"\\%", "%"),
        (r"\\\$|\$", ""),
    )
)
_LATEX_CHARS = re.compile(r"[\\$^°%]")
"""Characters some substitution needs: an answer without any (most: "391", "3/4") skips them all."""
_THOUSANDS = re.compile(r"(?<=\d)(?:,|\{,\})(?=\d{3}(?:\D|$))")


def normalize(answer: str) -> str:
    """Strip LaTeX wrappers, dollar signs, thousands separators and trailing punctuation."""
    s = answer.strip()
    for _ in range(3):  # nested \frac{\frac{..}{..}}{..} unwrap from the inside out
        if not _LATEX_CHARS.search(s):
            break
        for pattern, repl in _LATEX_SUBS:
            s = pattern.sub(repl, s)
    s = _THOUSANDS.sub("", s)  # 10,000 and LaTeX's 10{,}000
    s = s.replace("{", "(").replace("}", ")")
    return s.strip().rstrip(".").strip()


_CHOICE = re.compile(r"^\(?([A-Ea-e])\)?(?:[.:)]|\s|$)")


def _choice(s: str) -> str | None:
    m = _CHOICE.match(s.strip())
    return m.group(1).upper() if m else None


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


def _number(s: str) -> tuple[Fraction, bool] | None:
    """(exact value, had a percent sign) when `s` is a plain number, fraction or percentage. Plain arithmetic,
    not sympy: most rewards are decided here, and parsing through sympy cost about 0.7 ms a number."""
    percent = s.endswith("%")
    body = s[:-1].strip() if percent else s
    if not re.fullmatch(r"[-+]?\(*[-+]?(\d+(\.\d*)?|\.\d+)\)*(\s*/\s*\(*\d+(\.\d*)?\)*)?", body):
        return None
    numerator, _, denominator = re.sub(r"[()\s]", "", body).partition("/")
    negative = numerator.count("-") % 2 == 1
    numerator = numerator.lstrip("+-")
    if max(len(numerator), len(denominator)) > MAX_NUMBER_DIGITS:
        return None
    try:
        value = Fraction(numerator) / (Fraction(denominator) if denominator else 1)
    except (ValueError, ZeroDivisionError):
        return None
    return (-value if negative else value), percent


def _numbers_equal(a: Fraction, b: Fraction) -> bool:
    return a == b or math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=1e-9)


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


def _rhs(s: str) -> str:
    """`x = 5` -> `5`: an answer stated as an equation for a single variable."""
    if s.count("=") == 1:
        lhs, rhs = s.split("=")
        if re.fullmatch(r"\s*[A-Za-z]\s*", lhs):
            return rhs.strip()
    return s


def _words(s: str) -> str:
    s = re.sub(r"[^\w\s]", " ", s.lower())
    return " ".join(w for w in s.split() if w not in {"a", "an", "the"})


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
    if own.equivalent or own.method in ("choice", "worded", "none"):
        return own
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
    ref_choice = _choice(reference) if len(reference.strip()) <= 3 else None
    if ref_choice is not None:
        got = _choice(answer)
        return Match(got == ref_choice, "choice", f"choice {got or '?'} vs {ref_choice}")
    a, r = _rhs(normalize(answer)), _rhs(normalize(reference))
    if not _meaningful(a):
        return Match(False, "none", "the answer states nothing")
    na, nr = _number(a), _number(r)
    worded = False
    if na is None and nr is not None:  # "It is 25%", "April 48, May 24: 72" against a numeric reference
        numbers = _NUMBER.findall(a)
        na, worded = (_number(normalize(numbers[-1])) if numbers else None), True
    if na is not None and nr is not None:
        (va, pa), (vr, pr) = na, nr
        candidates = [va]
        if pa != pr:  # "25%" vs "25" or "0.25": accept either reading of the percent sign
            candidates.append(va / 100 if pa else va * 100)
        ok = any(_numbers_equal(v, vr) for v in candidates)
        # a worded answer is read by its last number alone: no other reading (math-verify's first value) may
        # credit another number of it, so the same words never match two references
        return Match(ok, "worded" if worded else "numeric", f"{a} {'==' if ok else '!='} {r}")
    ra, rr = _split_top_level(a), _split_top_level(r)
    if len(rr) > 1:
        if len(ra) != len(rr):
            return Match(False, "tuple", f"{len(ra)} parts vs {len(rr)}")
        ok = all(_own_equivalent(x, y, symbolic).equivalent for x, y in zip(ra, rr, strict=True))
        return Match(ok, "tuple", f"{a} {'==' if ok else '!='} {r}")
    if not symbolic:
        raise NeedsSymbolic
    try:
        ea, er = to_sympy(a), to_sympy(r)
    except UnsafeExpression:
        ok = _words(a) == _words(r) and bool(_words(r))
        return Match(ok, "string", f"{a!r} {'==' if ok else '!='} {r!r}")
    try:
        ok = bool(sympy.simplify(ea - er) == 0)
    except (TypeError, ValueError, RecursionError):
        ok = False
    return Match(ok, "symbolic", f"{a} {'==' if ok else '!='} {r}")
