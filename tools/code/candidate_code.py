"""A candidate's program as the judge finds it in a response: its language, its code (a fenced block, or the
prompt completed by a body-only response) and, in Python, the function under test; whether a response holds a
program at all."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from judgegraph.errors import ToolFailure
from judgegraph.schema import JudgeRequest
from judgegraph.tools.code.language import (
    Language,
    any_blocks,
    fence_tags_of,
    fenced_language,
    language_named,
    languages,
)


def entry_point_of(request: JudgeRequest, code: str) -> str | None:
    """The function under test: the request's `entry_point` (HumanEval's column, kept in metadata) if the code
    defines it, else the last function the prompt declares that the code defines, else the code's last."""
    defined: list[str] = re.findall(r"^def\s+(\w+)\s*\(", code, re.MULTILINE)
    if request.metadata.get("entry_point") in defined:
        return str(request.metadata["entry_point"])
    declared: list[str] = [n for n in re.findall(r"def\s+(\w+)\s*\(", request.prompt) if n in defined]
    if declared:
        return declared[-1]
    return defined[-1] if defined else None


def _defines(code: str, name: str) -> bool:
    return re.search(rf"^def\s+{re.escape(name)}\s*\(", code, re.MULTILINE) is not None


def _completion(request: JudgeRequest, text: str, code: str | None) -> str | None:
    """A response that continues the prompt's code (HumanEval's completion form: the function's body only),
    as the whole program: the prompt's code followed by the response, when that defines the function the
    prompt declares and the response's own code does not."""
    declared = re.findall(r"^def\s+(\w+)\s*\(", request.prompt, re.MULTILINE)
    if not declared or (code is not None and _defines(code, declared[-1])):
        return None
    for piece in (code, text):  # the fenced body, else the whole response
        if not piece:
            continue
        whole = request.prompt.rstrip("\n") + "\n" + piece.strip("\n")
        try:
            ast.parse(whole)
        except SyntaxError:
            continue
        if _defines(whole, declared[-1]):
            return whole
    return None


@dataclass(frozen=True)
class CandidateCode:
    """A candidate's program as the judge runs it."""

    language: Language
    code: str | None
    """None when the response contains no code."""
    entry: str | None
    """Python: the function under test."""


def candidate_code(request: JudgeRequest, text: str) -> CandidateCode:
    """The code in a response, in the request's language: for Python, the block defining the function under
    test, or the prompt completed by a body-only response (HumanEval's completion form)."""
    language = language_of(request, text)
    code = language.extract(text, request.metadata.get("entry_point"))
    code = code if code and code.strip() else None  # an empty block holds no program
    entry = None
    if language.name == "python":
        entry = entry_point_of(request, code) if code else None
        if code is not None and entry is not None:
            code = language.extract(text, entry) or code
        completed = _completion(request, text, code)
        if completed is not None:
            code, entry = completed, entry_point_of(request, completed)
    return CandidateCode(language, code, entry)


_PROGRAM_LINE = re.compile(
    r"^\s*(?:async def |def |class |import |from \S+ import |#include|public |fn |func |package )"
    r"|\binput\(|\bprint\(|\bsys\.stdin",
    re.M,
)


_PROGRAM_START = re.compile(
    r"^\s*(?:async def |def |class \w+\s*[:(]|import \w|from \S+ import |#include\b|public |fn \w|func \w|package \w"
    r"|print\(|\w+\s*=\s*(?:int\()?input\()",
    re.M,
)
"""A line that starts a program, in the languages judgegraph runs."""


def shows_code(text: str) -> bool:
    """Whether a response sets code apart that the judge may not have read: a block (fenced with any tag, or HTML's
    `<pre>`) holding a line that starts a program. Where it shows such code and none was read, the reading fell
    short (the judge's doing); where it shows none, the response wrote no program: prose, an indented aside, a
    block of words or an empty fence are no code."""
    return any(_PROGRAM_START.search(block) for block in any_blocks(text))


_NOT_RUN = {
    **dict.fromkeys(("ruby", "rb"), "Ruby"),
    "php": "PHP",
    **dict.fromkeys(("kotlin", "kt", "kts"), "Kotlin"),
    **dict.fromkeys(("csharp", "cs", "c#"), "C#"),
    **dict.fromkeys(("fsharp", "f#", "fs"), "F#"),
    **dict.fromkeys(("haskell", "hs"), "Haskell"),
    "swift": "Swift",
    "scala": "Scala",
    **dict.fromkeys(("perl", "pl"), "Perl"),
    **dict.fromkeys(("bash", "sh", "shell", "zsh"), "shell"),
    **dict.fromkeys(("powershell", "ps1"), "PowerShell"),
    **dict.fromkeys(("typescript", "ts", "tsx"), "TypeScript"),
    "lua": "Lua",
    "r": "R",
    **dict.fromkeys(("julia", "jl"), "Julia"),
    "dart": "Dart",
    **dict.fromkeys(("elixir", "ex", "exs"), "Elixir"),
    **dict.fromkeys(("erlang", "erl"), "Erlang"),
    **dict.fromkeys(("clojure", "clj"), "Clojure"),
    **dict.fromkeys(("lisp", "commonlisp", "scheme", "racket", "rkt"), "Lisp"),
    **dict.fromkeys(("ocaml", "ml"), "OCaml"),
    **dict.fromkeys(("fortran", "f90"), "Fortran"),
    "pascal": "Pascal",
    **dict.fromkeys(("vb", "vbnet", "vba"), "Visual Basic"),
    **dict.fromkeys(("objectivec", "objective-c", "objc"), "Objective-C"),
    **dict.fromkeys(("matlab", "octave"), "MATLAB"),
    "groovy": "Groovy",
    "nim": "Nim",
    "zig": "Zig",
    "crystal": "Crystal",
    "d": "D",
    "cobol": "COBOL",
    "ada": "Ada",
    "prolog": "Prolog",
    "sql": "SQL",
    **dict.fromkeys(("pseudocode", "pseudo"), "pseudocode"),
}
"""Fence tags of programs in languages the judge does not run, by the language's name."""


def foreign_program(request: JudgeRequest, text: str) -> str | None:
    """The language a response writes its program in where the judge runs no such language and the prompt did
    not ask for it (its name or fence tag is nowhere in the prompt): a choice the response made, so its program
    fails what it would have been run on, as no program does (an abstention would let a wrong answer escape its
    0 by its language). None where the response fences a program the judge runs, or the prompt names the language
    (then the judge's limit, not the response's doing, leaves it undecided)."""
    tags = fence_tags_of(text)
    if request.language or fenced_language(text) is not None or "" in tags:
        return None  # an untagged block may hold the program the judge did not read: its doing
    for tag in tags:
        name = _NOT_RUN.get(tag.lower())
        if name is None:
            continue
        asked = {name, *(t for t, n in _NOT_RUN.items() if n == name)}
        if any(re.search(rf"(?<![\w#+-]){re.escape(a)}(?![\w#+-])", request.prompt, re.IGNORECASE) for a in asked):
            return None
        return name
    return None


def contains_code(request: JudgeRequest, text: str) -> bool:
    """Whether a response holds a program (a code fence, or code that defines, imports, reads or prints), not
    just an answer that happens to parse as code (`42`)."""
    try:
        found = candidate_code(request, text)
    except ToolFailure:
        return False
    return found.code is not None and ("```" in text or _PROGRAM_LINE.search(found.code) is not None)


def language_of(request: JudgeRequest, text: str) -> Language:
    """The request's language, else the one the response's code fence names, else Python."""
    if request.language:
        try:
            return language_named(request.language)
        except KeyError as e:
            raise ToolFailure(str(e.args[0])) from None
    return fenced_language(text) or languages.get("python")
