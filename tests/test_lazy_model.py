"""No model until one is needed: rule-decided requests never start the embedded server (nor connect to a URL);
the first request that needs the model starts it."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from judgegraph import Judge
from judgegraph.serving import ServerConfig, create_app

MATH = [
    {
        "id": f"m{i}",
        "prompt": f"What is {i}+1?",
        "candidates": [f"It is {i + 1}.", f"It is {i + 2}."],
        "reference": str(i + 1),
    }
    for i in range(6)
]


def _model_servers() -> list[int]:
    """This process's child processes that serve a model (the embedded llama.cpp server)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        ppid = int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))
        if ppid == os.getpid() and "llama_cpp.server" in cmdline:
            found.append(int(entry.name))
    return found


async def test_a_rule_decided_batch_on_the_embedded_default_starts_no_model(tmp_path: Path) -> None:
    async with Judge.load("evidence", store=tmp_path / "runs.db") as judge:  # the embedded default: no model URL
        items = [item async for item in judge.ajudge_many(MATH, concurrency=4)]
        assert all(i.verdict is not None and i.verdict.decided_by == "evidence" for i in items)
        assert _model_servers() == [] and judge._endpoint.served_url is None
        run = judge.store.get(items[0].trajectory_id) if judge.store and items[0].trajectory_id else None
        assert run is not None and run.versions.model == "" and run.model_turns() == []


async def test_a_reward_server_that_sees_only_rule_decided_requests_starts_no_model(tmp_path: Path) -> None:
    app = create_app(ServerConfig(), store=tmp_path / "r.db")  # the embedded default
    ctx = app.router.lifespan_context(app)
    await ctx.__aenter__()
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://judge") as client:
            batch = await client.post("/v1/judge/batch", json=MATH)
            assert [x["verdict"]["winner"] for x in batch.json()] == [0] * len(MATH)
            assert (await client.get("/health")).json()["status"] == "ok"
        assert _model_servers() == []
    finally:
        await ctx.__aexit__(None, None, None)


@pytest.mark.llm
async def test_the_first_request_that_needs_the_model_starts_it(tmp_path: Path) -> None:
    async with Judge.load("evidence", store=False) as judge:
        await judge.arun(MATH[0])
        assert _model_servers() == []
        t = await judge.arun({"id": "o", "prompt": "Greet.", "candidates": ["Hello!", "Hey."]})
        assert len(_model_servers()) == 1 and t.model_turns() and t.versions.model.startswith("smollm2")
    assert _model_servers() == []  # and it stops with the judge
