"""What a reader of a response sees once it is rendered (Markdown with LaTeX, as chat interfaces and the viewer
show it): the text less what renders as nothing or as code. An answer is read only from what a reader sees, so
a box that the response hides (an HTML or Markdown comment, `\\phantom`, white or transparent text, an element
styled away) or writes inside a code block is not its answer: the reward is paid for the answer a reader reads.
"""

from __future__ import annotations

import re

from judgegraph.tools.math.arithmetic import braced_from

_UNSEEN_BLOCKS = re.compile(
    r"<!--.*?(?:-->|\Z)"  # an HTML comment (unclosed: to the end)
    r"|^[ \t]*+(`{3,}+|~{3,}+)[^\n]*+\n.*?(?:^[ \t]*\1[ \t]*$|\Z)"  # a fenced code block (unclosed: to the end)
    r"|^[ \t]*\[[^\]\n]*\]:[ \t]*(?:#|<>)[^\n]*$"  # a Markdown comment: `[//]: # (...)`
    r"|\\iffalse\b.*?(?:\\fi\b|\Z)"
    r"|\\begin\{comment\}.*?(?:\\end\{comment\}|\Z)"
    r"|<(script|style|template|noscript)\b.*?(?:</\2\s*>|\Z)",
    re.DOTALL | re.MULTILINE | re.IGNORECASE,
)
_HIDDEN_COLOR = r"(?:white|transparent|#?f{3}(?:f{3})?|1\s*,\s*1\s*,\s*1|255\s*,\s*255\s*,\s*255)"
_HIDDEN_STYLE = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*hidden|opacity\s*:\s*0(?:\.0*)?\s*(?:;|\"|'|$)|font-size\s*:\s*0"
    rf"|(?<![-\w])color\s*:\s*{_HIDDEN_COLOR}\b",
    re.IGNORECASE,
)
_HTML_OPEN = re.compile(r"<([A-Za-z][\w-]*)\b([^<>]*)>")
_PHANTOM = re.compile(
    r"\\(?:[hv]?phantom|textcolor\s*\{\s*" + _HIDDEN_COLOR + r"\s*\}"
    r"|mathcolor\s*\{\s*" + _HIDDEN_COLOR + r"\s*\})\s*\{",
    re.IGNORECASE,
)
_COLOR_SWITCH = re.compile(r"\\color\s*(?:\[[^\]]*\])?\s*\{\s*" + _HIDDEN_COLOR + r"\s*\}", re.IGNORECASE)
_ZERO_WIDTH = re.compile("[\u200b-\u200f\u2060-\u2064\ufeff\u00ad]")


def visible(text: str) -> str:
    """`text` less what a reader does not see: comments, code blocks, phantoms, text coloured white or transparent,
    HTML elements styled or marked hidden, and zero-width characters. Linear in the text's length."""
    text = _ZERO_WIDTH.sub("", text)
    text = _UNSEEN_BLOCKS.sub("\n", text)
    text = _hidden_elements(text)
    text = _remove_braced(text, _PHANTOM)
    return _remove_switched(text)


def _hidden_elements(text: str) -> str:
    """HTML elements with a `hidden` attribute or a style that hides them, up to their closing tag."""
    out: list[str] = []
    pos = 0
    for m in _HTML_OPEN.finditer(text):
        if m.start() < pos:
            continue
        attributes = m.group(2)
        if not (_HIDDEN_STYLE.search(attributes) or re.search(r"(?<![-\w])hidden\b", attributes, re.I)):
            continue
        close = re.compile(rf"</{re.escape(m.group(1))}\s*>", re.IGNORECASE).search(text, m.end())
        out.append(text[pos : m.start()])
        pos = close.end() if close else len(text)
    return "".join(out) + text[pos:]


def _remove_braced(text: str, command: re.Pattern[str]) -> str:
    """Each `command{...}` with its braced argument (never closed: to the end)."""
    out: list[str] = []
    pos = 0
    while (m := command.search(text, pos)) is not None:
        out.append(text[pos : m.start()])
        inner = braced_from(text, m.end())
        pos = len(text) if inner is None else m.end() + len(inner) + 1
    return "".join(out) + text[pos:]


def _remove_switched(text: str) -> str:
    """`\\color{white}` hides the rest of its group: up to the brace that closes the group, the end of the math
    (`$`, `\\]`, `\\)`) or a blank line."""
    out: list[str] = []
    pos = 0
    while (m := _COLOR_SWITCH.search(text, pos)) is not None:
        out.append(text[pos : m.start()])
        depth, i = 0, m.end()
        while i < len(text):
            c = text[i]
            if c == "{":
                depth += 1
            elif c == "}":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (c == "$" or text.startswith(("\\]", "\\)", "\n\n"), i)):
                break
            i += 1
        pos = i
    return "".join(out) + text[pos:]
