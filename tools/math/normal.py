"""The normal form answers are read and compared in: LaTeX wrappers, dollar signs, thousands separators and
full-width or Unicode math characters spelled one way, and a plain number read exactly."""

from __future__ import annotations

import re
from collections.abc import Container
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


_CHOICE = re.compile(r"^(?:(?i:option|choice)\s*)?\(?([A-Ea-e])\)?(?:[.:),]|\s|$)")
"""An answer's leading option letter: `B`, `(B)`, `B. Jupiter`, `Option B`."""


_JOINING_WORDS = (
    "or|and|also|plus|vs|versus"  # English
    "|oder|und|ou|et|o|y|e|u|i|og|och|eller|en|of|ili|lub|albo|veya|ve|atau|dan|hoặc|và"  # Latin scripts
    "|или|и|ή|και|או|أو|या|और|หรือ|และ"  # Cyrillic, Greek, Hebrew, Arabic, Devanagari, Thai
)
"""Words that join two options, in the languages whose answer phrases the readers take (`answers._WORLD_WORDS`)."""
_JOINING_MARKS = (
    "或者|或是|或|还是|還是|和|与|與|及|または|又は|か|と|や"  # Chinese, Japanese
    "|또는|혹은|이나|나|와|과"  # Korean
    "|/|／|,|，|、|;|；|&|\\+|\\|"
)
"""Marks and unspaced words that join two options (CJK's `或`, `または`, `또는`; `/`, `&`, `+`, `|`)."""
ANOTHER_LABEL = re.compile(
    rf"\(\s*([A-J])\s*\)|(?:(?<!\w)(?:{_JOINING_WORDS})(?!\w)\.?|{_JOINING_MARKS})\s*\(?\s*([A-J])(?![A-Za-z])"
)
"""Another option named after a chosen one: its label, or its letter joined to it by a word or mark that joins two
options in any language the readers take (`(B) or C`, `B 或 C`, `B oder C`, `B & C`, `B (also C)`)."""


_ASIDE_WORDS = (
    "maybe|perhaps|possibly|probably|arguably|likely|though|although|but|alternatively|otherwise|also|too|even|then"
    "|unless|it's|it\u2019s|it\\s+is|with|else|if\\s+not|thereabouts"
)
"""Words an aside naming another option opens with (`B (maybe C)`, `B, though C is close`, `B, unless it's C`)."""
_OFFERED = (
    "also|too|works?|could|might|may|would|can|fits?|seems?|possibly|maybe|perhaps|probably|likely|as\\s+well"
    "|(?:is|was)\\s+(?:also|close|possible|plausible|likely|right|correct|valid|defensible|acceptable|good|fine)"
    "|(?:or|and|if|with|on|otherwise|though|instead)\\b"
)
"""What a letter followed by words must be followed by to be offered as an answer (`C also works`, `C is close`);
other words make it the subject of an explanation (`B fails`, `A is smaller`) or a word (`A rectangle`)."""
NEXT_LABEL = re.compile(
    r"(?:[\s.,;:!?()\[\]{}<>=/|&+*_~\u2014\u2013\u2228\u2227\u2248-]|\\(?:(?:lor|vee|land|wedge)(?![A-Za-z])|&|text\{\s*(?:or|and)\s*\})"
    rf"|(?i:{_JOINING_WORDS}|{_ASIDE_WORDS})(?!\w)|{_JOINING_MARKS})*?"
    rf"([A-J])(?![A-Za-z])(?!\s+(?!(?:{_OFFERED}))[a-z])"
)
"""Another option's letter next after a chosen one, with nothing between but marks, joining words and the words
an aside opens with: `B & C`, `B (C also works)`, `B. C.`, `B — C`, `B > C`, `B \\lor C`, `B (maybe C)`, `B. Or
C`. Not a letter the words after it make a subject or a word (`B (C fails)`, `B. A gas giant`), nor one after
words that explain (`C. Both A and B are smaller`, `B, because A is smaller`, `B (not C)`)."""


_A_WORD = re.compile(rf"\s+(?!(?:{_OFFERED}))[a-z]")


def letter_is_a_word(letter: str, after: str) -> bool:
    """Whether `letter`, followed by `after`, is the article or the pronoun (`A rectangle`, `I think`), not an
    option's letter (`A is right`, `A also works`)."""
    return letter in "AI" and _A_WORD.match(after) is not None


def names_another_letter(rest: str, letter: str, letters: Container[str], *, joined: bool = False) -> bool:
    """Whether `rest`, what follows an answer's chosen option `letter`, names another of `letters` (`ANOTHER_LABEL`;
    `joined`: next after it, `NEXT_LABEL`, where no options say what a letter in the prose could be): the
    answer then names two options, a hedge, which names none."""
    if joined:
        found = NEXT_LABEL.match(rest)
        return found is not None and found.group(1) != letter and found.group(1) in letters
    return any((other := a or b) != letter and other in letters for a, b in ANOTHER_LABEL.findall(rest))


OFFERED_AFTER = re.compile(rf"[\s*_.)!?]*$|[\s*_)]*\?|\s+(?!and\b)(?:{_OFFERED})")
"""What may follow a letter offered after an answer: nothing more on its line, a question mark, or the words
that offer it (`(C also works)`, `(C if you count the lid)`); not a list's label (`C) Venus: too small`) nor
a subject (`A and C are rocky`)."""


def choice_letter(s: str) -> str | None:
    """The option letter (A-E) an answer starts with (`B`, `(B)`, `B. Jupiter`); None where it names none, or joins
    another option straight to it (`B & C`, `B 或 C`; not `C. Both A and B are wrong`, which explains)."""
    s = s.strip()
    m = _CHOICE.match(s)
    if m is None or names_another_letter(s[m.end() - 1 :].lstrip(".:)"), m.group(1).upper(), "ABCDE", joined=True):
        return None
    return m.group(1).upper()
