"""LangGraph checkpoints beside the trajectory store: thread id = trajectory id, pruned once a run completes."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.serde.event_hooks import SerdeEvent, register_serde_event_listener
from pydantic import BaseModel

from benchmarks.fake_openai import FakeOpenAI, Reply
from judgegraph import Judge
from judgegraph.agents import judges
from judgegraph.graphs import graph_kinds
from judgegraph.schema import JudgeRequest, Verdict

MATH = {"id": "m", "prompt": "6*7?", "candidates": ["41", "42"], "reference": "42"}


async def test_every_step_is_checkpointed(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    async with Judge.load("evidence", store=store, model_url=fake_openai.url, checkpoints="all") as judge:
        t = await judge.arun(MATH)
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


OPEN = {
    "id": "o",
    "prompt": "Explain recursion to a child.",
    "candidates": ["A function that calls itself, like nesting dolls.", "Recursion is recursion."],
}
DOCUMENTED = {
    "id": "d",
    "prompt": "Tell me about the Eiffel Tower.",
    "documents": [{"id": "eiffel", "text": "The Eiffel Tower was completed in 1889. It is 330 metres tall."}],
    "candidates": [
        "The Eiffel Tower was completed in 1901. It is 330 metres tall.",
        "The Eiffel Tower was completed in 1889. It is 330 metres tall.",
    ],
}
RUBRIC = '{"criteria": [{"name": "clarity", "description": "easy to follow", "weight": 2}]}'


def _types_in(value: object, found: set[type]) -> None:
    found.add(type(value))
    if isinstance(value, dict):
        for v in value.values():
            _types_in(v, found)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _types_in(v, found)
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            _types_in(getattr(value, name), found)


@pytest.mark.parametrize("name", sorted(judges.names()))
async def test_every_judges_checkpoints_read_back_as_the_types_it_declares(
    name: str, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """Each bundled judge's checkpoints hold its graph's own state types, and read back as those types (a type
    missing from the allow-list would be refused, and read back as None)."""
    kind = graph_kinds.get(judges.get(name).graph)

    def respond(body: dict[str, Any]) -> Reply:
        if body.get("response_format", {}).get("json_schema", {}).get("name") == "rubric":
            return Reply(content=RUBRIC)
        return fake_openai.default

    fake_openai.responder = respond
    request = DOCUMENTED if name == "propositions" else OPEN
    refused: list[SerdeEvent] = []
    stop_listening = register_serde_event_listener(refused.append)
    try:
        async with Judge.load(name, store=tmp_path / "runs.db", model_url=fake_openai.url, checkpoints="all") as judge:
            t = await judge.arun(request)
            history = [s async for s in judge.graph.aget_state_history({"configurable": {"thread_id": t.id}})]
    finally:
        stop_listening()
    assert refused == []  # every type in the checkpoints is on the allow-list (else it reads back as None)
    found: set[type] = set()
    for snapshot in history:
        _types_in(snapshot.values, found)
    assert history[0].values["verdict"] == t.verdict and t.verdict is not None and t.verdict.valid
    assert JudgeRequest in found and Verdict in found
    assert set(kind.checkpointed) & found, f"none of {name}'s own types {kind.checkpointed} was checkpointed"
