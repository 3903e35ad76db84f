"""Pure decisions over evidence: what the checks alone establish, and how a ruling becomes a verdict."""

from __future__ import annotations

from statistics import fmean

from judgegraph.graphs._strategies import Policies, aggregations
from judgegraph.graphs._verdict_format import ModelRuling
from judgegraph.schema import CriterionResult, JudgeRequest, ToolResult, Verdict, sole_best
from judgegraph.tools import tools
from judgegraph.tools.responses.silence import commits_to_nothing


def evidence_criteria(evidence: list[ToolResult]) -> list[CriterionResult]:
    """Deciding evidence: each result whose tool reads it as a pass/fail about one candidate (or several)."""
    out = []
    for r in evidence:
        criterion = tools.get(r.name).criterion if r.name in tools else None
        found = criterion(r) if criterion is not None else None
        if isinstance(found, list):  # one result about several candidates (differential testing's clusters)
            out.extend(found)
        elif found is not None:
            out.append(found)
    return sorted(out, key=lambda c: (c.candidate, c.name))


SILENT = "commits_to_something"


def silence_criteria(request: JudgeRequest) -> list[CriterionResult]:
    """A failed gate for each response that commits to nothing (empty, punctuation, stock openers such as
    "Solution:" or "Let's think step by step.", the prompt echoed back): such a response gets 0 by evidence, in
    every judge, whatever a model would say of it (the "master keys" that fool model judges)."""
    return [
        CriterionResult(
            name=SILENT,
            candidate=i,
            passed=False,
            score=0.0,
            source="gate",
            detail="the response commits to nothing: it is empty, punctuation, stock phrases or the prompt echoed",
        )
        for i, candidate in enumerate(request.candidates)
        if commits_to_nothing(candidate.content, request.prompt)
    ]


def overruled(request: JudgeRequest, verdict: Verdict) -> Verdict:
    """The model's verdict, with the evidence's last word: every response that commits to nothing scores 0 (in
    pairwise, it loses to one that commits to something), and in pointwise mode every response a conclusive check
    failed (a failed test or example, a wrong answer, a program that disagrees with the ones that agree) scores
    what its conclusive checks give it (the share of tests passed, say), whatever score the model gave it."""
    if not verdict.valid or not verdict.scores:
        return verdict
    known = {(c.name, c.candidate) for c in verdict.criteria}
    criteria = verdict.criteria + [c for c in silence_criteria(request) if (c.name, c.candidate) not in known]
    checked: dict[int, float] = {c.candidate: 0.0 for c in criteria if c.name == SILENT}
    if request.mode == "pointwise":
        failed = {c.candidate for c in criteria if c.fails_by_evidence}
        for i in failed - set(checked):
            # what its conclusive checks give it: a sample it passed supports, never adds credit
            checked[i] = fmean(
                c.score or 0.0 for c in criteria if c.candidate == i and c.source != "model" and c.conclusive
            )
    if not checked:
        return verdict
    scores = [checked.get(i, s) for i, s in enumerate(verdict.scores)]
    winner = verdict.winner
    if request.mode != "pointwise" and winner in checked:
        alive = [i for i in range(len(scores)) if i not in checked]
        winner = sole_best([scores[i] if i in alive else -1.0 for i in range(len(scores))]) if alive else None
    return verdict.model_copy(update={"scores": scores, "winner": winner, "criteria": criteria})


def decide_from_evidence(
    request: JudgeRequest, evidence: list[ToolResult], strategy: str = "all_pass", policies: Policies | None = None
) -> Verdict | None:
    """The verdict the deterministic evidence supports on its own under `strategy`, or None when it does not decide.

    The default, `all_pass`: a candidate passes when every deciding check on it passed; the evidence decides
    when every candidate was checked and, in pairwise, listwise and best-of-n mode, exactly one passes; in
    pointwise and steps mode every checked candidate is scored.
    """
    gates = silence_criteria(request)
    criteria = evidence_criteria(evidence) + gates
    verdict = aggregations.get(strategy)(request, criteria, policies or {})
    alive = [i for i in range(len(request.candidates)) if i not in {c.candidate for c in gates}]
    if verdict is None and gates and len(alive) == 1 and request.mode in ("pairwise", "listwise", "best_of_n"):
        scores = [1.0 if i in alive else 0.0 for i in range(len(request.candidates))]
        why = f"only candidate {alive[0]} commits to anything"
        return Verdict.scored(
            scores, winner=alive[0], criteria=criteria, confidence=1.0, decided_by="evidence", rationale=why
        )
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
        verdict = verdict_from_ruling(request, ruling, evidence).model_copy(update={"consistent": consistent})
        return overruled(request, verdict)
    why = "; ".join(f"{order}: {problem}" for order, problem in problems.items())
    return Verdict.invalid(f"{no_ruling}: {why}")
