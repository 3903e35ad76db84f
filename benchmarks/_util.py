"""Shared benchmark helpers: timing statistics and the report format."""

from __future__ import annotations

import statistics
from dataclasses import dataclass


@dataclass
class Stats:
    n: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float

    @classmethod
    def of(cls, seconds: list[float]) -> Stats:
        ms = sorted(s * 1000 for s in seconds)

        def pct(q: float) -> float:
            return ms[min(len(ms) - 1, round(q * (len(ms) - 1)))]

        return cls(
            n=len(ms), p50_ms=statistics.median(ms), p95_ms=pct(0.95), p99_ms=pct(0.99), mean_ms=statistics.fmean(ms)
        )


def table(header: list[str], rows: list[list[object]]) -> str:
    def fmt(v: object) -> str:
        return f"{v:.1f}" if isinstance(v, float) else str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
