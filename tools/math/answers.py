"""A response's final answer, read the way graders read one (a box, "the answer is", an `A:` line, the last number),
what commits to no answer at all (empty, stock phrases, the prompt echoed back), and the normal form answers are
compared in (`equivalence.py` says when two are the same).

Candidate text is untrusted: a text with no extractable answer never matches (the "master-key" probes ":" or
"Let's solve this step by step" fail here).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judgegraph.tools.math.arithmetic import braced_from

# ---------------------------------------------------------------- extraction


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
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?%?")


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
        if meaningful(a := _phrase_answer(m.group(1)))
    ]
    said += [(m.start(), a, True) for m in _A_LINE.finditer(text) if meaningful(a := _phrase_answer(m.group(1)))]
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
        inner = braced_from(text, m.end())
        if inner is None:
            outer.append((m.start(), len(text), ""))  # never closes: nothing after it is read
            break
        outer.append((m.start(), m.end() + len(inner) + 1, inner))
    if not outer:
        return None
    start, _, last = outer[-1]
    last = (_final_box(last) or last).strip()  # \\boxed{\\boxed{x}} states x
    if not meaningful(normalize(last)):  # \\boxed{} or \\boxed{\\phantom{2}}
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
    lines = [line.strip() for line in text.strip().splitlines() if meaningful(line)]
    if not lines:
        return None
    with_value = [line for line in lines if re.search(r"\d", line)]
    line = with_value[-1] if with_value else lines[-1]
    segment = line.rsplit("=", 1)[-1]
    if line is lines[-1] and len(line) <= 40 and not says_nothing(segment):
        return _phrase_answer(segment.strip().rstrip(".")) or None
    numbers: list[str] = NUMBER.findall(segment)
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


def meaningful(s: str) -> bool:
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
    said = plain_words(response)
    if not said:
        return False
    question = prompt.strip().splitlines()[-1]
    return said in (plain_words(prompt), plain_words(question))


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


def choice_letter(s: str) -> str | None:
    m = _CHOICE.match(s.strip())
    return m.group(1).upper() if m else None


def plain_words(s: str) -> str:
    s = re.sub(r"[^\w\s]", " ", s.lower())
    return " ".join(w for w in s.split() if w not in {"a", "an", "the"})
