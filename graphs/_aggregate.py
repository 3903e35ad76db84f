"""Pure decisions over evidence: what the checks alone establish, and how a ruling becomes a verdict."""

from __future__ import annotations

from judgegraph.graphs._verdict_format import ModelRuling

from judgegraph.types import CriterionResult, JudgeRequest, ToolResult, Verdict


def evidence_criteria(evidence: list[ToolResult]) -> list[CriterionResult]:
    """One criterion per successful reference check (the only deciding evidence so far)."""
    out = []
    for r in evidence:
        if r.ok and r.name == "match_reference" and r.data is not None:
            out.append(
                CriterionResult(
                    name="matches_reference",
                    candidate=int(r.data["candidate"]),
                    passed=bool(r.data["equivalent"]),
                    score=1.0 if r.data["equivalent"] else 0.0,
                    source=r.name,
                    evidence=[r.call_id],
                    detail=r.text,
                )
            )
    return sorted(out, key=lambda c: c.candidate)


def ranking_of(scores: list[float]) -> list[int]:
    """Candidate indices, best first (stable on ties)."""
    return sorted(range(len(scores)), key=lambda i: -scores[i])


def decide_from_evidence(request: JudgeRequest, evidence: list[ToolResult]) -> Verdict | None:
    """The verdict deterministic evidence supports on its own, or None when it does not decide.

    It decides when every candidate was checked and the checks separate them: in pairwise, listwise and
    best-of-n mode exactly one candidate passes; in pointwise and steps mode every candidate has a result.
    """
    criteria = evidence_criteria(evidence)
    n = len(request.candidates)
    by_candidate = {c.candidate: c for c in criteria}
    if set(by_candidate) != set(range(n)):
        return None
    scores = [by_candidate[i].score or 0.0 for i in range(n)]
    passed = [i for i in range(n) if by_candidate[i].passed]
    if request.mode in ("pointwise", "steps"):
        return Verdict(
            valid=True, scores=scores, ranking=ranking_of(scores), criteria=criteria, confidence=1.0,
            decided_by="evidence", rationale="; ".join(c.detail for c in criteria),
        )  # fmt: skip
    if len(passed) != 1:
        return None
    winner = passed[0]
    return Verdict(
        valid=True, winner=winner, scores=scores, ranking=ranking_of(scores), criteria=criteria, confidence=1.0,
        decided_by="evidence",
        rationale=f"only candidate {winner} matches the reference answer",
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
