"""Examples read out of a task's statement, as the tests a request did not bring (issue #21).

Three shapes, as real statements write them:
- calls with their values: HumanEval-style doctests (`>>> f(x)` then the value), `f(x) == y` / `f(x) ➞ y` lines,
  MBPP-style `assert f(x) == y`;
- LeetCode-style examples: `Input: a = 1, b = "x"` then `Output: 3`, for a function or a `Solution` method;
- contest samples: `Sample Input k` / `Sample Output k` blocks, or `Input` / `Output` blocks under an
  `Example(s)` heading, run on stdin/stdout.

Every case says whether it may decide: a value that cannot be read as data, prose in an expected output, a
statement that accepts other answers ("print any of them", "any valid answer") make a case that informs only. A
returned value that may come "in any order" is compared without order (a different multiset is still wrong).
Nothing here runs code: parsing is `ast` and `ast.literal_eval` on the statement's text.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Literal

from judgegraph.tools.code.literals import UNREADABLE, literal, literal_call

Style = Literal["call", "stdin"]


@dataclass(frozen=True)
class Example:
    """One example of the statement: what to run and what it should give."""

    shown: str
    """The input as the statement writes it (a call's source, or the stdin text)."""
    expected_text: str
    """The expected value or output as the statement writes it."""
    function: str | None = None
    """A call example's function name, where the statement names it (LeetCode examples name none)."""
    args: tuple[object, ...] = ()
    kwargs: dict[str, object] = field(default_factory=dict)
    stdin: str | None = None
    expected: object = UNREADABLE
    decisive: bool = True
    note: str = ""
    """Why the example informs only, when it does."""
    names: tuple[str, ...] = ()
    """The arguments' names as a LeetCode example writes them (`nums = [1], k = 2`), passed in that order."""
    order: Literal["kept", "free", "unstated"] = "kept"
    """How the order of a returned collection counts: `kept` as the statement shows it; `free`, the statement
    lets it come in any order (compared as a multiset, at every level); `unstated`, a LeetCode collection whose
    order the statement does not fix (the site's checker often ignores it): a difference in order alone informs."""


@dataclass(frozen=True)
class Statement:
    """What a statement gives to test with."""

    style: Style | None
    examples: list[Example]
    method: str | None = None
    """The method a LeetCode-style starter (`class Solution: def name(self, ...)`) names."""
    tolerance: float | None = None
    """The absolute or relative error the statement allows for real-valued outputs."""
    any_case: bool = False
    """The statement accepts printed words in any letter case (`YES`, `yes`, `Yes`)."""

    @property
    def leetcode(self) -> bool:
        """A LeetCode-style statement (a `class Solution` starter, or examples that name no function): its
        answers are judged in LeetCode's environment, which defines `List`, `Counter`, `heapq`... for them."""
        return _leetcode_style(self.style, self.examples, self.method)


def _leetcode_style(style: Style | None, examples: list[Example], method: str | None) -> bool:
    return method is not None or (style == "call" and any(e.function is None for e in examples))


# ---------------------------------------------------------------- what the statement allows

_OTHER_ANSWERS = re.compile(
    r"any (?:of them|one of them|valid|correct|such)|(?:several|multiple|many) (?:possible |valid |"
    r"correct )?(?:answers|solutions|outputs)(?![^.\n]*\b(?:return|print|output|choose|find)\s+the\b)"
    r"|(?:is|are) also (?:a )?(?:valid|correct|accepted)|(?:print|output|return) any\b(?! order)|special judge"
    r"|\bchecker\b",
    re.IGNORECASE,
)
_ORDER_KEPT = re.compile(
    r"relative order|(?:same|original|given) order|(?:return|output)[^.\n]{0,80}(?:\bsorted\b|\bin (?:ascending|"
    r"descending|increasing|decreasing|non-decreasing|non-increasing|lexicographical|lexicographic) order)",
    re.IGNORECASE,
)
"""A statement that says the returned order counts (keep the relative order, return it sorted)."""
_ANY_ORDER = re.compile(r"\bany order\b|\border\b[^.\n]{0,80}\b(?:does not|doesn't|do not|don't) matter", re.IGNORECASE)
_TOLERANCE = re.compile(
    r"(?:\berror|\baccura(?:te|cy)|\bprecision|\btolerance)[^.]{0,120}?"
    r"(?:10\s*\^\s*\{?\s*[-−–]\s*(\d+)\s*\}?|1e[-−](\d+)|10\s*\*\*\s*[-−](\d+)|10⁻([⁰¹²³⁴⁵⁶⁷⁸⁹]+))",
    re.IGNORECASE | re.DOTALL,
)
""""absolute or relative error does not exceed 10^{-6}", "an error of at most 10^-6", "accurate to 1e-9",
"10⁻⁶"..."""
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")


def statement_tolerance(statement: str) -> float | None:
    m = _TOLERANCE.search(statement)
    if m is None:
        return None
    digits = next(g for g in m.groups() if g)
    return 10.0 ** -int(digits.translate(_SUPERSCRIPTS))


_ANY_CASE = re.compile(
    r"\bin any (?:letter )?case\b|case[- ]insensitive|\bany (?:combination of )?(?:upper|lower)[- ]?case"
    r"|(?:upper|lower)[- ]?case[^.\n]{0,60}\b(?:accepted|recognized|allowed)",
    re.IGNORECASE,
)
"""Codeforces' "You can output the answer in any case (upper or lower)", and the ways others say it."""


def accepts_other_answers(text: str) -> bool:
    return _OTHER_ANSWERS.search(text) is not None


def _in_any_order(e: Example) -> Example:
    """`e` under a statement that lets answers come in any order: a returned collection (or string) is compared
    without order; a printed output may be laid out in ways a token comparison cannot follow, so it informs."""
    if e.stdin is not None:
        return informing(e, "the statement accepts the output in any order")
    if isinstance(e.expected, list | tuple | str):
        return Example(**{**e.__dict__, "order": "free"})
    return e  # a number or a truth value has no order


def without_order(value: object, top: bool = True) -> object:
    """`value` with the order taken out at every level (lists sorted by their items' text); a top-level string
    as its sorted characters. Equal for any reordering; two values that differ here differ in every order."""
    if isinstance(value, list | tuple):
        return sorted((without_order(v, top=False) for v in value), key=repr)
    if isinstance(value, str) and top:
        return "".join(sorted(value))
    return value


# ---------------------------------------------------------------- call examples

_ARROW = re.compile(
    r"^\s*(?:'''|\"\"\")?\s*(?:[*\-•]\s+)?(?:(?:for example|for|e\.g\.|examples?)\s*:?\s+)?(?:assert\s+)?"
    r"(?P<call>[A-Za-z_]\w*\s*\(.*\))\s*(?:#\s*(?:=>|->|returns?)|==>|==|➞|=>|->|→|⇒)\s*(?P<value>.+?)\s*$",
    re.IGNORECASE,
)
_SHOULD = re.compile(r"^\s*(?P<call>[A-Za-z_]\w*\s*\(.*\))\s+(?:should\s+)?(?:returns?|gives?)\s+(?P<value>.+?)\.?\s*$")


def _doctests(prompt: str) -> list[Example]:
    """`>>> call` lines (with `...` continuations) and the value lines that follow them."""
    out: list[Example] = []
    lines = prompt.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)>>>\s?(.*)$", lines[i])
        if not m:
            i += 1
            continue
        source = [m.group(2)]
        i += 1
        while i < len(lines) and re.match(r"^\s*\.\.\.(\s|$)", lines[i]):
            source.append(re.sub(r"^\s*\.\.\.\s?", "", lines[i]))
            i += 1
        expected: list[str] = []
        while i < len(lines) and lines[i].strip() and not re.match(r"^\s*>>>", lines[i]):
            if re.match(r'^\s*("""|\'\'\')', lines[i]):
                break
            expected.append(lines[i].strip())
            i += 1
        call = literal_call("\n".join(source))
        if call is None or not expected:
            continue  # statements, or calls on names: nothing a candidate alone can be run on
        text = "\n".join(expected)
        out.append(_call_example("\n".join(source).strip(), call, text))
    return out


def _call_example(shown: str, call: tuple[str, tuple[object, ...], dict[str, object]], expected_text: str) -> Example:
    name, args, kwargs = call
    value = literal(expected_text)
    note = "" if value is not UNREADABLE else "the expected value is not data a program returns"
    return Example(
        shown=shown,
        expected_text=expected_text,
        function=name,
        args=args,
        kwargs=kwargs,
        expected=value,
        decisive=value is not UNREADABLE,
        note=note,
    )


def _arrow_examples(prompt: str) -> list[Example]:
    out = []
    for raw in prompt.splitlines():
        line = re.sub(r"^\s*>>>\s?", "", raw)  # `>>> f(x) == y` with no value line: an example all the same
        m = _ARROW.match(line) or _SHOULD.match(line)
        if not m:
            continue
        call = literal_call(m.group("call"))
        if call is None:
            continue
        value = m.group("value").strip().rstrip(".")
        if literal(value) is UNREADABLE and "#" in value:
            value = value.rsplit("#", 1)[0].strip()  # `f(x) == 3  # because ...`
        example = _call_example(m.group("call").strip(), call, value)
        if value.startswith("("):
            if example.expected is UNREADABLE:
                continue  # `f(x) -> (an explanation)` states no value
            if not isinstance(example.expected, tuple):  # `("Venus")`: a tuple meant, or not?
                example = informing(example, "a parenthesised value that is not a tuple: which was meant is unclear")
        out.append(example)
    return out


_MARK = r"(?:\*\*|__|\*|_)?"
_INPUT_LINE = re.compile(rf"^[-*>\s]*{_MARK}\s*input\s*{_MARK}\s*:\s*{_MARK}\s*(?P<input>\S.*)$", re.IGNORECASE)
_OUTPUT_LINE = re.compile(rf"^[-*>\s]*{_MARK}\s*output\s*{_MARK}\s*:\s*{_MARK}\s*(?P<output>\S.*)$", re.IGNORECASE)
_MAX_VALUE_LINES = 40
"""The most lines one example's input or output value is read over."""
_DESIGN = re.compile(r"^\W*(?:question:\s*)?design\b|\bimplement the `?\w+`? class\b", re.IGNORECASE | re.MULTILINE)
"""LeetCode's design problems: "Design an algorithm to ...", "Implement the `MinStack` class"."""
_DESIGN_CALLS = re.compile(r'\[\s*"[A-Z]\w*"\s*(?:,\s*"\w+"\s*)*\]\s*,?\s*\[\s*\[')
"""LeetCode's design problems write their examples as the constructor and method names, then their arguments."""
_AND = re.compile(r"\s*,?\s+and\s+(?=[A-Za-z_]\w*\s*=)")
"""`n = 5 and edges = [...]`: an `and` between two of an example's arguments."""


def _output_value(lines: list[str], j: int, first: str) -> tuple[str, int]:
    """The expected value that starts on line `j` (`first`), read on over the next lines where it is written over
    several, and the line after it; `first` alone where the lines after do not make it readable."""
    expected_text, k = first, j + 1
    while literal(expected_text) is UNREADABLE and k < len(lines) and k - j <= _MAX_VALUE_LINES:
        more = lines[k].strip()
        if not more or more.startswith("```") or re.match(r"\W*(?:explanation|example|input)\b", more, re.I):
            break
        expected_text, k = f"{expected_text} {more}", k + 1
    return (expected_text, k) if literal(expected_text) is not UNREADABLE else (first, j + 1)


def _leetcode_examples(prompt: str) -> list[Example]:
    """`Input: a = 1, b = [2]` then `Output: 3` (the explanation up to the next example read for a note that
    other answers are accepted)."""
    lines = prompt.splitlines()
    out = []
    for i, line in enumerate(lines):
        m = _INPUT_LINE.match(line.strip())
        if not m:
            continue
        j = i + 1  # the input may go on over lines (a grid written a row a line) up to the Output line
        while j < len(lines) and j - i <= _MAX_VALUE_LINES and not _OUTPUT_LINE.match(lines[j].strip()):
            if _INPUT_LINE.match(lines[j].strip()) or lines[j].strip().startswith("```"):
                break
            j += 1
        o = _OUTPUT_LINE.match(lines[j].strip()) if j < len(lines) else None
        if o is None:
            continue
        joined = " ".join([m.group("input"), *(x.strip() for x in lines[i + 1 : j])])
        if _DESIGN_CALLS.match(joined.strip().strip("`")):
            continue  # a design problem's calls on one object (`["MinStack","push"]`, `[[],[1]]`): not one call
        tried = [text.strip().strip("`").strip() for text in (joined, m.group("input"))]  # a drawing may follow
        for raw_in in dict.fromkeys(t for text in tried for t in (text, _AND.sub(", ", text))):  # `n = 5 and k = 2`
            call = literal_call(f"f({raw_in})")
            if call is not None:
                break
        if call is None:
            continue
        _, args, kwargs = call
        expected_text, k = _output_value(lines, j, o.group("output").strip().strip("`").strip())
        while (
            k < len(lines) and not _INPUT_LINE.match(lines[k].strip()) and not re.match(r"\W*example", lines[k], re.I)
        ):
            k += 1
        after = "\n".join(lines[j + 1 : k])
        value = literal(expected_text)
        note = ""
        if value is UNREADABLE:
            note = "the expected output is not data a program returns"
        elif accepts_other_answers(after):
            note = "the example says other answers are accepted"
        out.append(
            Example(
                shown=raw_in,
                expected_text=expected_text,
                args=tuple(kwargs.values()) if kwargs and not args else args,
                kwargs={} if kwargs and not args else kwargs,
                names=tuple(kwargs) if kwargs and not args else (),
                expected=value,
                decisive=not note,
                note=note,
            )
        )
    return out


_STARTER_METHOD = re.compile(
    r"class\s+Solution\b[^\n]*:\s*\n(?:[^\n]*\n)*?\s+def\s+(?!__)(\w+)\s*\(\s*self\b(?P<params>[^)]*)\)"
)


LEETCODE_NODES = re.compile(r"\b(?:TreeNode|ListNode|Node|NestedInteger|ImmutableListNode|Interval|Employee)\b")
"""LeetCode's own classes, which its examples write as lists (a tree level by level, a linked list's values): a
signature that takes or returns one is not called with the lists as they are written (the judge does not build
LeetCode's nodes)."""


def _param_names(params: str) -> list[str]:
    """`, nums: List[int], k: int = 0` -> ['nums', 'k'] (top-level commas only: `Dict[str, int]` is one)."""
    names, depth, part = [], 0, ""
    for ch in params + ",":
        depth += (ch in "[(") - (ch in "])")
        if ch == "," and depth == 0:
            name = re.match(r"\s*\*{0,2}([A-Za-z_]\w*)", part)
            if name:
                names.append(name.group(1))
            part = ""
        else:
            part += ch
    return names


def _named_otherwise(e: Example, params: list[str]) -> Example:
    """`e`, informing only where it names arguments the starter's method does not take (a design problem's
    round trip, or an example about another call)."""
    if e.names and params and list(e.names) != params[: len(e.names)]:
        return informing(e, f"the example names {', '.join(e.names)}; the starter's method takes {', '.join(params)}")
    return e


# ---------------------------------------------------------------- contest samples

# Headings as statements write them: markdown (`### Sample Input 1`, `**Input:**`), APPS and TACO's rules
# (`-----Examples-----`), Codeforces pasted from its site (`inputCopy`).
_RULE = r"(?:-{3,}\s*)?"
_HEADING = re.compile(
    rf"^\s*{_RULE}(?:#{{1,6}}\s*)?(?:\*\*|__)?\s*(?P<kind>sample|example)?s?\s*(?P<io>input|output)s?(?:copy)?\s*"
    rf"(?P<k>\d*)\s*(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*{_RULE}$",
    re.IGNORECASE,
)
_EXAMPLES_HEADING = re.compile(
    rf"^\s*{_RULE}(?:#{{1,6}}\s*)?(?:\*\*)?\s*(?:examples?|samples?)\s*(?:\d+)?\s*(?:\*\*)?:?\s*{_RULE}$", re.I
)
_SENTENCE = re.compile(r"^[A-Z][a-z]+(?: [\w,'()-]+){3,}[.:]$")


def _block(lines: list[str], start: int, stop_at_blank: bool) -> tuple[str, int]:
    """The text after a heading: a fenced block, else the lines up to the next heading (or blank line)."""
    i = start
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i < len(lines) and lines[i].strip().startswith("```"):
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith("```"):
            j += 1
        return "\n".join(lines[i + 1 : j]), j + 1
    j = i
    while j < len(lines) and not _HEADING.match(lines[j]) and not _EXAMPLES_HEADING.match(lines[j]):
        if stop_at_blank and not lines[j].strip():
            break
        if re.match(rf"^\s*{_RULE}(?:#{{1,6}}\s*)?(?:\*\*)?\s*(?:notes?|explanation|constraints)\b", lines[j], re.I):
            break
        j += 1
    body = lines[i:j]
    while body and not body[-1].strip():
        body.pop()
    return "\n".join(body), j


def _samples(prompt: str) -> list[Example]:
    lines = prompt.splitlines()
    inputs: list[str] = []
    outputs: list[str] = []
    in_examples = False
    i = 0
    while i < len(lines):
        if _EXAMPLES_HEADING.match(lines[i]):
            in_examples = True
            i += 1
            continue
        m = _HEADING.match(lines[i])
        if m is None or (m.group("kind") is None and not in_examples):  # a bare `Input` describes the format
            i += 1
            continue
        is_input = m.group("io").lower() == "input"
        text, i = _block(lines, i + 1, stop_at_blank=not is_input)
        (inputs if is_input else outputs).append(text)
    out = []
    for stdin, expected in zip(inputs, outputs, strict=False):
        note = ""
        if any(_SENTENCE.match(line.strip()) for line in expected.splitlines()):
            note = "the expected output reads as prose"
        elif not expected.strip() and not stdin.strip():
            continue
        out.append(
            Example(
                shown=stdin,
                expected_text=expected,
                stdin=stdin if stdin.endswith("\n") else stdin + "\n",
                expected=expected,
                decisive=not note,
                note=note,
            )
        )
    return out


# ---------------------------------------------------------------- the statement


@functools.lru_cache(maxsize=256)
def read_statement(prompt: str) -> Statement:
    """The examples `prompt` gives, in one style (calls where it gives any, else stdin samples). Cached: the
    plan, the tools and their follow-ups each read the same statement (treat the result as read-only)."""
    method_match = _STARTER_METHOD.search(prompt)
    method = method_match.group(1) if method_match else None
    params = _param_names(method_match.group("params")) if method_match else []
    tolerance = statement_tolerance(prompt)
    others = accepts_other_answers(prompt)
    calls = _doctests(prompt) + _arrow_examples(prompt) + _leetcode_examples(prompt)
    seen: set[str] = set()
    unique = []
    for e in calls:
        key = f"{e.function}|{e.shown}|{e.expected_text}"
        if key not in seen:
            seen.add(key)
            unique.append(e)
    if unique:
        style: Style | None = "call"
        examples = unique
    elif re.search(r"\binteractive\b", prompt, re.I) or method is not None:
        style, examples = None, []  # an interactive protocol, or a design problem's call sequences
    else:
        examples = _samples(prompt)
        style = "stdin" if examples else None
    leetcode = _leetcode_style(style, examples, method)
    if others:
        examples = [
            e if not e.decisive else informing(e, "the statement accepts other answers (any of them, any valid one)")
            for e in examples
        ]
    elif _ANY_ORDER.search(prompt):
        examples = [_in_any_order(e) if e.decisive else e for e in examples]
    elif style == "call" and leetcode and not _ORDER_KEPT.search(prompt):
        # LeetCode checks many "return all ..." answers in any order without saying so
        examples = [
            Example(**{**e.__dict__, "order": "unstated"}) if isinstance(e.expected, list | tuple) else e
            for e in examples
        ]
    if params:
        examples = [_named_otherwise(e, params) for e in examples]
    elif leetcode and _DESIGN.search(prompt):  # no starter names the method a design problem's example is about
        note = "a design problem: which of the class's methods the example calls is not said"
        examples = [informing(e, note) if e.decisive and e.function is None else e for e in examples]
    signature = method_match.group(0) + prompt[method_match.end() :].partition("\n")[0] if method_match else ""
    if LEETCODE_NODES.search(signature):  # `def f(self, head: Optional[ListNode]) -> Optional[TreeNode]:`
        note = "the example writes a tree or a linked list as a list; the judge does not build LeetCode's nodes"
        examples = [informing(e, note) if e.decisive else e for e in examples]
    any_case = _ANY_CASE.search(prompt) is not None
    return Statement(style=style, examples=examples, method=method, tolerance=tolerance, any_case=any_case)


def informing(e: Example, note: str) -> Example:
    """`e`, informing only, saying why."""
    return Example(**{**e.__dict__, "decisive": False, "note": note})
