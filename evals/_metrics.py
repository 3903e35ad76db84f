"""Eval metrics from judged requests: accuracy, consistency, validity, per category, tools, tokens, time."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict

from pydantic import BaseModel, Field

from judgegraph.schema import JudgeRequest, ModelTurn, ToolCallEvent, Trajectory

EVIDENCE_TOOLS: dict[str, frozenset[str]] = {
    "tests": frozenset({"run_code"}),
    "reference": frozenset({"match_reference"}),
    "constraints": frozenset({"verify_constraints"}),
    "documents": frozenset({"retrieve", "check_propositions"}),
    "images": frozenset({"zoom_image"}),
}
"""The tools each kind of evidence needs (any one of a set will do): what tool-choice accuracy checks."""
INVALID_CALL = ("invalid_arguments", "unknown_tool")
"""Tool failures that are the caller's fault: a call the tool does not accept."""


def chose_tools(request: JudgeRequest, called: set[str]) -> bool | None:
    """Whether the calls cover every kind of evidence the request carries; None when it carries none."""
    needed = [tools for kind, tools in EVIDENCE_TOOLS.items() if request.has_evidence(kind)]
    return all(tools & called for tools in needed) if needed else None


class Outcome(BaseModel):
    """One judged request, as the metrics see it."""

    id: str
    category: str
    correct: bool | None = None
    """Against the label; None without one. An invalid verdict or a failed request counts as not correct."""
    valid: bool = False
    consistent: bool | None = None
    winner: int | None = None
    scores: list[float] = []
    confidence: float | None = None
    decided_by: str | None = None
    tool_calls: dict[str, int] = {}
    """Tool name -> calls in this run."""
    model_calls: int = 0
    """Tool calls the model itself asked for (not planned by a rule)."""
    invalid_calls: int = 0
    """Of those, the ones the tool refused (unknown tool, arguments it does not accept)."""
    tool_choice: bool | None = None
    """Whether the model's own calls covered the tools the request's evidence needs (None: no such evidence, or
    a judge whose tools are planned by rules)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_s: float = 0.0
    model_s: float = 0.0
    """Time spent waiting on the model (the sum of its turns' latencies)."""
    trajectory_id: str | None = None
    error: str | None = None

    @classmethod
    def of(cls, id: str, category: str, labelled: bool, trajectory: Trajectory | None, error: str | None) -> Outcome:
        if trajectory is None or trajectory.verdict is None:
            return cls(id=id, category=category, correct=False if labelled else None, error=error)
        v = trajectory.verdict
        turns = [e for e in trajectory.events if isinstance(e, ModelTurn)]
        correct = trajectory.correct
        results = {r.call_id: r for r in trajectory.tool_results()}
        asked = [e.call for e in trajectory.events if isinstance(e, ToolCallEvent) and e.call.source == "model"]
        invalid = {c.id for c in asked if (r := results.get(c.id)) is not None and r.error_kind in INVALID_CALL}
        planned = any(isinstance(e, ToolCallEvent) and e.call.source != "model" for e in trajectory.events)
        valid_names = {c.name for c in asked if c.id not in invalid}
        return cls(
            id=id,
            category=category,
            correct=(bool(correct) if labelled else None),
            valid=v.valid,
            consistent=v.consistent,
            winner=v.winner,
            scores=v.scores,
            confidence=v.confidence,
            decided_by=v.decided_by or None,
            tool_calls=dict(Counter(r.name for r in trajectory.tool_results())),
            model_calls=len(asked),
            invalid_calls=len(invalid),
            tool_choice=None if planned else chose_tools(trajectory.request, valid_names),
            prompt_tokens=sum(t.usage.prompt_tokens for t in turns),
            completion_tokens=sum(t.usage.completion_tokens for t in turns),
            wall_s=trajectory.duration_s or 0.0,
            model_s=sum(t.latency_s for t in turns),
            trajectory_id=trajectory.id,
            error=error,
        )


class Metrics(BaseModel):
    n: int
    accuracy: float | None = None
    """Share of labelled requests judged correctly (invalid verdicts and failures count as wrong)."""
    consistency: float | None = None
    """Share of pairwise judgments whose two candidate orders agreed."""
    valid_rate: float = 0.0
    decided_by_evidence: float = 0.0
    tool_calls_per_judgment: float = 0.0
    tool_call_validity: float | None = None
    """Share of the model's own tool calls that the tool accepted (None: the model called none)."""
    tool_choice: float | None = None
    """Share of judgments whose model-chosen calls covered the tools the evidence needs (None: not applicable)."""
    tool_usage: dict[str, float] = Field(default_factory=dict)
    """Tool -> calls per judgment."""
    tokens_per_judgment: float = 0.0
    wall_s_per_judgment: float = 0.0
    wall_s_p50: float = 0.0
    model_s_per_judgment: float = 0.0
    failed: int = 0


def _share(flags: list[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def _validity(outcomes: list[Outcome]) -> float | None:
    asked = sum(o.model_calls for o in outcomes)
    return 1 - sum(o.invalid_calls for o in outcomes) / asked if asked else None


def metrics(outcomes: list[Outcome]) -> Metrics:
    n = len(outcomes)
    if n == 0:
        return Metrics(n=0)
    tools: Counter[str] = Counter()
    for o in outcomes:
        tools.update(o.tool_calls)
    return Metrics(
        n=n,
        accuracy=_share([bool(o.correct) for o in outcomes if o.correct is not None]),
        consistency=_share([bool(o.consistent) for o in outcomes if o.consistent is not None]),
        valid_rate=sum(o.valid for o in outcomes) / n,
        decided_by_evidence=sum(o.decided_by == "evidence" for o in outcomes) / n,
        tool_calls_per_judgment=sum(tools.values()) / n,
        tool_call_validity=_validity(outcomes),
        tool_choice=_share([o.tool_choice for o in outcomes if o.tool_choice is not None]),
        tool_usage={k: v / n for k, v in sorted(tools.items())},
        tokens_per_judgment=sum(o.prompt_tokens + o.completion_tokens for o in outcomes) / n,
        wall_s_per_judgment=statistics.fmean(o.wall_s for o in outcomes),
        wall_s_p50=statistics.median(o.wall_s for o in outcomes),
        model_s_per_judgment=statistics.fmean(o.model_s for o in outcomes),
        failed=sum(o.error is not None for o in outcomes),
    )


def per_category(outcomes: list[Outcome]) -> dict[str, Metrics]:
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[o.category].append(o)
    return {k: metrics(v) for k, v in sorted(groups.items())}


class CalibrationBin(BaseModel):
    low: float
    high: float
    n: int
    confidence: float
    accuracy: float


def calibration(outcomes: list[Outcome], bins: int = 10) -> tuple[list[CalibrationBin], float | None]:
    """Reliability bins of stated confidence against accuracy, and the expected calibration error."""
    scored = [(o.confidence, bool(o.correct)) for o in outcomes if o.confidence is not None and o.correct is not None]
    out = []
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        inside = [(c, ok) for c, ok in scored if low <= c < high or (b == bins - 1 and c == 1.0)]
        if inside:
            mean_confidence = statistics.fmean(c for c, _ in inside)
            accuracy = sum(ok for _, ok in inside) / len(inside)
            out.append(CalibrationBin(low=low, high=high, n=len(inside), confidence=mean_confidence, accuracy=accuracy))
    ece = sum(b.n * abs(b.confidence - b.accuracy) for b in out) / len(scored) if scored else None
    return out, ece
