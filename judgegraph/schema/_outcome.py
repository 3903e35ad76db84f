"""Comparing a verdict with a label."""

from __future__ import annotations

from judgegraph.schema._request import Label
from judgegraph.schema._verdict import Verdict


def verdict_correct(verdict: Verdict | None, label: Label | None) -> bool | None:
    """Whether `verdict` agrees with `label`; None when there is nothing to compare."""
    if verdict is None or label is None or not verdict.valid:
        return None if verdict is None or label is None else False
    if label.tie:
        return verdict.winner is None
    if label.winner is not None:
        return verdict.winner == label.winner
    if label.scores is not None and verdict.scores:
        return all(abs(a - b) <= 0.5 for a, b in zip(verdict.scores, label.scores, strict=True))
    return None
