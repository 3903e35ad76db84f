"""Shared benchmark helpers: timing statistics and the report format."""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path


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

    @classmethod
    async def timed(cls, call: Callable[[], Awaitable[object]], n: int) -> Stats:
        """`n` awaits of `call`, one after another, each timed alone."""
        seconds = []
        for _ in range(n):
            start = time.perf_counter()
            await call()
            seconds.append(time.perf_counter() - start)
        return cls.of(seconds)


def table(header: list[str], rows: Sequence[Sequence[object]]) -> str:
    def fmt(v: object) -> str:
        return f"{v:.1f}" if isinstance(v, float) else str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def previous_sections(report: Path, keys: Iterable[str], tag: str) -> dict[str, str]:
    """The sections a report already has, between `<!-- {tag}:{key} -->` markers: a partial rerun keeps them."""
    if not report.exists():
        return {}
    text = report.read_text()
    found = {}
    for key in keys:
        m = re.search(rf"<!-- {tag}:{key} -->\n(.*?)<!-- /{tag}:{key} -->", text, re.DOTALL)
        if m:
            found[key] = m.group(1)
    return found


def rss_mib(pid: int | str = "self") -> float:
    """Resident memory of a process (this one by default), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0
