"""Pure decisions over evidence: what the checks alone establish, and how a ruling becomes a verdict."""

from __future__ import annotations

from judgegraph.graphs._strategies import Policies, aggregations
from judgegraph.graphs._verdict_format import ModelRuling
from judgegraph.schema import CriterionResult, JudgeRequest, ToolResult, Verdict, sole_best
from judgegraph.tools import tools


def evidence_criteria(evidence: list[ToolResult]) -> list[CriterionResult]:
    """Deciding evidence: each result whose tool reads it as a pass/fail about one candidate."""
    out = []
    for r in evidence:
        criterion = tools.get(r.name).criterion if r.name in tools else None
        found = criterion(r) if criterion is not None else None
        if found is not None:
            out.append(found)
    return sorted(out, key=lambda c: (c.candidate, c.name))


def decide_from_evidence(
    request: JudgeRequest, evidence: list[ToolResult], strategy: str = "all_pass", policies: Policies | None = None
) -> Verdict | None:
    """The verdict the deterministic evidence supports on its own under `strategy`, or None when it does not decide.

    The default, `all_pass`: a candidate passes when every deciding check on it passed; the evidence decides
    when every candidate was checked and, in pairwise, listwise and best-of-n mode, exactly one passes; in
    pointwise and steps mode every checked candidate is scored.
    """
    criteria = evidence_criteria(evidence)
    verdict = aggregations.get(strategy)(request, criteria, policies or {})
    if (
        verdict is not None
        and request.mode in ("pointwise", "steps")
        and any(_only_supported(criteria, i) for i in range(len(request.candidates)))
    ):
        return None  # a candidate scored only by evidence that supports without proving: the model rules
    return verdict


def _only_supported(criteria: list[CriterionResult], candidate: int) -> bool:
    """Whether every check on `candidate` passed and one of them was not conclusive (a statement example):
    nothing established its score."""
    mine = [c for c in criteria if c.candidate == candidate]
    return bool(mine) and all(c.passed for c in mine) and any(not c.conclusive for c in mine)


def verdict_from_ruling(request: JudgeRequest, ruling: ModelRuling, evidence: list[ToolResult]) -> Verdict:
    """The model's ruling as a verdict, with the evidence it saw attached as criteria."""
    criteria = evidence_criteria(evidence)
    if ruling.scores is not None:
        scores = ruling.scores
        winner = sole_best(scores) if request.mode in ("listwise", "best_of_n") else None
    else:
        winner = ruling.winner
        scores = [0.5, 0.5] if winner is None else [1.0 if i == winner else 0.0 for i in range(2)]
    criteria.extend(
        CriterionResult(name="model_judgement", candidate=i, score=s, source="model", detail=ruling.rationale)
        for i, s in enumerate(scores)
    )
    return Verdict.scored(
        scores,
        winner=winner,
        criteria=criteria,
        confidence=ruling.confidence,
        rationale=ruling.rationale,
        decided_by="model",
    )


def final_verdict(
    request: JudgeRequest,
    decided: Verdict | None,
    ruling: ModelRuling | None,
    consistent: bool | None,
    evidence: list[ToolResult],
    no_ruling: str,
    problems: dict[str, str],
) -> Verdict:
    """Deciding evidence wins (with the model's view, if it gave one, kept beside it); else the model's ruling;
    else an invalid verdict: `no_ruling`, then each candidate order's problem."""
    if decided is not None:
        if ruling is not None:
            decided = decided.model_copy(
                update={"criteria": decided.criteria + verdict_from_ruling(request, ruling, []).criteria}
            )
        # Evidence about each candidate does not depend on the order they are shown in.
        return decided.model_copy(update={"consistent": True if request.mode == "pairwise" else None})
    if ruling is not None:
        return verdict_from_ruling(request, ruling, evidence).model_copy(update={"consistent": consistent})
    why = "; ".join(f"{order}: {problem}" for order, problem in problems.items())
    return Verdict.invalid(f"{no_ruling}: {why}")
