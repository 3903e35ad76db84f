"""What a response says beside its final answer that changes what it commits to (`answers.final_answer` reads
them): a box the words right after it call wrong, which the response does not stand behind, and a value an
aside right after a box offers beside it, which makes the box a hedge."""

from __future__ import annotations

import re

from judgegraph.tools.math.arithmetic import braced_from
from judgegraph.tools.math.normal import normalize
from judgegraph.tools.math.readings import read

BOX = re.compile(r"\\(?:boxed|fbox)\s*\{")


_WITHDRAWN = re.compile(
    r"[\s$)}*_]*(?:(?:but|and|which|that|this|it|here|above|however|though|actually|the|my|previous|earlier|first"
    r"|answer|box|boxed|value|result|number|one)\b|[\s,:\u2013\u2014-])*?"
    r"(?:is|was|were|'s|\u2019s)\s+(?:(?:a|an|just|clearly|obviously|definitely|totally|completely|actually)\s+)*"
    r"(?:wrong|incorrect|(?:a\s+)?typo|(?:a\s+)?mistake|mistaken|(?:an\s+)?error|false"
    r"|not\s+(?:right|correct|the\s+(?:right\s+|correct\s+)?answer))\b(?=\s*(?:[.!;,:)\u2013\u2014-]|$))",
    re.IGNORECASE,
)
"""What says of a box, in the words right after it, that it is wrong (`\\boxed{42} was a typo`, `\\boxed{42},
but that's incorrect.`): only words that refer back to the box stand between, so `any other count is wrong`
withdraws nothing."""
_WITHDRAWN_BOXES = 8
"""How many withdrawn boxes are passed over (a bound on the reader's work)."""


def withdrawn_boxes(text: str) -> str:
    """`text` less the boxes that the words right after them call wrong: the response does not stand behind
    them, so none is its answer (what it says elsewhere is read instead)."""
    out: list[str] = []
    pos, withdrawn = 0, 0
    outer_end = 0
    for m in BOX.finditer(text):
        if m.start() < max(pos, outer_end):
            continue  # inside a box already read: each is read once (linear in the text)
        inner = braced_from(text, m.end())
        if inner is None:
            break
        end = outer_end = m.end() + len(inner) + 1
        if _WITHDRAWN.match(text, end):
            out.append(text[pos : m.start()])
            pos = end
            withdrawn += 1
            if withdrawn >= _WITHDRAWN_BOXES:
                break
    return "".join(out) + text[pos:]


_ASIDE = re.compile(
    r"[ \t$]*(?:\\[,;:!][ \t]*|\\q?quad\b[ \t]*)*"
    r"(?P<mark>(?:(?:\(|\u2014|\u2013|--|/|~|≈|\\(?:approx|sim|lor|vee)(?![A-Za-z])|\\text\{\s*or\s*\})[ \t$]*)*)"
    r"(?:[,;][ \t$]*)?"
    r"(?P<words>(?:(?:or|else|otherwise|also|possibly|maybe|perhaps|probably|i\.\s?e\.|if\s+not|thereabouts|that\s+is)"
    r"(?![A-Za-z])[ \t,:$]*)*)"
    r"\(?[ \t$]*(?P<value>-?\d[\d,]*(?:\.\d+)?)",
    re.IGNORECASE,
)
"""A value offered right after a box, with only marks and an aside's words before it: `(41?)`, `(41 with the
lid)`, `(≈41)`, `— 41 on a recount`, `/ 41`, `, i.e. 41`, `(if not, 41)`, `\\lor 41`."""
_EXPLAINS = re.compile(
    r"\d|[=+*/^×÷·<>%]|\\(?:times|cdot|div|frac|%)|n't"
    r"|\b(?:not|no|never|fails?|impossible|wrong|incorrect|cannot|was|were|earlier|initial(?:ly)?|previous(?:ly)?|before)\b",
    re.IGNORECASE,
)
"""What makes the words around an aside's number a working or a reason, not another answer: a second number,
an operator, a percent (a conversion), a negation, a value the response had before (`-- 41 was my first guess`)."""


def aside(boxed: str, tail: str) -> list[str]:
    """The value an aside right after a plain-number box offers beside it, where its words offer it (`(41 with the
    lid)`), not work it out (`(6 rows × 7)`), convert it (`(50%)`), approximate it (`(≈ 0.333)` after `0.3333`)
    or rule it out (`— 3 is impossible`). An aside after a box that is an expression is not read (its
    decimal value would read as another number)."""
    m = _ASIDE.match(tail)
    if not m or not (m.group("mark").strip() or m.group("words")):
        return []  # (most rollouts: read first, the box after)
    box = read(normalize(boxed))
    if box.kind != "number" or box.value is None:
        return []
    closing = tail.find(")", m.end()) if "(" in m.group(0) else -1
    rest = tail[m.end() : closing] if closing >= 0 else re.split(r"[.;!?\n]", tail[m.end() :], maxsplit=1)[0]
    if _EXPLAINS.search(rest):
        return []
    value = m.group("value")
    offered = read(normalize(value)).value
    decimals = min(len(value.partition(".")[2]), len(normalize(boxed).partition(".")[2]))
    if offered is None or abs(offered - box.value) * 10**decimals * 2 <= 1:  # one value, rounded as either shows it
        return []
    return [value]
