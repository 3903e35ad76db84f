"""Garbage-collector settings for a process that judges at high rate (the CLI's batch runner, the server).

A judgment allocates many short-lived objects (graph steps, pydantic models, JSON); Python's default
thresholds then run young-generation collections every few hundred allocations, and every full collection
walks the hundreds of thousands of long-lived objects that LangGraph, pydantic and langchain create at import.
Freezing what exists at startup takes those out of every collection; a larger young-generation threshold runs
collections less often. Together they cut client CPU per judgment by about a quarter (BENCHMARKS.md, overhead).
Memory is still reclaimed: reference counting frees almost everything, and cycles are still collected.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 20_000
_tuned = False


def tune_gc() -> None:
    """Freeze the objects that exist now (imports, loaded judges) and collect young objects less often.
    Call once, after startup, in a process that judges many requests; the CLI does this for you. Only the
    first call acts."""
    global _tuned
    if _tuned:
        return
    _tuned = True
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, 20, 20)
