"""Pure decisions over evidence: what the checks alone establish, and how a ruling becomes a verdict."""

from __future__ import annotations

from statistics import fmean

from judgegraph.graphs._verdict_format import ModelRuling
from judgegraph.tools import tools
from judgegraph.types import CriterionResult, JudgeRequest, ToolResult, Verdict


def evidence_criteria(evidence: list[ToolResult]) -> list[CriterionResult]:
    """Deciding evidence: each result whose tool reads it as a pass/fail about one candidate."""
    out = []
    for r in evidence:
        criterion = tools.get(r.name).criterion if r.name in tools else None
        found = criterion(r) if criterion is not None else None
        if found is not None:
            out.append(found)
    return sorted(out, key=lambda c: (c.candidate, c.name))


def ranking_of(scores: list[float]) -> list[int]:
    """Candidate indices, best first (stable on ties)."""
    return sorted(range(len(scores)), key=lambda i: -scores[i])


def decide_from_evidence(request: JudgeRequest, evidence: list[ToolResult]) -> Verdict | None:
    """The verdict deterministic evidence supports on its own, or None when it does not decide.

    A candidate passes when every deciding check on it passed; its score is the mean of those checks'
    scores. The evidence decides when every candidate was checked and, in pairwise, listwise and best-of-n
    mode, exactly one candidate passes; in pointwise and steps mode every checked candidate is scored.
    """
    criteria = evidence_criteria(evidence)
    n = len(request.candidates)
    per: dict[int, list[CriterionResult]] = {}
    for c in criteria:
        per.setdefault(c.candidate, []).append(c)
    if set(per) != set(range(n)):
        return None
    scores = [fmean(c.score or 0.0 for c in per[i]) for i in range(n)]
    passed = [i for i in range(n) if all(c.passed for c in per[i])]
    checks = ", ".join(sorted({c.name for c in criteria}))
    if request.mode in ("pointwise", "steps"):
        return Verdict(
            valid=True, scores=scores, ranking=ranking_of(scores), criteria=criteria, confidence=1.0,
            decided_by="evidence", rationale="; ".join(c.detail.splitlines()[0] for c in criteria),
        )  # fmt: skip
    if len(passed) != 1:
        return None
    winner = passed[0]
    return Verdict(
        valid=True, winner=winner, scores=scores, ranking=ranking_of(scores), criteria=criteria, confidence=1.0,
        decided_by="evidence", rationale=f"only candidate {winner} passes every check ({checks})",
    )  # fmt: skip


def verdict_from_ruling(request: JudgeRequest, ruling: ModelRuling, evidence: list[ToolResult]) -> Verdict:
    """The model's ruling as a verdict, with the evidence it saw attached as criteria."""
    criteria = evidence_criteria(evidence)
    if ruling.scores is not None:
        scores = ruling.scores
        ranking = ranking_of(scores)
        top = [i for i, s in enumerate(scores) if s == max(scores)]
        winner = top[0] if len(top) == 1 and request.mode in ("listwise", "best_of_n") else None
    else:
        winner = ruling.winner
        scores = [0.5, 0.5] if winner is None else [1.0 if i == winner else 0.0 for i in range(2)]
        ranking = ranking_of(scores)
    criteria.extend(
        CriterionResult(name="model_judgement", candidate=i, score=s, source="model", detail=ruling.rationale)
        for i, s in enumerate(scores)
    )
    return Verdict(
        valid=True, winner=winner, scores=scores, ranking=ranking, criteria=criteria,
        confidence=ruling.confidence, rationale=ruling.rationale, decided_by="model",
    )  # fmt: skip
