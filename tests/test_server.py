"""The reward server: OpenRLHF request shapes, the native API, auth, limits, 429 under overload, metrics."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from benchmarks.fake_openai import FakeOpenAI, Reply
from judgegraph.serving import ServerConfig, create_app


async def _client(config: ServerConfig, server: FakeOpenAI, tmp_path: Path) -> tuple[Any, httpx.AsyncClient]:
    app = create_app(config, model_url=server.url, store=tmp_path / "r.db")
    ctx = app.router.lifespan_context(app)
    await ctx.__aenter__()
    return ctx, httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://judge")


async def test_openrlhf_reward_api(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    ctx, client = await _client(ServerConfig(), fake_openai, tmp_path)
    try:
        prompt = "<|im_start|>user\nWhat is 6*7?<|im_end|>\n<|im_start|>assistant\n"
        body = {
            "query": [prompt + "The answer is 42.", prompt + "It is 41."],
            "prompts": [prompt, prompt],
            "labels": ["42", json.dumps({"reference": "42"})],
        }
        r = await client.post("/reward", json=body)
        assert r.status_code == 200, r.text
        data = r.json()
        assert data["rewards"] == [1.0, 0.0] and data["scores"] == [1.0, 0.0]
        assert (
            data["extra_logs"]["decided_by"] == ["evidence", "evidence"]
            and len(data["extra_logs"]["trajectory_id"]) == 2
        )
        bad = await client.post("/reward", json={"query": ["a"], "labels": ['{"surprise": 1}']})
        assert bad.status_code == 422 and "allowed" in bad.text
        mismatched = await client.post("/reward", json={"query": ["a", "b"], "prompts": ["a"]})
        assert mismatched.status_code == 422
    finally:
        await client.aclose()
        await ctx.__aexit__(None, None, None)


async def test_native_api_health_metrics_and_openapi(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    ctx, client = await _client(ServerConfig(), fake_openai, tmp_path)
    try:
        request = {"id": "m", "prompt": "6*7?", "candidates": ["41", "42"], "reference": "42"}
        one = await client.post("/v1/judge", json=request)
        assert one.status_code == 200 and one.json()["verdict"]["winner"] == 1
        batch = await client.post("/v1/judge/batch", json=[request, {**request, "id": "n"}])
        assert [x["verdict"]["winner"] for x in batch.json()] == [1, 1]
        invalid = await client.post("/v1/judge", json={"id": "x", "prompt": "p", "candidates": []})
        assert invalid.status_code == 422 and invalid.json()["detail"][0]["loc"] == ["body", "candidates"]
        assert invalid.json()["message"] == "candidates: List should have at least 1 item after validation, not 0"
        missing = await client.post("/v1/judge/batch", json=[request, {"id": "y"}])
        assert missing.json()["message"] == "1.prompt: Field required; 1.candidates: Field required"
        no_query = await client.post("/reward", json={"queries": ["a"]})
        assert no_query.status_code == 422 and no_query.json()["message"] == "query: Field required"
        assert (await client.get("/health")).json()["status"] == "ok"
        metrics = (await client.get("/metrics")).text
        assert 'judgegraph_requests_total{path="/v1/judge",status="200"} 1' in metrics
        assert 'judgegraph_tool_calls_total{tool="match_reference"} 6' in metrics
        spec = (await client.get("/openapi.json")).json()
        assert {"/reward", "/v1/judge", "/v1/judge/batch", "/health"} <= set(spec["paths"])
    finally:
        await client.aclose()
        await ctx.__aexit__(None, None, None)


async def test_api_key_body_limit_and_overload(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.default = Reply(content='{"winner": "A", "confidence": 1, "rationale": "r"}', delay_s=0.5)
    config = ServerConfig(api_key="s3cret", max_concurrency=1, max_body_bytes=2048)
    ctx, client = await _client(config, fake_openai, tmp_path)
    try:
        request = {"id": "o", "prompt": "Greet.", "candidates": ["Hi", "Yo"]}
        assert (await client.post("/v1/judge", json=request)).status_code == 401
        auth = {"Authorization": "Bearer s3cret"}
        big = {**request, "prompt": "x" * 5000}
        assert (await client.post("/v1/judge", json=big, headers=auth)).status_code == 413
        slow = await client.post("/v1/judge", json=request, headers=auth)
        first = asyncio.ensure_future(client.post("/v1/judge", json=request, headers={"X-API-Key": "s3cret"}))
        await asyncio.sleep(0.1)
        busy = await client.post("/v1/judge", json=request, headers=auth)
        assert busy.status_code == 429 and busy.headers["retry-after"] == "1"
        assert (await first).status_code == 200 and slow.status_code == 200
        assert (await client.get("/health")).status_code == 200  # health needs no key
    finally:
        await client.aclose()
        await ctx.__aexit__(None, None, None)


async def test_serve_command_binds_loopback(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    from benchmarks.server import serve_process

    async with serve_process(fake_openai.url, tmp_path / "r.db") as (base, _), httpx.AsyncClient() as client:
        assert base.startswith("http://127.0.0.1:")
        r = await client.get(f"{base}/health")
        assert r.json() == {"status": "ok", "judge": "evidence"}
        judged = await client.post(f"{base}/reward", json={"query": ["42"], "labels": ["42"]})
        assert judged.json()["rewards"] == [1.0]


async def test_files_on_the_server_are_not_read_unless_allowed(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the server's own file")
    request = {
        "id": "f",
        "prompt": "Summarize.",
        "candidates": ["a", "b"],
        "images": ["/etc/passwd"],
        "documents": [{"id": "d", "path": str(secret)}],
    }
    ctx, client = await _client(ServerConfig(), fake_openai, tmp_path)
    try:
        refused = await client.post("/v1/judge", json=request)
        assert refused.status_code == 422 and "--allow-local-files" in refused.text
        assert "/etc/passwd" in refused.text and str(secret) in refused.text
        label = json.dumps({"images": ["/etc/passwd"]})
        via_reward = await client.post("/reward", json={"query": ["x"], "labels": [label]})
        assert via_reward.status_code == 422 and "--allow-local-files" in via_reward.text
        inline = {**request, "images": [], "documents": [{"id": "d", "text": "inline text"}]}
        assert (await client.post("/v1/judge", json=inline)).status_code == 200
    finally:
        await client.aclose()
        await ctx.__aexit__(None, None, None)
    ctx, client = await _client(ServerConfig(allow_local_files=True), fake_openai, tmp_path)
    try:
        allowed = await client.post("/v1/judge", json={**request, "id": "g", "images": []})
        assert allowed.status_code == 200, allowed.text
    finally:
        await client.aclose()
        await ctx.__aexit__(None, None, None)


def _metric(text: str, name: str) -> float:
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name))


async def test_worker_processes_share_one_port_one_store_and_their_metrics(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    from benchmarks.server import serve_process
    from judgegraph.store import TrajectoryStore

    body = {"query": ["The answer is 42."], "labels": ["42"]}
    async with (
        serve_process(fake_openai.url, tmp_path / "r.db", "--workers", "2") as (base, _),
        httpx.AsyncClient(base_url=base, timeout=60) as client,
    ):
        replies = await asyncio.gather(*(client.post("/reward", json=body) for _ in range(40)))
        assert [r.status_code for r in replies] == [200] * 40 and all(r.json()["rewards"] == [1.0] for r in replies)
        for _ in range(50):  # every worker publishes after each request; /metrics sums whichever answers
            text = (await client.get("/metrics")).text
            if _metric(text, 'judgegraph_requests_total{path="/reward",status="200"}') == 40:
                break
            await asyncio.sleep(0.1)
        assert _metric(text, 'judgegraph_requests_total{path="/reward",status="200"}') == 40
        assert _metric(text, "judgegraph_workers") == 2 and _metric(text, "judgegraph_in_flight") == 0
    store = TrajectoryStore(tmp_path / "r.db")
    assert store.count() == 40  # both workers wrote the one store
    store.close()


async def test_a_busy_worker_writes_its_counters_once_an_interval(tmp_path: Path) -> None:
    from judgegraph.serving._server import _Metrics

    metrics = _Metrics(tmp_path)
    for _ in range(100):  # a burst of requests inside one interval
        metrics.requests[("/reward", 200)] += 1
        metrics.publish_soon()
    assert list(tmp_path.glob("*.json")) == []  # nothing written yet: one write is scheduled for the whole burst
    await asyncio.sleep(_Metrics.PUBLISH_EVERY_S * 2)
    (file,) = tmp_path.glob("*.json")
    assert json.loads(file.read_text())["requests"] == [["/reward", 200, 100]]
    metrics.requests[("/reward", 200)] += 1
    metrics.publish_soon()  # the next change schedules the next write
    await asyncio.sleep(_Metrics.PUBLISH_EVERY_S * 2)
    assert json.loads(file.read_text())["requests"] == [["/reward", 200, 101]]


async def test_a_stopped_server_finishes_the_requests_in_flight(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    from benchmarks.server import serve_process

    fake_openai.default = Reply(content='{"winner": "A", "confidence": 0.9, "rationale": "slow"}', delay_s=2.0)
    request = {"id": "slow", "prompt": "Which is kinder?", "candidates": ["Thanks!", "Go away."]}
    async with (
        serve_process(fake_openai.url, tmp_path / "r.db", "--workers", "2") as (base, proc),
        httpx.AsyncClient(base_url=base, timeout=60) as client,
    ):
        pending = asyncio.ensure_future(client.post("/v1/judge", json=request))
        for _ in range(200):  # until the model call is under way
            if fake_openai.requests:
                break
            await asyncio.sleep(0.05)
        proc.terminate()  # SIGTERM, as a process manager stops it
        reply = await pending
        assert reply.status_code == 200 and reply.json()["verdict"]["valid"]
        assert await asyncio.wait_for(proc.wait(), timeout=30) is not None


def test_serve_takes_what_undecided_means_and_the_models_trust(monkeypatch: pytest.MonkeyPatch) -> None:
    """`serve --undecided zero --model-untrusted` reaches the judge's settings (the server's abstention rule, as
    JUDGEGRAPH_UNDECIDED and JUDGEGRAPH_MODEL_TRUSTED set it); a value it does not know exits 2 saying the three."""
    import uvicorn
    from typer.testing import CliRunner

    import judgegraph.serving
    from judgegraph.cli import _serve, app

    captured: dict[str, Any] = {}
    monkeypatch.setattr(judgegraph.serving, "create_app", lambda config, **settings: captured.update(settings))
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: None)
    monkeypatch.setattr(_serve, "_say_when_up", lambda *args, **kwargs: None)
    args = ["serve", "--model", "http://127.0.0.1:9/v1", "--undecided", "zero", "--model-untrusted", "--workers", "1"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    assert captured["undecided"] == "zero" and captured["model_trusted"] is False
    bad = CliRunner().invoke(app, ["serve", "--undecided", "maybe"])
    assert bad.exit_code == 2 and "use abstain, model or zero" in bad.output
