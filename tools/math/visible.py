"""What a reader of a response sees once it is rendered (Markdown with LaTeX, as chat interfaces and the viewer
show it): the text less what renders as nothing or as code. An answer is read only from what a reader sees, so
a box that the response hides (an HTML, Markdown or LaTeX comment, `\\phantom`, white or transparent text, text
scaled to nothing or moved off the page, an element styled away or folded into `<details>`), crosses out
(`~~x~~`, `<del>`, `\\sout`, `\\cancel`) or writes as code (a fenced or indented block, a code span that shows
LaTeX as source) is not its answer: the reward is paid for the answer a reader reads as the response's own.
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
    r"|<(script|style|template|noscript|pre|xmp|listing)\b.*?(?:</\2\s*>|\Z)",  # unrendered, or code
    re.DOTALL | re.MULTILINE | re.IGNORECASE,
)
_HIDDEN_COLOR = (
    r"(?:white|transparent|#?f{3}(?:f{3})?(?:[\da-f]{1,2})?(?![\w-])|#[\da-f]{3}0|#[\da-f]{6}00"
    r"|rgba?\(\s*255\s*,\s*255\s*,\s*255\s*(?:,[^)]*)?\)|hsla?\([^,)]*,[^,)]*,\s*100\s*%[^)]*\)"
    r"|(?:rgb|hsl)a\([^)]*,\s*0*(?:\.0*)?\s*\)"
    r"|1(?:\.0*)?\s*,\s*1(?:\.0*)?\s*,\s*1(?:\.0*)?(?![\d.])|255\s*,\s*255\s*,\s*255"
    r"|[a-z]+\s*!\s*0*(?:\.0*)?(?![\d.]|\s*!)|white\s*!\s*[\d.]+(?![\d.]|\s*!))"
)
"""A colour a reader does not see on the page: white in any model (`rgb(255,255,255)`, `1,1,1`, `#fff`,
`hsl(0,0%,100%)`), anything with no opacity (`rgba(...,0)`, `#0000`, `transparent`), and xcolor's mixes with
white (`black!0`, `white!40`; `white!50!black` is grey)."""
_HIDDEN_STYLE = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*hidden|opacity\s*:\s*0(?:\.0*)?\s*(?:;|\"|'|$)|font-size\s*:\s*0"
    r"|(?<![-\w])(?:left|top|right|bottom|text-indent|margin(?:-left|-top)?)\s*:\s*-\s*\d{3,}"  # moved off the page
    r"|transform\s*:\s*scale[xy]?\(\s*0*(?:\.0*)?\s*[,)]|clip\s*:\s*rect\(\s*0|clip-path\s*:\s*inset\(\s*(?:50|100)\s*%"
    rf"|(?<![-\w])color\s*[:=]\s*[\"']?\s*{_HIDDEN_COLOR}(?![\w-])",
    re.IGNORECASE,
)
_HTML_OPEN = re.compile(r"<([A-Za-z][\w-]*)\b([^<>]*)>")
_PHANTOM = re.compile(
    r"\\(?:[hv]?phantom|(?:text|math)color\s*(?:\[[^\]]*\])?\s*\{\s*" + _HIDDEN_COLOR + r"\s*\}"
    r"|scalebox\s*\{\s*0*(?:\.0*)?\s*\}|resizebox\s*\{\s*0*(?:\.0*)?\s*[a-z]*\s*\}\s*\{[^}]*\})\s*\{",
    re.IGNORECASE,
)
_COLOR_SWITCH = re.compile(
    r"\\color\s*(?:\[[^\]]*\])?\s*\{\s*" + _HIDDEN_COLOR + r"\s*\}"
    r"|\\fontsize\s*\{\s*(?:0+(?:\.0*)?|\.0+)\s*[a-z]*\s*\}",
    re.IGNORECASE,
)
_STRUCK = re.compile(r"\\(?:sout|st|strike|[bx]?cancel)\s*\{")
"""LaTeX's struck-through text (ulem's `\\sout`, soul's `\\st`, `\\cancel` and its kin): what a response crosses out
it withdraws, so a struck-through box is no answer."""
_STRUCK_MARKDOWN = re.compile(
    r"\$\$.*?(?:\$\$|\Z)|\\\[.*?(?:\\\]|\Z)|\\\(.*?(?:\\\)|\Z)|(?<!\\)\$[^$\n]*+\$"  # math: a `~~` there is spacing
    r"|~~(?=[^\s~])(?:[^~\n]|\n(?![ \t]*\n)){0,2000}?(?<=[^\s~])~~",
    re.DOTALL,
)
"""GitHub Markdown's strikethrough (`~~x~~`, within a paragraph), outside math, where LaTeX's `~` is a space."""
_ZERO_WIDTH = re.compile("[\u200b-\u200f\u2060-\u2064\ufeff\u00ad]")
_DISPLAY_MATH = re.compile(
    r"\$\$.*?(?:\$\$|\Z)|\\\[.*?(?:\\\]|\Z)|\\begin\{([a-z]+\*?)\}.*?(?:\\end\{\1\}|\Z)", re.DOTALL
)
_LATEX_COMMENT = re.compile(r"(?<!\\)%[^\n]*(?=\n)")
"""A `%` comment in display math runs to the end of its line; one that would end the math on its own line
(`$\\boxed{25%}$`) is left: KaTeX would not render that math at all, and an honest answer writes it."""
_FOLDED = re.compile(r"<details\b[^>]*>(\s*<summary\b.*?</summary\s*>)?.*?(?:</details\s*>|\Z)", re.I | re.DOTALL)
"""`<details>` shows its summary only, until a reader unfolds it."""
_HTML_CODE_SPAN = re.compile(r"<(code|kbd|samp|tt)\b[^<>]*>(.{0,2000}?)</\1\s*>", re.IGNORECASE | re.DOTALL)
"""HTML's inline code: like a code span, what it shows as LaTeX source is code, not an answer."""
_CODE_SPAN = re.compile(r"(`{1,8})(?!`)([^\n]{1,2000}?)(?<!`)\1(?!`)")
"""An inline code span (on one line, bounded so that a text of unmatched backticks is read in linear time)."""
_LATEX_SOURCE = re.compile(r"\\[A-Za-z]")
_TEXT_TAG = re.compile(
    r"</?(?:span|div|font|p|br|b|i|u|em|strong|summary|mark|small|big|center|sup|sub|section|article|blockquote"
    r"|label|h[1-6]|code|kbd|samp|tt)\b[^<>]*>",
    re.IGNORECASE,
)
"""The tags of HTML that formats text: a reader sees their contents, never the tags."""
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]")


def visible(text: str) -> str:
    """`text` less what a reader does not see: comments, code, phantoms, text coloured white or transparent or
    scaled to nothing, HTML elements styled, marked hidden or folded, and zero-width characters. Linear in the
    text's length."""
    text = _ZERO_WIDTH.sub("", text)
    text = _UNSEEN_BLOCKS.sub("\n", text)
    # each pass below runs only where its mark stands (a rule reward reads every rollout: most have none)
    if "<" in text:
        text = _HTML_CODE_SPAN.sub(lambda m: "" if _LATEX_SOURCE.search(m.group(2)) else m.group(0), text)
        text = _FOLDED.sub(lambda m: m.group(1) or "", text)
        text = _TEXT_TAG.sub(" ", _hidden_elements(text))
    if "\n    " in text or "\n\t" in text:
        text = _indented_code(text)
    if "`" in text:
        text = _CODE_SPAN.sub(lambda m: "" if _LATEX_SOURCE.search(m.group(2)) else m.group(0), text)
    if "%" in text:
        text = _DISPLAY_MATH.sub(lambda m: _LATEX_COMMENT.sub("", m.group(0)), text)
    if "~~" in text:
        text = _STRUCK_MARKDOWN.sub(lambda m: "" if m.group(0).startswith("~~") else m.group(0), text)
    text = _remove_braced(_remove_braced(text, _PHANTOM), _STRUCK)
    return _remove_switched(text)


def _indented_code(text: str) -> str:
    """Less Markdown's indented code blocks: lines indented four spaces (or a tab) after a blank line, where the
    text before is no list item (whose continuation is indented) and no such line itself."""
    lines = text.split("\n")
    out: list[str] = []
    blank, in_list, in_code = True, False, False
    for line in lines:
        if not line.strip():
            blank = True
            out.append(line)
            continue
        indented = line.startswith(("    ", "\t"))
        if indented and (in_code or (blank and not in_list)):
            in_code = True
            out.append("")
        else:
            in_code = False
            if _LIST_ITEM.match(line):
                in_list = True
            elif not indented:
                in_list = False
            out.append(line)
        blank = False
    return "\n".join(out)


def _hidden_elements(text: str) -> str:
    """HTML elements with a `hidden` attribute or a style that hides them, up to their closing tag."""
    out: list[str] = []
    pos = 0
    unclosed: set[str] = set()
    for m in _HTML_OPEN.finditer(text):
        if m.start() < pos:
            continue
        attributes = m.group(2)
        struck = m.group(1).lower() in ("s", "del", "strike")  # crossed out: withdrawn, as `~~x~~`
        if not (struck or _HIDDEN_STYLE.search(attributes) or re.search(r"(?<![-\w])hidden\b", attributes, re.I)):
            continue
        name = m.group(1).lower()
        close = None if name in unclosed else re.compile(rf"</{name}\s*>", re.I).search(text, m.end())
        if struck and not close:
            unclosed.add(name)  # none closes later either: each is looked for once (linear in the text)
            continue  # a stray `<s>` (a tokenizer's start token, quoted) strikes nothing
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
