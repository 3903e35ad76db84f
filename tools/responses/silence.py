"""Responses that commit to nothing, whatever the task: empty, punctuation, stock openings and empty wrappers
(`:`, "Let's solve this step by step.", `\\boxed{}`: the "master keys" that fool model judges), or the prompt
echoed back. Every judge reads them the same way (0 by evidence; no model sees them), for math, code and open
questions alike, so the check lives here, below every room that uses it."""

from __future__ import annotations

import re


def plain_words(s: str) -> str:
    """A text's words, lower-cased, without punctuation or articles: how an echo of the prompt, and a worded answer,
    are compared."""
    s = re.sub(r"[^\w\s]", " ", s.lower())
    return " ".join(w for w in s.split() if w not in {"a", "an", "the"})


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
