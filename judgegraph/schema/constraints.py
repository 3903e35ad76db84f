"""Programmatic instruction-following constraints: the typed schema of `JudgeRequest.constraints`.

Each kind is one model that knows how to check a response (`check(text) -> Check`), so a kind is defined in
exactly one place. `verify_constraints` (a tool) runs them; requests carry them as JSON with a `kind` tag.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Literal

from pydantic import Field

from judgegraph.schema._constraint_base import Check as Check
from judgegraph.schema._constraint_base import _Constraint, detect_language
from judgegraph.schema.ifbench import IFBenchInstruction
from judgegraph.schema.ifeval import IFEvalInstruction

Relation = Literal["at_least", "at_most", "exactly"]


def _compare(value: int, relation: Relation, n: int) -> bool:
    return {"at_least": value >= n, "at_most": value <= n, "exactly": value == n}[relation]


def _words(text: str) -> list[str]:
    return re.findall(r"\b[\w'-]+\b", text)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if re.search(r"\w", s)]


class _Counted(_Constraint):
    relation: Relation = "at_least"
    """How the count compares with `n`."""
    n: int = Field(ge=0)

    def _counted(self, what: str, value: int) -> Check:
        ok = _compare(value, self.relation, self.n)
        return self._result(ok, f"{value} {what}; needs {self.relation.replace('_', ' ')} {self.n}")


class WordCount(_Counted):
    """Number of words."""

    kind: Literal["word_count"] = "word_count"

    def check(self, text: str) -> Check:
        return self._counted("words", len(_words(text)))


class SentenceCount(_Counted):
    """Number of sentences."""

    kind: Literal["sentence_count"] = "sentence_count"

    def check(self, text: str) -> Check:
        return self._counted("sentences", len(_sentences(text)))


class ParagraphCount(_Counted):
    """Number of paragraphs, separated by blank lines or by `***` lines."""

    kind: Literal["paragraph_count"] = "paragraph_count"
    relation: Relation = "exactly"
    separator: Literal["blank_line", "***"] = "blank_line"

    def check(self, text: str) -> Check:
        pattern = r"\n\s*\n" if self.separator == "blank_line" else r"\n\s*\*\*\*\s*\n"
        paragraphs = [p for p in re.split(pattern, text.strip()) if p.strip()]
        return self._counted("paragraphs", len(paragraphs))


class IncludeKeywords(_Constraint):
    """Every keyword appears."""

    kind: Literal["include_keywords"] = "include_keywords"
    keywords: list[str] = Field(min_length=1)
    case_sensitive: bool = False

    def check(self, text: str) -> Check:
        flags = 0 if self.case_sensitive else re.IGNORECASE
        missing = [k for k in self.keywords if not re.search(rf"\b{re.escape(k)}\b", text, flags)]
        return self._result(not missing, f"missing {missing}" if missing else "all keywords present")


class ExcludeKeywords(_Constraint):
    """No keyword appears."""

    kind: Literal["exclude_keywords"] = "exclude_keywords"
    keywords: list[str] = Field(min_length=1)

    def check(self, text: str) -> Check:
        found = [k for k in self.keywords if re.search(rf"\b{re.escape(k)}\b", text, re.IGNORECASE)]
        return self._result(not found, f"contains forbidden {found}" if found else "no forbidden keyword")


class KeywordFrequency(_Counted):
    """How often one keyword appears (whole words, any case)."""

    kind: Literal["keyword_frequency"] = "keyword_frequency"
    keyword: str = Field(min_length=1)

    def check(self, text: str) -> Check:
        count = len(re.findall(rf"\b{re.escape(self.keyword)}\b", text, re.IGNORECASE))
        return self._counted(f"times {self.keyword!r}", count)


class LetterFrequency(_Counted):
    """How often one letter appears (any case)."""

    kind: Literal["letter_frequency"] = "letter_frequency"
    letter: str = Field(min_length=1, max_length=1)

    def check(self, text: str) -> Check:
        return self._counted(f"times {self.letter!r}", text.lower().count(self.letter.lower()))


class JsonFormat(_Constraint):
    """The whole response is valid JSON (a fenced ```json block is accepted)."""

    kind: Literal["json_format"] = "json_format"

    def check(self, text: str) -> Check:
        body = text.strip()
        fence = re.fullmatch(r"```(?:json)?\s*(.*?)```", body, re.DOTALL)
        if fence:
            body = fence.group(1)
        try:
            json.loads(body)
        except json.JSONDecodeError as e:
            return self._result(False, f"not valid JSON: {e.msg} at line {e.lineno}")
        return self._result(True, "valid JSON")


class NoCommas(_Constraint):
    """No comma anywhere."""

    kind: Literal["no_commas"] = "no_commas"

    def check(self, text: str) -> Check:
        n = text.count(",")
        return self._result(n == 0, f"{n} commas")


class AllLowercase(_Constraint):
    """No uppercase letter."""

    kind: Literal["all_lowercase"] = "all_lowercase"

    def check(self, text: str) -> Check:
        upper = [c for c in text if c.isupper()]
        return self._result(not upper and any(c.isalpha() for c in text), f"{len(upper)} uppercase letters")


class AllUppercase(_Constraint):
    """No lowercase letter."""

    kind: Literal["all_uppercase"] = "all_uppercase"

    def check(self, text: str) -> Check:
        lower = [c for c in text if c.islower()]
        return self._result(not lower and any(c.isalpha() for c in text), f"{len(lower)} lowercase letters")


class StartsWith(_Constraint):
    """The response starts with a phrase (ignoring leading space and case)."""

    kind: Literal["starts_with"] = "starts_with"
    phrase: str = Field(min_length=1)

    def check(self, text: str) -> Check:
        ok = text.strip().lower().startswith(self.phrase.strip().lower())
        return self._result(ok, f"starts with {text.strip()[: len(self.phrase) + 10]!r}")


class EndsWith(_Constraint):
    """The response ends with a phrase (ignoring trailing space and case)."""

    kind: Literal["ends_with"] = "ends_with"
    phrase: str = Field(min_length=1)

    def check(self, text: str) -> Check:
        ok = text.strip().lower().endswith(self.phrase.strip().lower())
        return self._result(ok, f"ends with {text.strip()[-len(self.phrase) - 10 :]!r}")


class BulletCount(_Counted):
    """Markdown bullet points (`* ` or `- ` at a line start)."""

    kind: Literal["bullet_count"] = "bullet_count"
    relation: Relation = "exactly"

    def check(self, text: str) -> Check:
        return self._counted("bullets", len(re.findall(r"^\s*[*-]\s+\S", text, re.MULTILINE)))


class SectionCount(_Counted):
    """Sections introduced by a marker at a line start (`Section 1`, `SECTION 2`, ...)."""

    kind: Literal["section_count"] = "section_count"
    marker: str = "Section"

    def check(self, text: str) -> Check:
        count = len(re.findall(rf"^\s*{re.escape(self.marker)}\s+\w+", text, re.MULTILINE | re.IGNORECASE))
        return self._counted(f"{self.marker!r} sections", count)


class Placeholders(_Counted):
    """Square-bracket placeholders such as `[address]`."""

    kind: Literal["placeholders"] = "placeholders"

    def check(self, text: str) -> Check:
        return self._counted("placeholders", len(re.findall(r"\[[^\[\]\n]+\]", text)))


class QuotationWrapped(_Constraint):
    """The whole response is wrapped in double quotation marks."""

    kind: Literal["quotation_wrapped"] = "quotation_wrapped"

    def check(self, text: str) -> Check:
        t = text.strip()
        ok = len(t) >= 2 and t[0] in '"“' and t[-1] in '"”'
        return self._result(ok, "wrapped in quotes" if ok else "not wrapped in double quotes")


class ResponseLanguage(_Constraint):
    """The response is written in a language (ISO 639-1 code, e.g. `en`, `fr`)."""

    kind: Literal["response_language"] = "response_language"
    language: str = Field(min_length=2, max_length=3)

    def check(self, text: str) -> Check:
        found = detect_language(text)
        if found is None:
            return self._result(False, "no language could be detected")
        return self._result(found == self.language.lower(), f"detected {found}")


class Title(_Constraint):
    """A title wrapped in double angular brackets, `<<like this>>`."""

    kind: Literal["title"] = "title"

    def check(self, text: str) -> Check:
        found = re.search(r"<<[^<>\n]+>>", text)
        return self._result(bool(found), f"title {found.group(0)}" if found else "no <<title>>")


class HighlightedSections(_Counted):
    """Markdown-highlighted spans, `*like this*`."""

    kind: Literal["highlighted_sections"] = "highlighted_sections"

    def check(self, text: str) -> Check:
        return self._counted("highlighted spans", len(re.findall(r"(?<!\*)\*[^*\n]+\*(?!\*)", text)))


class CapitalWordFrequency(_Counted):
    """Words written entirely in capital letters."""

    kind: Literal["capital_word_frequency"] = "capital_word_frequency"

    def check(self, text: str) -> Check:
        return self._counted("all-capital words", len(re.findall(r"\b[A-Z]{2,}\b", text)))


class Postscript(_Constraint):
    """A postscript starting with a marker (`P.S.` by default)."""

    kind: Literal["postscript"] = "postscript"
    marker: str = "P.S."

    def check(self, text: str) -> Check:
        found = re.search(rf"^\s*{re.escape(self.marker)}", text, re.MULTILINE | re.IGNORECASE)
        return self._result(bool(found), "has a postscript" if found else f"no line starting {self.marker!r}")


Constraint = Annotated[
    WordCount
    | SentenceCount
    | ParagraphCount
    | IncludeKeywords
    | ExcludeKeywords
    | KeywordFrequency
    | LetterFrequency
    | JsonFormat
    | NoCommas
    | AllLowercase
    | AllUppercase
    | StartsWith
    | EndsWith
    | BulletCount
    | SectionCount
    | Placeholders
    | QuotationWrapped
    | ResponseLanguage
    | Title
    | HighlightedSections
    | CapitalWordFrequency
    | Postscript
    | IFEvalInstruction
    | IFBenchInstruction,
    Field(discriminator="kind"),
]
"""Any constraint, told apart by its `kind`."""

CONSTRAINT_KINDS: tuple[str, ...] = tuple(
    m.model_fields["kind"].default
    for m in (
        WordCount,
        SentenceCount,
        ParagraphCount,
        IncludeKeywords,
        ExcludeKeywords,
        KeywordFrequency,
        LetterFrequency,
        JsonFormat,
        NoCommas,
        AllLowercase,
        AllUppercase,
        StartsWith,
        EndsWith,
        BulletCount,
        SectionCount,
        Placeholders,
        QuotationWrapped,
        ResponseLanguage,
        Title,
        HighlightedSections,
        CapitalWordFrequency,
        Postscript,
        IFEvalInstruction,
        IFBenchInstruction,
    )
)
