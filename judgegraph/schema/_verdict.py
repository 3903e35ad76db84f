"""What a judge rules."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


def ranking_of(scores: list[float]) -> list[int]:
    """Candidate indices, best first (stable on ties)."""
    return sorted(range(len(scores)), key=lambda i: -scores[i])


def sole_best(scores: list[float]) -> int | None:
    """The one candidate with the top score, or None when the top is shared."""
    top = [i for i, s in enumerate(scores) if s == max(scores)] if scores else []
    return top[0] if len(top) == 1 else None


class CriterionResult(BaseModel):
    """The outcome of one criterion (a check, a rubric item or a piece of evidence) for one candidate."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    name: str
    """Which criterion."""
    candidate: int
    """Which candidate it was applied to."""
    passed: bool | None = None
    """Pass/fail where the criterion is binary."""
    score: float | None = Field(default=None, ge=0, le=1)
    """Graded score in [0, 1] where it is graded."""
    source: str = ""
    """What produced it: a tool name, or `model`."""
    evidence: list[str] = Field(default_factory=list)
    """Ids of the tool calls or model turns behind it."""
    detail: str = ""
    """A short human-readable explanation."""
    conclusive: bool = True
    """False for a pass that supports the candidate without proving it (the statement's own examples): a
    failure still decides against it, a pass alone never scores it."""

    @property
    def fails_by_evidence(self) -> bool:
        """A conclusive failure that evidence, not the model, found: it decides against its candidate."""
        return self.source != "model" and self.conclusive and self.passed is False


class Verdict(BaseModel):
    """A judge's ruling on one request."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    valid: bool
    """False when no ruling could be made (the model never produced a parseable verdict, the endpoint failed);
    scores are then empty rather than a made-up default."""
    winner: int | None = None
    """Index of the best candidate; None for a tie, for pointwise mode, or when `valid` is false."""
    scores: list[float] = Field(default_factory=list)
    """One score per candidate in [0, 1] (empty when `valid` is false)."""
    ranking: list[int] = Field(default_factory=list)
    """Candidate indices, best first."""
    criteria: list[CriterionResult] = Field(default_factory=list)
    """Per-criterion results with the evidence behind each."""
    confidence: float | None = Field(default=None, ge=0, le=1)
    """How sure the judge is, in [0, 1], when it says."""
    rationale: str = ""
    """Why."""
    consistent: bool | None = None
    """Pairwise: whether judging both candidate orders gave the same winner (None when not checked).
    Orders that disagree yield a tie, never a silent pick."""
    decided_by: str = ""
    """What settled the ruling: `evidence` (a deterministic check), `model`, or `none`."""
    error: str | None = None
    """Why the verdict is invalid, when it is."""

    @model_validator(mode="after")
    def _consistent(self) -> Verdict:
        if any(not 0.0 <= s <= 1.0 for s in self.scores):
            raise ValueError("scores must lie in [0, 1]")
        if not self.valid and self.error is None:
            raise ValueError("an invalid verdict must say why (error)")
        if self.winner is not None and self.scores and not 0 <= self.winner < len(self.scores):
            raise ValueError("winner is out of range")
        return self

    @classmethod
    def scored(
        cls,
        scores: list[float],
        *,
        decided_by: str,
        winner: int | None = None,
        criteria: list[CriterionResult] | None = None,
        confidence: float | None = None,
        rationale: str = "",
        consistent: bool | None = None,
    ) -> Verdict:
        """A valid verdict from per-candidate scores, ranked by them (best first)."""
        return cls(
            valid=True,
            winner=winner,
            scores=scores,
            ranking=ranking_of(scores),
            criteria=criteria or [],
            confidence=confidence,
            rationale=rationale,
            consistent=consistent,
            decided_by=decided_by,
        )

    def of_response(self, index: int) -> Verdict:
        """A pointwise group verdict as the verdict of response `index` alone: its score and the criteria about it
        (as candidate 0), what judging that response by itself rules."""
        if not self.valid or len(self.scores) <= index:
            return Verdict.invalid(self.error or f"the group's verdict has no score for response {index}")
        criteria = [c.model_copy(update={"candidate": 0}) for c in self.criteria if c.candidate == index]
        return Verdict.scored(
            [self.scores[index]],
            decided_by=self.decided_by,
            criteria=criteria,
            confidence=self.confidence,
            rationale=self.rationale,
        )

    @classmethod
    def invalid(cls, reason: str) -> Verdict:
        """A verdict that records why no ruling was made."""
        return cls(valid=False, error=reason, decided_by="none")
