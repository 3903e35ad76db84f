"""A response's final answer, read the way graders read one (a box, "the answer is", an `A:` line, the last line),
from what a reader of the response sees (`visible.py`); what commits to nothing at all (empty, stock phrases, the
prompt echoed back) is every judge's, in `tools/responses/silence.py`. `normal.py` holds the normal form answers
are compared in, `readings.py` what number an answer states, and `equivalence.py` says when two are the same.

Candidate text is untrusted: a text with no extractable answer never matches (the "master-key" probes ":" or
"Let's solve this step by step" fail here).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judgegraph.tools.math.arithmetic import braced_from
from judgegraph.tools.math.normal import NEXT_LABEL, OFFERED_AFTER, THOUSANDS, choice_letter, meaningful, normalize
from judgegraph.tools.math.offers import BOX, aside, withdrawn_boxes
from judgegraph.tools.math.readings import read
from judgegraph.tools.math.visible import visible
from judgegraph.tools.responses.silence import says_nothing

# ---------------------------------------------------------------- extraction


_ANSWER_PHRASE = re.compile(
    r"(?:final answer|the answer|answer)[*_]*\s*(?:is|:|=)?[*_]*\s*[:=]?[*_]*\s*(.+?)(?:\.\s|\.$|\n|$)", re.IGNORECASE
)
"""`The answer is x`, `Final answer: x`, and their markdown (`**Final answer:** x`, `*Answer*: x`)."""


_RESTATED = re.compile(r"(?:the\s+)?(?:final\s+)?answer\s*(?:is\b|:|=)\s*", re.IGNORECASE)
"""The phrase said again inside the answer: Minerva's harness format, which MATH evaluations prompt for, ends
`Final Answer: The final answer is x. I hope it is correct.`"""


_PHRASE_CHARS = 1000
"""An answer phrase's answer is read from its first thousand characters: no final answer is longer, and the phrase
said again thousands of times would cost a pass over the rest each time."""


def _phrase_answer(found: str) -> str:
    """A phrase's answer without the markdown emphasis or code span around it (`**x**`, `_x_`, `` `x` ``) or the
    phrase said again (as often as it is: a loop, so no repetition exhausts the reader)."""
    s = found[:_PHRASE_CHARS]
    while True:
        s = re.sub(r"^(?:\*\*|__|\*|_|`+)\s*|\s*(?:\*\*|__|\*|_|`+)$", "", s.strip()).strip()
        restated = _RESTATED.match(s)
        if not restated or restated.end() >= len(s):
            return s
        s = s[restated.end() :]


_GSM8K = re.compile(r"####\s*(.+?)\s*$", re.MULTILINE)


_WORLD_WORDS_UNSPACED = (
    *("最终答案", "最後の答え", "答案", "答え", "正解", "解答", "答"),
    *("정답", "최종 답", "답", "คำตอบ"),
)
"""Words for "answer" in scripts written without spaces between words (no word boundary to look for)."""
_WORLD_WORDS = (
    *("réponse", "respuesta", "antwort", "endergebnis", "resposta", "risposta", "ответ", "відповідь", "đáp án"),
    *("cevap", "الإجابة", "الجواب", "پاسخ", "उत्तर", "jawaban", "odpowiedź", "odpověď", "antwoord", "svar"),
    *("vastaus", "απάντηση", "תשובה", "răspuns", "válasz"),
)
_WORLD_PHRASE = re.compile(
    rf"(?:{'|'.join(_WORLD_WORDS_UNSPACED)}|\b(?:{'|'.join(_WORLD_WORDS)})(?: finale?)?\b)[*_]*\s*"
    r"(?:是|为|為|は|는|은|est|es|ist|é|è|—|-)?[*_]*\s*[:=：]?[*_]*\s*(.+?)\s*(?:です|である|입니다|이다)?(?:[。.]\s|[。.]$|\n|$)",
    re.IGNORECASE,
)
"""`Final answer: x` as models write it in other languages (最终答案：x, 答案是 x, Réponse finale : x, La respuesta es
x, Die Antwort ist x, Ответ: x, 정답: x): a response in another language commits to its answer, and contradicts
its box, the same way."""


_CORRECTION = re.compile(
    r"\b(?:actually|correction|wait|oops|sorry|no(?=[,!.])|rather|I\s+mean)\b[,:;!.]*\s*"
    r"(?:(?:the\s+)?(?:correct|right|real|true|actual)\s+(?:answer|result|value|total|number|count)\s+"
    r"(?:is|should\s+be|would\s+be)|it(?:'s|\u2019s|\s+is|\s+should\s+be|\s+would\s+be)|(?:that|this)\s+should\s+be"
    r"|make\s+(?:that|it)|(?:it\s+)?should\s+be|I\s+(?:get|mean)|we\s+get)\b[*_]*\s*[:=]?\s*(.+?)(?:\.\s|\.$|\n|$)",
    re.IGNORECASE,
)
"""A correction in words (`Hmm, actually it is 41.`, `Wait, the correct answer is 41`): an answer statement where
it states one value; a later one replaces an earlier answer, and one after a box that differs makes it a hedge."""


_REPEATED_LETTER = re.compile(
    r"^[\s*_`$]*+(?i:(?:final\s+)?answer\s*(?:is)?\s*[:=]?)?[\s*_`$]*+(?:\\(?:boxed|textbf|text)\{)?"
    r"([A-J])\1{4,}\}?[\s*_`$.]*$"
)
"""Possessive where two runs of markup meet: a line of 20,000 `$` took 4 s to refuse, backtracking between them."""


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

    Read from what a reader sees (`visible.visible`: no box in a comment, a phantom, white text or a code block is
    an answer), in order, as math-verify and the Minerva and Qwen-Math graders read a response: the chosen letter
    repeated (`CCCCC`); the last box (`\\boxed{}`, `\\fbox{}`: an earlier box it replaces is not a hedge, and a
    last box left open is no answer, never a reason to fall back to an earlier one); GSM8K's last `#### x`; the
    last answer phrase (`The answer is x`, `Final answer: x`) or `A: x` line; else the last line that holds a
    value (`_final_line`). Two boxes joined by "or" are read as one answer naming both values, which matches
    no single reference (`several_values`); so is a box that a later answer statement contradicts (`\\boxed{42}
    ... Final answer: 41`, `∴ 41`, a number alone on the last line): the response commits to two answers. A box
    the response itself calls wrong (`\\boxed{42} was a typo`) is no answer (`offers.withdrawn_boxes`)."""
    text = withdrawn_boxes(visible(text))
    if letter := repeated_letter(text):
        return FinalAnswer(letter, True)
    statements = _statements(text)
    box = _final_box(text)
    if box is not None:
        boxed, box_end = box
        if not boxed:
            return None
        stated = [a for start, a, says in statements if says is not False and start >= box_end and _states_value(a)]
        tail = text[box_end : box_end + _ALTERNATIVE_CHARS]
        offered = _concluded(text, box_end) + _alternatives(text, box_end) + aside(boxed, tail)
        other = [a for a in stated[-1:] + offered + _next_letter(boxed, tail) if not _same_statement(boxed, a)]
        return FinalAnswer(f"{boxed} \\text{{ or }} {other[-1]}" if other else boxed, True)
    gsm = [(start, a) for start, a, says in statements if says is None]
    if gsm:
        start, answer = gsm[-1]
        end = text.find("\n", start)  # the end of the `####` line, or of the text
        end = len(text) if end < 0 else end
        offered = _concluded(text, end) + _alternatives(text, end) + _next_letter(answer, text[end:])
        offered = [a for a in offered if not _same_statement(answer, a)]
        return FinalAnswer(f"{answer} \\text{{ or }} {offered[-1]}" if offered else answer, True)
    if statements:
        start, answer, says = statements[-1]
        end = text.find(answer, start) + len(answer)
        offered = _alternatives(text, end) + _concluded(text, end) + _next_letter(answer, text[end : end + 2000])
        offered = [a for a in offered if not _same_statement(answer, a)]
        return FinalAnswer(f"{answer} \\text{{ or }} {offered[-1]}" if offered else answer, bool(says))
    line = _final_line(text)
    if line is None:
        return None
    alone = _NUMBER_LINE.match(_last_line(text).rstrip("."))
    return FinalAnswer(line, alone is not None)


def _statements(text: str) -> list[tuple[int, str, bool | None]]:
    """The answer statements, in order: (where, what, whether it says it is the answer; None for GSM8K's
    `#### x`, which outranks the others): `#### x`, answer phrases, `A:` lines and corrections that state a value."""
    found: list[tuple[int, str, bool | None]] = [(m.start(), m.group(1).strip(), None) for m in _GSM8K.finditer(text)]
    found += [
        (m.start(), a.strip(), _SAYS_ANSWER.search(m.group(0)) is not None)
        for m in _ANSWER_PHRASE.finditer(text)
        if meaningful(a := _phrase_answer(m.group(1)))
    ]
    found += [
        (m.start(), a.strip(), True) for m in _A_LINE.finditer(text) if meaningful(a := _phrase_answer(m.group(1)))
    ]
    lowered = text.lower()  # the rarer statements are looked for only where one of their words stands
    if any(word in lowered for word in (*_WORLD_WORDS_UNSPACED, *_WORLD_WORDS)):
        found += [
            (m.start(), a.strip(), True)
            for m in _WORLD_PHRASE.finditer(text)
            if meaningful(a := _phrase_answer(m.group(1)))
        ]
    if any(word in lowered for word in _CORRECTION_WORDS):
        found += [
            (m.start(), a.strip(), True)
            for m in _CORRECTION.finditer(text)
            if read(normalize(a := _phrase_answer(m.group(1)))).value is not None
        ]
    return sorted(found, key=lambda f: f[0])


_RESULT_NOUNS = ("result", "value", "total", "number", "count", "amount", "sum")
_NAMED_RESULT = re.compile(
    rf"\bthe\s+(?:correct|right|actual|true|real|final)\s+(?:answer|{'|'.join(_RESULT_NOUNS)})"
    r"[*_]*\s*(?:is\b|[:=])[*_]*\s*(.+?)(?:\.\s|\.$|\n|$)",
    re.IGNORECASE,
)
"""`The correct count is 41`, `The actual total is 41`: after a box, an answer statement where it states one value."""
_CONCLUSION = re.compile(
    r"^[*_ \t$]*+(?:∴|⇒|=>|→|\\(?:therefore|implies|Rightarrow|Longrightarrow|to)(?![A-Za-z]))"
    r"[*_ \t$]*+(.+)$",  # greedy to the line's end (the markup after it is stripped): linear in the line
    re.MULTILINE,
)
"""A line that opens with a mark of conclusion (`∴ 41`, `=> 41`, `\\therefore 41`)."""


def _concluded(text: str, after: int) -> list[str]:
    """What the text after a box concludes with, in order: the last line opening with a mark of conclusion that
    states a value alone (`∴ 41`, `=> 41 jars`; not `⇒ 42 / 6 = 7`, a check), the last result it names (`The
    correct count is 41`) and a number alone on the last line (`**41**`), which AIME-style prompts read as the
    answer. Only the last of each counts (a later answer
    replaces an earlier one), so a few of the last conclusions are read, however many the text holds."""
    tail = text[after:]
    found = []
    marked = any(mark in tail for mark in ("∴", "⇒", "=>", "→", "\\therefore", "\\implies", "ightarrow", "\\to"))
    for m in list(_CONCLUSION.finditer(tail) if marked else ())[::-1][:_CONCLUSIONS_READ]:
        if "=" not in (a := m.group(1).rstrip("*_ \t$.")) and _one_value(a):
            found.append(a)
            break
    found += [
        a for m in _NAMED_RESULT.finditer(tail) if read(normalize(a := _phrase_answer(m.group(1)))).value is not None
    ][-1:]
    last = tail.rstrip().rsplit("\n", 1)[-1].strip()
    if last and (alone := _NUMBER_LINE.match(last.rstrip("."))):
        found.append(alone.group(1))
    elif last and (said := _CONCLUDING_LINE.match(last)):
        a = said.group(1).rstrip("*_ \t$.")
        if "=" not in a and _one_value(a):
            found.append(a)
    return found


_CONCLUDING_LINE = re.compile(
    r"^[*_ \t]*(?:(?:so|thus|hence|therefore|overall|altogether|in\s+total|in\s+all|in\s+the\s+end)\b[*_ \t]*,?"
    r"|(?:final|result|total|count|solution|conclusion|(?:second|another|alternative|backup|revised|corrected|updated)"
    r"\s+(?:guess|answer|result|count)|answer\s*\([^)\n]{0,30}\)|on\s+a\s+recount)[*_ \t]*:)[*_ \t]*(.+)$",
    re.IGNORECASE,
)
"""A last line that concludes with a value after a box (`So, 41.`, `In total, 41 jars.`, `Result: 41`, `**Final:**
41`, `Second guess: 41`): read where it states one value alone."""


_CONCLUSIONS_READ = 8


def _one_value(a: str) -> bool:
    """Whether a conclusion states one value alone: a number, a worded number (`41 jars`), or an option's letter."""
    letter = re.fullmatch(r"\(?[A-J]\)?(?:\s+(?:though|too|also|instead|as\s+well))?", a.strip(), re.IGNORECASE)
    return (letter is not None and a.strip()[:2].strip("(").isupper()) or read(normalize(a)).kind in (
        "number",
        "worded",
    )


def _next_letter(answer: str, tail: str) -> list[str]:
    """Where the answer is an option's letter alone (`B`, `(B)`), another letter offered next after it
    (`normal.NEXT_LABEL`: `\\boxed{B} (C also works)`, `The answer is B.\\n\\nC`, `#### B\\n\\n**C**`)."""
    letter = choice_letter(answer.strip("$ "))
    if letter is None or re.sub(r"[()\s.*_$]", "", answer) != letter:
        return []
    m = NEXT_LABEL.match(tail.lstrip("$}"))
    if m is None or m.group(1) == letter or not OFFERED_AFTER.match(tail.lstrip("$}"), m.end()):
        return []
    return [m.group(1)]


_CORRECTION_WORDS = ("actually", "correction", "wait", "oops", "sorry", "no,", "no!", "no.", "rather", "i mean")


def _states_value(statement: str) -> bool:
    """Whether an answer statement after a box states a value of its own (`Final answer: 41`, a choice's letter
    `Final answer: C`), not a word about the box (`I hope the answer is correct`)."""
    if re.fullmatch(r"[*_\s]*\(?[A-J]\)?[.)]?[*_\s]*", statement):
        return True
    return bool(re.search(r"[\d$\\]", statement)) or read(normalize(statement)).value is not None


_ALTERNATIVE = re.compile(
    r"(?:\(\s*|\b)(?:or(?:\s+(?:possibly|maybe|perhaps|else))?|alternatively|it\s+(?:could|might|may)\s+(?:also\s+)?be)"
    r"\b[,:]?\s*([^()\n]{1,60}?)\s*(?:\)|[.;!?](?:\s|$)|\n|$)",
    re.IGNORECASE,
)
"""An answer offered beside the final one (`\\boxed{42} (or 41)`, `... Alternatively, 41.`, `It could also be
41.`): where it states another value, the response commits to two answers, a hedge."""
_ALTERNATIVE_CHARS = 2000
"""How far past the final answer an alternative is looked for (a bound on the reader's work)."""


def _alternatives(text: str, after: int) -> list[str]:
    """The values offered as alternatives after position `after`, in order: right after the answer (`42 (or
    41)`, `42, or maybe 41`) or opening a sentence of their own (`Alternatively, 41.`), never an "or" inside
    a sentence that explains (`whether x is 3 or 4`)."""
    tail = text[after : after + _ALTERNATIVE_CHARS]
    found = [m.group(1)] if (m := _ANOTHER_ALONE.match(tail)) else []
    for m in _ALTERNATIVE.finditer(tail):
        before = tail[: m.start()]
        right_after = not before.strip(" \t$.,;:*_")
        if (right_after or _SENTENCE_END.search(before)) and _states_value(a := m.group(1).strip(" $*_")):
            found.append(a)
    for m in _OFFERED.finditer(tail):  # only where what it offers is one value alone
        before = tail[: m.start()]
        a = (m.group(1) or m.group(2)).strip(" $*_")
        if (not before.strip(" \t$.,;:*_") or _SENTENCE_END.search(before)) and _one_value(a):
            found.append(a)
    return found


_OFFERED = re.compile(
    r"\b(?:(?:the\s+answer\s+|that\s+|this\s+)?(?:could|might|may)\s+(?:also\s+)?be|(?:though\s+)?(?:possibly|maybe|perhaps)"
    r"|(?:second|another|alternative|backup)\s+(?:guess|answer|option)|on\s+a\s+recount)\b[,:]?\s*([^()\n.;!?]{1,40}?)"
    r"\s*(?:\)|[.;!?](?:\s|$)|\n|$)"
    r"|(?<![\w.])(-?\d[\d,]*(?:\.\d+)?)\s+(?:is\s+also\s+(?:possible|correct|valid|plausible|acceptable|an\s+option)"
    r"|(?:also\s+)?works\s+too|also\s+works|otherwise)\b",
    re.IGNORECASE,
)
"""A value offered in a sentence of its own after the answer (`Could be 41 though.`, `Second guess: 41.`, `41 is
also possible.`, `; 41 otherwise.`)."""


_ANOTHER_ALONE = re.compile(
    r"[ \t$]*[.;][ \t*_$]*(?:(?i:also),?[ \t]+)?(\(?[A-J]\)?|-?\d[\d,]*(?:\.\d+)?)[ \t*_$.!]*(?:\n|$)"
)
"""A value alone in the sentence right after the answer, on its line (`The answer is B. C.`, `Final answer: 42.
Also 41.`): offered beside it."""
_SENTENCE_END = re.compile(r"(?:[.!?]\s+|\n\s*)$")


def _same_statement(boxed: str, statement: str) -> bool:
    """Whether a statement after the box says what the box says: the same text once normalised, or the same
    number (`\\boxed{42}` ... `Final answer: 42 apples`)."""
    a, b = normalize(boxed), normalize(re.sub(r"\\(?:boxed|fbox)\s*\{", "{", statement))
    if a == b or a.strip("()") == b.strip("()"):
        return True
    first, second = read(a).value, read(b).value
    return first is not None and first == second


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


_BOX_HEDGE = re.compile(
    r"^[\s$.,;:()\\]*(?:\\text\{\s*)?(?:(?:,|/|\b(?:or|and|either|maybe|perhaps|possibly)\b)[\s$.,;:(){}\\]*)+$", re.I
)
"""What stands between two boxes that offer both: `\\boxed{41} or \\boxed{42}`, `$\\boxed{1}$, $\\boxed{2}$`."""


_NESTED_BOXES = 8
"""How deep boxes nested in the last one are unwrapped (`\\boxed{\\boxed{x}}` states x): deeper nesting is no
answer a grader reads, and unwrapping it without a bound would let one response exhaust the reader."""


def _final_box(text: str, depth: int = 0) -> tuple[str, int] | None:
    """The last box's contents ("" when it is empty or never closes) and where it ends; None when the text has
    no box. Boxes nested in the last one state it (`\\boxed{\\boxed{x}}`, to `_NESTED_BOXES` deep); the box
    before it, joined by a hedge word, joins it."""
    outer: list[tuple[int, int, str]] = []  # (start, end, contents) of the boxes not inside another
    for m in BOX.finditer(text):
        if outer and m.start() < outer[-1][1]:
            continue
        inner = braced_from(text, m.end())
        if inner is None:
            outer.append((m.start(), len(text), ""))  # never closes: nothing after it is read
            break
        outer.append((m.start(), m.end() + len(inner) + 1, inner))
    if not outer:
        return None
    start, end, last = outer[-1]
    nested = _final_box(last, depth + 1) if depth < _NESTED_BOXES else None
    last = (nested[0] if nested and nested[0] else last).strip()  # \\boxed{\\boxed{x}} states x
    if not meaningful(normalize(last)):  # \\boxed{} or \\boxed{\\phantom{2}}
        return "", end
    if len(outer) > 1:
        _, before_end, before = outer[-2]
        if _BOX_HEDGE.match(text[before_end:start]) and before.strip():
            return f"{before.strip()} \\text{{ or }} {last}", end
    return last, end


_A_LINE = re.compile(r"^[*_ \t]*+A[*_]*[ \t]*:[*_]*[ \t]*(.+?)[ \t]*$", re.MULTILINE)
"""`A: 57500`: the few-shot question-and-answer format (`Q: ... A: ...`) many grade-school solutions end in."""


def _final_line(text: str) -> str | None:
    """The last line that holds a value, as it is ("068", "**1,250**.", "x = 3", "so she earns $18 a day"), read
    as what it states (`readings.read`: an equation by its last side where the others equal it, a worded line by
    its one number, nothing where it names several), never by its last number."""
    lines = [line.strip() for line in text.strip().splitlines() if meaningful(line)]
    if not lines:
        return None
    with_value = [line for line in lines if re.search(r"\d", line)]
    line = with_value[-1] if with_value else lines[-1]
    line = line.lstrip("= ").rstrip(".").strip()  # `= 8`: a computation's last line
    if line and says_nothing(line):
        return None
    return (_phrase_answer(line) if len(line) <= 40 else line) or None


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
    return _LISTED.search(THOUSANDS.sub("", s)) is not None


_LISTED = re.compile(r"(?:[\d)}\]]|(?<![A-Za-z\\])[A-Za-z])\s*,\s*(?:[-+\d({\[\\]|[A-Za-z](?![A-Za-z]))")
"""A comma between two values, at any depth: a list, set, tuple or interval (`1, 2`, `it is {41, 42}`, `x, y`),
not a comma in prose (`nine, so 9`)."""
