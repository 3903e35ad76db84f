"""Aggregation strategies: how per-criterion evidence becomes a verdict, without the model. A registry, so a
skill or judge names its strategy and new ones plug in without touching the graph."""

from __future__ import annotations

from collections.abc import Callable
from statistics import fmean

from pydantic import BaseModel, ConfigDict

from judgegraph.registry import Registry
from judgegraph.schema import CriterionResult, JudgeRequest, Verdict, ranking_of


class CriterionPolicy(BaseModel):
    """How much one kind of evidence (by the tool that produced it) counts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    weight: float = 1.0
    essential: bool = False
    """Essential-first: a candidate failing it is out before anything else is weighed."""
    gate: bool = False
    """Hard gates: failing it scores the candidate 0, whatever else it does."""
    reliability: float = 1.0
    """Reliability gating: evidence below 0.5 is set aside; the rest is weighted by it."""


Policies = dict[str, CriterionPolicy]
Strategy = Callable[[JudgeRequest, list[CriterionResult], Policies], Verdict | None]
aggregations: Registry[Strategy] = Registry("aggregation strategy")
MARGIN = 0.2
"""Score-based strategies decide a winner only when it leads by at least this much."""


def _policy(policies: Policies, c: CriterionResult) -> CriterionPolicy:
    return policies.get(c.source, CriterionPolicy())


def _by_candidate(request: JudgeRequest, criteria: list[CriterionResult]) -> dict[int, list[CriterionResult]] | None:
    per: dict[int, list[CriterionResult]] = {}
    for c in criteria:
        per.setdefault(c.candidate, []).append(c)
    return per if set(per) == set(range(len(request.candidates))) else None


def _verdict(
    request: JudgeRequest, scores: list[float], criteria: list[CriterionResult], winner: int | None, why: str
) -> Verdict | None:
    if request.mode in ("pointwise", "steps"):
        winner = None  # scored, never ranked against each other
    elif winner is None:
        return None
    return Verdict.scored(
        scores, winner=winner, criteria=criteria, confidence=1.0, decided_by="evidence", rationale=why
    )


def _leader(scores: list[float]) -> int | None:
    order = ranking_of(scores)
    if len(order) == 1 or scores[order[0]] - scores[order[1]] >= MARGIN:
        return order[0]
    return None


def _weighted(items: list[CriterionResult], policies: Policies, by_reliability: bool = False) -> float:
    pairs = []
    for c in items:
        p = _policy(policies, c)
        pairs.append((p.weight * (p.reliability if by_reliability else 1.0), c.score or 0.0))
    total = sum(w for w, _ in pairs)
    return sum(w * s for w, s in pairs) / total if total else 0.0


@aggregations.decorator("all_pass")
def all_pass(request: JudgeRequest, criteria: list[CriterionResult], policies: Policies) -> Verdict | None:
    """A candidate passes when every check on it passed; the one candidate that passes wins. A candidate that
    fails one scores what its conclusive checks give it (the share of tests passed, say): a check that only
    supports (a statement example passed) never adds credit to a response the evidence decided against."""
    per = _by_candidate(request, criteria)
    if per is None:
        return None
    passed = [i for i in range(len(per)) if all(c.passed for c in per[i])]
    scores = [_earned(per[i], i in passed) for i in range(len(per))]
    winner = passed[0] if len(passed) == 1 else None
    return _verdict(request, scores, criteria, winner, _all_pass_rationale(request, per, passed))


def _earned(checks: list[CriterionResult], passed: bool) -> float:
    """A candidate's mean score over its checks; over its conclusive ones only where it failed one."""
    counted = checks if passed else [c for c in checks if c.conclusive]
    return fmean(c.score or 0.0 for c in counted) if counted else 0.0


def _all_pass_rationale(request: JudgeRequest, per: dict[int, list[CriterionResult]], passed: list[int]) -> str:
    """What `all_pass` found, in the request's mode: which responses pass every check, and what the others fail."""
    checks = ", ".join(sorted({c.name for cs in per.values() for c in cs}))
    failed = {i: sorted({c.name for c in per[i] if not c.passed}) for i in per if i not in passed}
    if len(per) == 1:
        return f"passes every check ({checks})" if passed else f"fails {', '.join(failed[0])} (checks: {checks})"
    fails = "; ".join(f"candidate {i} fails {', '.join(names)}" for i, names in failed.items())
    if request.mode in ("pointwise", "steps") or len(passed) != 1:
        return f"{len(passed)} of {len(per)} pass every check ({checks})" + (f"; {fails}" if fails else "")
    return f"only candidate {passed[0]} passes every check ({checks}); {fails}"


@aggregations.decorator("weighted_sum")
def weighted_sum(request: JudgeRequest, criteria: list[CriterionResult], policies: Policies) -> Verdict | None:
    """Each candidate's weighted mean score; a clear leader wins."""
    per = _by_candidate(request, criteria)
    if per is None:
        return None
    scores = [_weighted(per[i], policies) for i in range(len(per))]
    return _verdict(request, scores, criteria, _leader(scores), "weighted sum of the evidence")


@aggregations.decorator("essential_first")
def essential_first(request: JudgeRequest, criteria: list[CriterionResult], policies: Policies) -> Verdict | None:
    """Candidates failing an essential criterion are out; the rest are weighed on the other criteria."""
    per = _by_candidate(request, criteria)
    if per is None:
        return None
    scores = []
    for i in range(len(per)):
        essential = [c for c in per[i] if _policy(policies, c).essential]
        rest = [c for c in per[i] if not _policy(policies, c).essential] or essential
        scores.append(0.0 if any(not c.passed for c in essential) else _weighted(rest, policies))
    alive = [i for i, s in enumerate(scores) if s > 0]
    winner = alive[0] if len(alive) == 1 else _leader(scores)
    return _verdict(request, scores, criteria, winner, "essential criteria first, then the weighted rest")


@aggregations.decorator("hard_gates")
def hard_gates(request: JudgeRequest, criteria: list[CriterionResult], policies: Policies) -> Verdict | None:
    """Gate criteria must pass (else the score is 0); only a single candidate through every gate wins."""
    per = _by_candidate(request, criteria)
    if per is None:
        return None
    through = [i for i in range(len(per)) if all(c.passed for c in per[i] if _policy(policies, c).gate)]
    scores = [_weighted(per[i], policies) if i in through else 0.0 for i in range(len(per))]
    winner = through[0] if len(through) == 1 else None
    return _verdict(request, scores, criteria, winner, f"candidates through every gate: {through}")


@aggregations.decorator("criterion_vote")
def criterion_vote(request: JudgeRequest, criteria: list[CriterionResult], policies: Policies) -> Verdict | None:
    """Each criterion votes for the candidate that does best on it; a strict majority of votes wins."""
    per = _by_candidate(request, criteria)
    if per is None:
        return None
    n = len(per)
    votes = [0.0] * n
    names = {c.name for c in criteria}
    for name in names:
        got = {c.candidate: c.score or 0.0 for c in criteria if c.name == name}
        if len(got) == n:
            best = max(got.values())
            leaders = [i for i, s in got.items() if s == best]
            if len(leaders) == 1:
                votes[leaders[0]] += 1
    total = sum(votes)
    scores = [v / total if total else 0.0 for v in votes]
    winner = next((i for i, v in enumerate(votes) if v > total / 2), None)
    return _verdict(request, scores, criteria, winner, f"criterion votes {votes}")


@aggregations.decorator("reliability_gating")
def reliability_gating(request: JudgeRequest, criteria: list[CriterionResult], policies: Policies) -> Verdict | None:
    """Evidence of low reliability (below 0.5) is set aside; the rest is weighted by its reliability."""
    kept = [c for c in criteria if _policy(policies, c).reliability >= 0.5]
    per = _by_candidate(request, kept)
    if per is None:
        return None
    scores = [_weighted(per[i], policies, by_reliability=True) for i in range(len(per))]
    return _verdict(request, scores, kept, _leader(scores), "reliable evidence, weighted by reliability")


@aggregations.decorator("holistic")
def holistic(request: JudgeRequest, criteria: list[CriterionResult], policies: Policies) -> Verdict | None:
    """Never decides alone: the model rules with all the evidence shown."""
    return None
