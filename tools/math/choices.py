"""Multiple-choice math: the options a statement lists, and which option an answer names.

Contest problems (AMC, and LiveBench's and JudgeBench's math sets built from them) list their options in the
statement, as AoPS writes them (`$\\textbf{(A) }12\\qquad\\textbf{(B) }14 ...$`) or plainly (`(A) 12 (B) 14`,
or one option a line: `A. 12`). A response names its choice by letter (`\\boxed{C}`, `CCCCC`, `(C) 24`) or by
value (`\\boxed{24}`); a program that solves the problem prints the value. Compared as option letters, these
all say the same thing.
"""

from __future__ import annotations

import re

from judgegraph.tools.math.equivalence import Match, equivalent
from judgegraph.tools.math.normal import letter_is_a_word, names_another_letter, normalize

_LABEL = re.compile(
    r"(?:\\(?:textbf|mathrm|text|mathbf|textrm)\s*\{\s*)?"  # \textbf{(A) }
    r"\(\s*(?:\\(?:textbf|mathrm|text|mathbf|textrm)\s*\{\s*)?([A-J])\s*\}?\s*\)"  # (A), (\mathrm{A})
    r"(?:\s*\})?"
)
_ASY = re.compile(r"\[asy\].*?(?:\[/asy\]|$)", re.DOTALL | re.IGNORECASE)
_LINE = re.compile(r"^\s*([A-J])\s*[.):]\s+(\S.*)$", re.MULTILINE)
_VALUE_END = re.compile(r"\\qquad|\\quad|\$|\n|\\\\")
_MIN_OPTIONS = 3
"""Fewer labels in a row than this are more likely a reference to part (a) or a point (A) than options."""


def choice_options(statement: str) -> dict[str, str]:
    """The options a statement lists, by letter (`{"A": "12", "B": "14", ...}`), or {} where it lists none: the
    last run of labels `(A)`, `(B)`, `(C)`... in order (inline or one a line), each option's value the text up
    to the next label (or the end of its line or math)."""
    statement = _ASY.sub(" ", statement)  # a figure's code names points (A), (B): not options
    labels = list(_LABEL.finditer(statement))
    runs: list[list[re.Match[str]]] = []
    for m in labels:
        letter = m.group(1)
        if letter == "A":
            runs.append([m])
        elif runs and ord(letter) == ord(runs[-1][-1].group(1)) + 1 and _between(statement, runs[-1][-1], m):
            runs[-1].append(m)
    runs = [r for r in runs if len(r) >= _MIN_OPTIONS]
    if runs:
        run = runs[-1]
        options = {}
        for k, m in enumerate(run):
            end = run[k + 1].start() if k + 1 < len(run) else len(statement)
            options[m.group(1)] = _value(statement[m.end() : end])
        return {letter: v for letter, v in options.items() if v}
    lines = _LINE.findall(statement)
    letters = "".join(letter for letter, _ in lines)
    at = letters.rfind("ABC")
    if at < 0:
        return {}
    options = {}
    for letter, value in lines[at:]:
        if letter != chr(ord("A") + len(options)):
            break
        options[letter] = _value(value)
    return {letter: v for letter, v in options.items() if v}


def _between(statement: str, before: re.Match[str], after: re.Match[str]) -> bool:
    """Whether two labels are neighbours in one list of options (not far apart in the prose)."""
    return after.start() - before.end() <= 200


def _value(text: str) -> str:
    cut = _VALUE_END.search(text)
    value = text[: cut.start()] if cut else text
    value = re.sub(r"\\[ ,;!]|~", " ", value)
    return value.strip().rstrip(",;").strip()


_NAMED = re.compile(r"^(?:(?i:option|choice)\s*)?(?:\(\s*([A-J])\s*\)|([A-J])(?![A-Za-z0-9]))(.*)$", re.DOTALL)
"""`(C)` with or without its value after it, or the letter (`C`, `C.`, `Option C`, `C - 24`, `C (also D)`)."""
_VARIABLE = re.compile(r"\s*[=+*/^<>≤≥]")
"""What makes a leading letter an equation's variable (`C = 5`), not an option."""


def as_choice(answer: str | None, options: dict[str, str], *, symbolic: bool = True) -> str | None:
    """The option letter an answer names, where the statement lists options: its letter (`C`, `(C)`,
    `\\textbf{(C) } 24`, `Option C`), else the one option whose value it equals (`24`); else the answer as it is.
    With `symbolic=False`, a value only plain comparisons settle (else `NeedsSymbolic`, as `equivalent` raises)."""
    if answer is None or not options:
        return answer
    letter = _label(answer, options)
    if letter is not None:
        return answer if letter == _TWO else letter
    # the option's value is compared as the answer: `equivalent` reads the last number of a worded answer against a
    # numeric reference ("It is 25%"), which would let `2\\sqrt{2}` name an option `2`
    same = [letter for letter, value in options.items() if equivalent(value, answer, symbolic=symbolic).equivalent]
    return same[0] if len(same) == 1 else answer


_TWO = "two options"


def _label(answer: str, options: dict[str, str]) -> str | None:
    """The option an answer names by its label (`C`, `(C)`, `(C) 24`); `_TWO` where the label names one option and
    what follows it another (`_names_another`); None where it names none by label."""
    said = normalize(answer).replace("~", " ").replace("\\ ", " ").strip()
    named = _NAMED.match(said)
    letter = named.group(1) or named.group(2) if named else None
    if named is None or letter not in options:
        return None
    rest = named.group(3)
    if not named.group(1) and (_VARIABLE.match(rest) or letter_is_a_word(letter, rest)):
        return None  # `C = 5`, `A rectangle`
    return _TWO if _names_another(rest, letter, options, labelled=named.group(1) is not None) else letter


def _names_another(rest: str, letter: str, options: dict[str, str], *, labelled: bool) -> bool:
    """Whether what follows a chosen option names another option: a letter next after it (`B (C also works)`,
    `B. C.`, `B & C`: `names_another_letter`, past the option's own value, which may name letters), after a label
    `(B)` any label or joined letter (`(B) or (C)`, `(B) Jupiter (or (C) Venus)`), or another option's value where
    this one's differs (`(B) Venus`). The answer then names two options: a hedge, which names none."""
    own = normalize(options[letter]).strip()
    after = rest.lstrip(" .:)-\u2013\u2014")
    if own and normalize(after).startswith(own):
        after = normalize(after)[len(own) :]
    if names_another_letter(after, letter, options, joined=True):
        return True
    if labelled and names_another_letter(rest, letter, options):
        return True
    value = normalize(rest).strip(" .")
    return bool(value) and value != own and value in {normalize(v) for v in options.values()}


def equivalent_choice(answer: str, reference: str, options: dict[str, str], *, symbolic: bool = True) -> Match:
    """`equivalent`, comparing the two as the option each names where the statement lists `options`."""
    if options:
        if _label(answer, options) == _TWO:
            return Match(False, "choice", "the answer names two options")
        answer = as_choice(answer, options, symbolic=symbolic) or answer
        reference = as_choice(reference, options, symbolic=symbolic) or reference
    return equivalent(answer, reference, symbolic=symbolic)


def same_answer(answer: str, other: str, options: dict[str, str] | None = None) -> bool:
    """Whether two final answers say the same: equivalent (as the option each names, where the statement lists
    `options`), or the same text once normalised."""
    return equivalent_choice(answer, other, options or {}).equivalent or normalize(answer) == normalize(other)
