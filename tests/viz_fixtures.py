"""A trajectory store for the viewer's tests: the bundled examples judged with a scripted model, one run
replayed as a counterfactual (for the diff page), and a run long enough to need paging."""

from __future__ import annotations

import asyncio
import concurrent.futures
from pathlib import Path

from benchmarks.fake_openai import FakeOpenAI, prefers
from judgegraph import Judge
from judgegraph.runtime._batch import resolve_paths
from judgegraph.schema import JudgeRequest, ToolResult, ToolResultEvent
from tests.conftest import DEMO, demo_rows


def demo_requests() -> list[JudgeRequest]:
    return [resolve_paths(JudgeRequest.model_validate(row), DEMO.parent) for row in demo_rows().values()]


async def build_store(path: Path, fake: FakeOpenAI) -> dict[str, str]:
    """Judge the examples into `path`; returns named run ids (`image`, `math`, `counterfactual`, ...)."""
    fake.responder = prefers("4")
    ids: dict[str, str] = {}
    async with Judge.load("evidence", store=path, model_url=fake.url) as judge:
        for request in demo_requests():
            t = await judge.arun(request)
            ids[str(request.id)] = t.id
        math = judge.store.get(ids["math-mult"]) if judge.store else None
        assert math is not None
        decisive = next(e for e in math.events if isinstance(e, ToolResultEvent) and e.result.ok)
        flipped = ToolResult(
            **{
                **decisive.result.model_dump(),
                "ok": False,
                "error_kind": "execution",
                "error": "counterfactual",
                "data": None,
                "text": "counterfactual failure",
            }
        )
        report = await judge.areplay(math, overrides={decisive.seq: flipped}, record=True)
        ids["counterfactual"] = report.replay.id
        ids["original"] = math.id
    return ids


def build_store_sync(path: Path) -> dict[str, str]:
    """`build_store` with a scripted model of its own, from synchronous code: in a thread of its own (Playwright's
    sync API keeps a loop running in the test's thread)."""
    fake = FakeOpenAI().start()
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, build_store(path, fake)).result()
    finally:
        fake.stop()
