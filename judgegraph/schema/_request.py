"""What a judge is asked: the task, the candidates, and whatever evidence exists."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from judgegraph.schema._shapes import dataset_row, without_nulls
from judgegraph.schema.constraints import Constraint

SCHEMA_VERSION = 1
"""Version of the request/verdict/trajectory JSON schema; bumped on any incompatible change."""

Mode = Literal["pointwise", "pairwise", "listwise", "best_of_n", "steps"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    @model_validator(mode="before")
    @classmethod
    def _null_is_absent(cls, data: Any) -> Any:
        return without_nulls(data, cls)


_SURROGATE = re.compile("[\ud800-\udfff]")


class Candidate(_Model):
    """One response under judgement."""

    content: str
    """The response text."""
    images: list[str] = Field(default_factory=list)
    """Images that belong to the response: file paths or `data:` URIs."""

    @field_validator("content")
    @classmethod
    def _as_utf8_carries_it(cls, value: str) -> str:
        """A lone surrogate (invalid Unicode: a tokenizer's decode or a JSON escape can give one) becomes U+FFFD,
        as UTF-8 carries it: the response is then stored, shown and replayed like any other, where its raw text
        would fail the whole group's trajectory when written."""
        return value if value.isascii() else _SURROGATE.sub("\ufffd", value)


class Document(_Model):
    """A document the answer should be grounded in."""

    id: str
    """Stable identifier, used in citations and retrieval results."""
    text: str | None = None
    """The whole text (for single-page documents)."""
    pages: list[str] | None = None
    """The text page by page (for multi-page documents)."""
    path: str | None = None
    """A file to read instead: a PDF (split into its pages) or a text file."""

    @model_validator(mode="after")
    def _has_content(self) -> Document:
        if self.text is None and not self.pages and not self.path:
            raise ValueError(f"document {self.id!r} has neither text, pages nor a path")
        return self

    @property
    def page_count(self) -> int | None:
        """How many pages it has, where that is known without reading a file (None for a file)."""
        if self.pages is not None:
            return len(self.pages)
        return 1 if self.text is not None else None


class RubricCriterion(_Model):
    """One criterion of a rubric."""

    name: str
    """Short name of the criterion."""
    description: str = ""
    """What satisfying it means."""
    weight: float = Field(default=1.0, ge=0)
    """Relative weight in the aggregate score."""


class IOTest(_Model):
    """A stdin/stdout test case, as competitive-programming sets give them: the program reads `input` and must
    print `output` (compared line by line, trailing spaces and trailing blank lines ignored)."""

    input: str = ""
    """What the program reads on stdin."""
    output: str
    """What it must print."""
    tolerance: float | None = Field(default=None, ge=0)
    """Compare token by token instead, numbers equal within this absolute or relative error (e.g. 1e-6)."""


class Label(_Model):
    """The known answer for this request (for evals and for the judge's own reward); the judge never sees it."""

    winner: int | None = None
    """Index of the better candidate (pairwise/listwise/best_of_n); None with `tie=True` for a tie."""
    scores: list[float] | None = None
    """Known per-candidate scores in [0, 1] (pointwise)."""
    tie: bool = False
    """True when the candidates are known to be equally good."""


class JudgeRequest(_Model):
    """One judgement to make: a task, its candidates and the evidence available for it."""

    schema_version: int = SCHEMA_VERSION
    """Version of this schema."""
    id: str = Field(min_length=1)
    """Caller's identifier, echoed in the output."""
    prompt: str
    """The task the candidates respond to."""
    candidates: list[Candidate] = Field(min_length=1)
    """The responses under judgement; plain strings are accepted."""
    mode: Mode = "pairwise"
    """How to judge: score each (`pointwise`), pick the better of two (`pairwise`), rank (`listwise`),
    pick the best (`best_of_n`), or judge the steps of one solution (`steps`)."""
    tests: list[str | IOTest] = Field(default_factory=list)
    """Tests the candidates' code must pass: test code in the candidates' language (asserts, a `check`
    function, a test program that exits 0), or stdin/stdout cases."""
    language: str | None = None
    """The candidates' programming language (`python`, `c`, `cpp`, `java`, `javascript`, `go`, `rust`, or a
    usual alias such as `c++`, `js`, `rs`); None: each candidate's code fence says, else Python."""
    reference: str | None = None
    """A reference answer."""
    documents: list[Document] = Field(default_factory=list)
    """Documents the answer should be grounded in."""
    images: list[str] = Field(default_factory=list)
    """Images that belong to the task: file paths or `data:` URIs."""
    constraints: list[Constraint] = Field(default_factory=list)
    """Programmatic constraints the response must satisfy."""
    rubric: list[RubricCriterion] = Field(default_factory=list)
    """Criteria to grade against; a plain string becomes one criterion."""
    label: Label | None = None
    """The known answer (never shown to the judge)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Free user data, carried through untouched."""

    @model_validator(mode="before")
    @classmethod
    def _null_is_absent(cls, data: Any) -> Any:
        """Also reads the shapes datasets come in (`_shapes.py`)."""
        if not isinstance(data, dict):
            return data
        return dataset_row(without_nulls(data, cls), set(cls.model_fields))

    @field_validator("candidates", mode="before")
    @classmethod
    def _candidates_from_strings(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"content": c} if isinstance(c, str) else c for c in value]
        return value

    @field_validator("tests", mode="before")
    @classmethod
    def _tests_from_string(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("rubric", mode="before")
    @classmethod
    def _rubric_from_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [{"name": "rubric", "description": value}]
        return value

    @field_validator("label", mode="before")
    @classmethod
    def _label_from_int(cls, value: Any) -> Any:
        return {"winner": value} if isinstance(value, int) and not isinstance(value, bool) else value

    @model_validator(mode="after")
    def _consistent(self) -> JudgeRequest:
        n = len(self.candidates)
        if self.mode == "pairwise" and n != 2:
            raise ValueError(f"pairwise mode needs exactly 2 candidates, got {n}")
        if self.mode in ("listwise", "best_of_n") and n < 2:
            raise ValueError(f"{self.mode} mode needs at least 2 candidates, got {n}")
        if self.mode == "steps" and n != 1:
            raise ValueError(f"steps mode judges exactly 1 candidate, got {n}")
        if self.label is not None:
            if self.label.winner is not None and not 0 <= self.label.winner < n:
                raise ValueError(f"label.winner {self.label.winner} is out of range for {n} candidates")
            if self.label.scores is not None and len(self.label.scores) != n:
                raise ValueError(f"label.scores has {len(self.label.scores)} entries for {n} candidates")
        return self

    def has_evidence(self, kind: str) -> bool:
        """Whether evidence of this kind (a field name such as `reference` or `tests`) is present."""
        value = getattr(self, kind)
        return bool(value) if not isinstance(value, str) else bool(value.strip())
