"""Step-level judging: split one solution into steps, score each, and gate the steps that depend on an image
when the image evidence is weak (after EVPV: a step that rests on unverified perception is not trusted)."""

from __future__ import annotations

import re
from statistics import fmean

from judgegraph.graphs._aggregate import evidence_criteria
from judgegraph.graphs._verdict_format import ModelRuling
from judgegraph.schema import CriterionResult, JudgeRequest, ToolResult, Verdict

MAX_STEPS = 20
_VISUAL = re.compile(
    r"\b(image|picture|photo|figure|diagram|chart|graph|plot|shown|see|seen|visible|look|looks|color|colour|"
    r"left|right|top|bottom)\b",
    re.IGNORECASE,
)


def split_steps(text: str) -> list[str]:
    """`Step k:` or numbered or bulleted lines when the solution has them; else its non-empty lines or sentences."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    marked = [ln for ln in lines if re.match(r"^(step\s*\d+|\d+[.)]|[-*])\s*", ln, re.IGNORECASE)]
    steps = marked if len(marked) >= 2 else lines if len(lines) >= 2 else re.split(r"(?<=[.!?])\s+", text.strip())
    return [s for s in steps if s][:MAX_STEPS] or [text.strip()]


def visually_dependent(step: str) -> bool:
    return bool(_VISUAL.search(step))


def visual_evidence_is_weak(request: JudgeRequest, evidence: list[ToolResult]) -> bool:
    """Weak unless some image was read and gave text the checks can use."""
    if not request.images:
        return True
    return not any(r.name == "zoom_image" and r.ok and r.data and r.data.get("ocr_text") for r in evidence)


def steps_verdict(request: JudgeRequest, ruling: ModelRuling, evidence: list[ToolResult]) -> Verdict:
    """Per-step scores as criteria; visually dependent steps gated when image evidence is weak; the solution's
    score is the mean of the trusted steps, capped by any deterministic check on the final answer."""
    steps = split_steps(request.candidates[0].content)
    scores = ruling.step_scores or []
    weak = visual_evidence_is_weak(request, evidence)
    criteria: list[CriterionResult] = []
    trusted: list[float] = []
    for k, (step, score) in enumerate(zip(steps, scores, strict=False), start=1):
        gated = weak and visually_dependent(step)
        if not gated:
            trusted.append(score)
        detail = "gated: it rests on the image, and the image evidence is weak" if gated else step[:200]
        criteria.append(
            CriterionResult(
                name=f"step {k}",
                candidate=0,
                score=score,
                passed=None if gated else score >= 0.5,
                source="model (gated)" if gated else "model",
                detail=detail,
            )
        )
    checks = evidence_criteria(evidence)
    overall = fmean(trusted) if trusted else 0.0
    if checks:
        overall = min(overall, fmean(c.score or 0.0 for c in checks))
    first_bad = next((c.name for c in criteria if c.passed is False), None)
    rationale = ruling.rationale or (f"first weak step: {first_bad}" if first_bad else "every trusted step holds")
    return Verdict.scored(
        [overall],
        criteria=[*checks, *criteria],
        confidence=ruling.confidence,
        rationale=rationale,
        decided_by="model",
    )
