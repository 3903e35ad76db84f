"""LangGraph checkpoints beside the trajectory store: thread id = trajectory id, pruned once a run completes."""

from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path

import pytest

from benchmarks.fake_openai import FakeOpenAI
from judgegraph import Judge

MATH = {"id": "m", "prompt": "6*7?", "candidates": ["41", "42"], "reference": "42"}


async def test_every_step_is_checkpointed_and_reads_back_without_unvetted_types(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    store = tmp_path / "runs.db"
    async with Judge.load("evidence", store=store, model_url=fake_openai.url, checkpoints="all") as judge:
        t = await judge.arun(MATH)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an unregistered type in a checkpoint would warn
            history = [s async for s in judge.graph.aget_state_history({"configurable": {"thread_id": t.id}})]
    assert len(history) >= len(set(t.path)) and history[0].values["verdict"] == t.verdict
    assert (tmp_path / "runs.checkpoints.db").exists()


@pytest.mark.parametrize(("mode", "kept"), [("incomplete", 0), ("all", 1)])
async def test_completed_runs_are_pruned_unless_kept(
    mode: str, kept: int, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    async with Judge.load("evidence", store=tmp_path / "runs.db", model_url=fake_openai.url, checkpoints=mode) as judge:
        t = await judge.arun(MATH)
    conn = sqlite3.connect(tmp_path / "runs.checkpoints.db")
    threads = conn.execute("SELECT count(DISTINCT thread_id) FROM checkpoints WHERE thread_id = ?", (t.id,)).fetchone()[
        0
    ]
    assert threads == kept
