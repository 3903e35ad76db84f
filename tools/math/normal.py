"""The normal form answers are read and compared in: LaTeX wrappers, dollar signs, thousands separators and
full-width or Unicode math characters spelled one way, and a plain number read exactly."""

from __future__ import annotations

import re
from fractions import Fraction

MAX_NUMBER_DIGITS = 40

NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?%?")
"""A number as prose writes one: `-3`, `1,250`, `2.5`, `3/4`, `25%`."""

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
THOUSANDS = re.compile(r"(?<=\d)(?:,|\{,\})(?=\d{3}(?:\D|$))")

_SUPERSCRIPTS = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9"}
_CHARACTERS = str.maketrans(
    {
        **{chr(c): chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)},  # full-width ASCII: `４２` is 42
        "\u3000": " ",
        "−": "-",
        "×": "*",
        "·": "*",
        "⋅": "*",
        "÷": "/",
        "⁄": "/",
        "π": " pi ",
        "√": " sqrt ",
        **{k: f"^{v}" for k, v in _SUPERSCRIPTS.items()},  # `42²` is a power, never the number 422
    }
)


def normalize(answer: str) -> str:
    """Strip LaTeX wrappers, dollar signs, thousands separators and trailing punctuation; full-width digits and
    Unicode math signs read as their ASCII spelling."""
    s = answer.strip().translate(_CHARACTERS)
    for _ in range(3):  # nested \frac{\frac{..}{..}}{..} unwrap from the inside out
        if not _LATEX_CHARS.search(s):
            break
        for pattern, repl in _LATEX_SUBS:
            s = pattern.sub(repl, s)
    s = THOUSANDS.sub("", s)  # 10,000 and LaTeX's 10{,}000
    s = s.replace("{", "(").replace("}", ")")
    return s.strip().rstrip(".").strip()


_PLAIN = re.compile(r"[-+]?\(*[-+]?(\d+(\.\d*)?|\.\d+)\)*(\s*/\s*\(*\d+(\.\d*)?\)*)?")


def plain_number(s: str) -> Fraction | None:
    """The exact value of a plain number, fraction or percentage in normal form; None for anything else. A percent
    sign has one reading: it names what the number counts, as a unit does (`25%` is 25, never 0.25), so one
    answer never matches two references. Plain arithmetic, not sympy: most rewards are decided here."""
    body = s[:-1].strip() if s.endswith("%") else s
    if not _PLAIN.fullmatch(body):
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
    return -value if negative else value


def meaningful(s: str) -> bool:
    return bool(re.search(r"[A-Za-z0-9]", s))


_CHOICE = re.compile(r"^\(?([A-Ea-e])\)?(?:[.:)]|\s|$)")


def choice_letter(s: str) -> str | None:
    m = _CHOICE.match(s.strip())
    return m.group(1).upper() if m else None
