"""Function signatures in six languages: the regex grammars each language module declares
(`ProgramLanguage.signature`, read by `ProgramLanguage.methods`) against tree-sitter's
grammars (issue #50's question: adopt a maintained parser where one parses what is parsed by hand). Over every
C, C++, Java, JavaScript, Go and Rust block in the repository's tests and attack card (the foreign-call tests'
answers, LeetCode-style solutions), it compares the functions each finds (name and parameter count) and times
both. tree-sitter is not a dependency of judgegraph: run it where the grammars are installed,

    pip install tree-sitter tree-sitter-c tree-sitter-cpp tree-sitter-java tree-sitter-javascript \\
        tree-sitter-go tree-sitter-rust
    python -m benchmarks.signatures
"""

from __future__ import annotations

import ast
import importlib
import re
import time
from pathlib import Path
from typing import Any

from judgegraph.tools.code import languages as _registered  # noqa: F401 - registers every language
from judgegraph.tools.code.language import languages
from judgegraph.tools.code.languages import ProgramLanguage

ROOT = Path(__file__).resolve().parents[1]
FENCES = {"c": "c", "cpp": "cpp", "c++": "cpp", "java": "java", "js": "javascript", "javascript": "javascript"}
FENCES |= {"go": "go", "rust": "rust", "rs": "rust"}
_BLOCK = re.compile(r"```(\w[\w+]*)\n(.*?)```", re.DOTALL)
_NOT_METHODS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "function", "main"}


def guess(code: str) -> str | None:
    """A code string's language, from what only that language writes (None: not one of the six, or prose)."""
    if "{" not in code or "\n" not in code:
        return None
    if re.search(r"^\s*func\s", code, re.M) or "package main" in code:
        return "go"
    if re.search(r"^\s*(?:pub\s+)?fn\s", code, re.M) or "impl Solution" in code:
        return "rust"
    if re.search(r"\bpublic\s+(?:static\s+)?[\w<>\[\]]+\s+\w+\s*\(", code) or "System.out" in code:
        return "java"
    if re.search(r"\bfunction\b|=>|\bconst\s+\w+\s*=|require\(|console\.", code):
        return "javascript"
    if re.search(r"public:|vector<|std::|#include\s*<(?:iostream|vector|string|cassert|cstdlib)>|\bclass\s", code):
        return "cpp"
    if re.search(r"#include|^\s*(?:int|void|long|char|double|bool)\s+\*?\w+\s*\(", code, re.M):
        return "c"
    return None


def corpus() -> list[tuple[str, str]]:
    """(language, code) for every code string of the six languages in the tests and the attack card: fenced
    blocks by their tag, bare code by what only its language writes."""
    found: set[tuple[str, str]] = set()
    for path in [*(ROOT / "tests").glob("*.py"), ROOT / "evals" / "_attacks.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            blocks = [(FENCES[t.lower()], c) for t, c in _BLOCK.findall(node.value) if t.lower() in FENCES]
            if not blocks and "```" not in node.value and (language := guess(node.value)) is not None:
                blocks = [(language, node.value)]
            found.update(blocks)
    return sorted(found)


def _parser(language: str) -> Any:
    from tree_sitter import Language, Parser  # type: ignore[import-not-found]

    module = importlib.import_module(f"tree_sitter_{language}")
    return Parser(Language(module.language()))


def _named(node: Any) -> str | None:
    """The identifier a declarator names (through pointers, references and qualified names)."""
    while node is not None and node.type not in ("identifier", "field_identifier", "property_identifier"):
        inner = node.child_by_field_name("declarator") or node.child_by_field_name("name")
        if inner is None:
            return None
        node = inner
    return node.text.decode() if node is not None else None


def tree_sitter_methods(parser: Any, code: str, language: str) -> dict[str, int]:
    """The functions and methods a tree-sitter parse finds, each with its parameter count (Rust's `self`
    methods left out, as the regex reading does)."""
    found: dict[str, int] = {}
    stack = [parser.parse(code.encode()).root_node]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.children))
        name, params = None, None
        if node.type == "function_definition":  # C, C++
            declarator = node.child_by_field_name("declarator")
            while declarator is not None and declarator.type != "function_declarator":
                declarator = declarator.child_by_field_name("declarator")
            if declarator is not None:
                name = _named(declarator.child_by_field_name("declarator"))
                params = declarator.child_by_field_name("parameters")
        elif node.type in ("method_declaration", "function_declaration", "method_definition", "function_item"):
            name_node = node.child_by_field_name("name")
            name = name_node.text.decode() if name_node is not None else None
            params = node.child_by_field_name("parameters")
        elif node.type == "variable_declarator":  # JavaScript: const f = (a, b) => ... / function (a, b) {...}
            value = node.child_by_field_name("value")
            if value is not None and value.type in ("arrow_function", "function_expression", "function"):
                name_node = node.child_by_field_name("name")
                name = name_node.text.decode() if name_node is not None else None
                params = value.child_by_field_name("parameters")
        if name is None or params is None:
            continue
        kinds = [c for c in params.named_children if c.type != "comment"]
        if language == "rust" and any(c.type == "self_parameter" for c in kinds):
            continue
        if language == "go":  # `a, b int` is one declaration of two parameters
            count = sum(sum(1 for n in c.named_children if n.type == "identifier") or 1 for c in kinds)
        else:
            count = len(kinds) if not (len(kinds) == 1 and kinds[0].text.decode().strip() == "void") else 0
        if name not in _NOT_METHODS and name[:1].islower():
            found.setdefault(name, count)
    return found


def main() -> None:
    blocks = corpus()
    parsers = {lang: _parser(lang) for lang in sorted({lang for lang, _ in blocks})}
    rows, agree, names_agree = [], 0, 0
    regex_s = sitter_s = 0.0
    for language, code in blocks:
        start = time.perf_counter()
        calling = languages.get(language)
        assert isinstance(calling, ProgramLanguage)
        by_regex = calling.methods(code)
        regex_s += time.perf_counter() - start
        start = time.perf_counter()
        by_sitter = tree_sitter_methods(parsers[language], code, language)
        sitter_s += time.perf_counter() - start
        agree += by_regex == by_sitter
        names_agree += set(by_regex) == set(by_sitter)
        if by_regex != by_sitter:
            rows.append((language, by_regex, by_sitter, code.strip().splitlines()[0][:60]))
    n = len(blocks)
    print(f"{n} blocks ({', '.join(f'{lang} {sum(1 for x, _ in blocks if x == lang)}' for lang in parsers)})")
    print(f"same functions and parameter counts: {agree}/{n}; same function names: {names_agree}/{n}")
    print(f"time a block: regex {1e6 * regex_s / n:.0f} us, tree-sitter {1e6 * sitter_s / n:.0f} us")
    for language, by_regex, by_sitter, first in rows:
        print(f"- {language}: regex {by_regex} / tree-sitter {by_sitter}   ({first})")


if __name__ == "__main__":
    main()
