"""What every constraint kind shares: the `Check` it returns and its base model (`null` fields are absent)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from judgegraph.schema._shapes import without_nulls


class Check(BaseModel):
    """The outcome of one constraint on one response."""

    kind: str
    passed: bool
    why: str


class _Constraint(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    @model_validator(mode="before")
    @classmethod
    def _null_is_absent(cls, data: Any) -> Any:
        return without_nulls(data, cls)

    def check(self, text: str) -> Check:  # pragma: no cover - every kind overrides it
        raise NotImplementedError

    def _result(self, passed: bool, why: str) -> Check:
        return Check(kind=str(getattr(self, "kind", "")), passed=passed, why=why)


class _BenchmarkInstruction(_Constraint):
    """What IFEval's and IFBench's instructions share: an id, its kwargs, and strict or loose evaluation."""

    instruction_id: str
    """The benchmark's id, e.g. `length_constraints:number_words` (IFEval) or `count:keywords_multiple` (IFBench)."""
    kwargs: dict[str, Any] = Field(default_factory=dict)
    """The benchmark's arguments for it (`null`s, as datasets write them for other instructions' keys, are
    dropped)."""
    loose: bool = False
    """The official loose evaluation: followed if any reading without a first/last line or markdown follows."""

    @field_validator("kwargs", mode="before")
    @classmethod
    def _no_nulls(cls, value: Any) -> Any:
        return {k: v for k, v in value.items() if v is not None} if isinstance(value, dict) else value


def detect_language(text: str) -> str | None:
    """The language langdetect reads in `text` (ISO 639-1), seeded so it is the same every time; None when it
    finds no features to read."""
    from langdetect import DetectorFactory, LangDetectException, detect

    DetectorFactory.seed = 0  # langdetect is random unless seeded
    try:
        return str(detect(text))
    except LangDetectException:
        return None
