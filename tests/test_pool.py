"""Several model endpoints: load balancing, failover, recovery, and a judge served by a pool."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.fake_openai import FakeOpenAI, Reply
from judgegraph import Judge
from judgegraph.backends import ModelClient, ModelPool, free_port
from judgegraph.errors import BackendUnavailableError

HI = [{"role": "user", "content": "hi"}]


@pytest.fixture
def servers() -> Iterator[list[FakeOpenAI]]:
    pair = [FakeOpenAI(owned_by="vllm").start(), FakeOpenAI(owned_by="vllm").start()]
    yield pair
    for s in pair:
        with contextlib.suppress(OSError):
            s.stop()


async def _pool(urls: list[str], *, cooldown_s: float = 10.0) -> ModelPool:
    pool = ModelPool([ModelClient(u, max_retries=0, backoff_s=0.01, timeout_s=5) for u in urls], cooldown_s=cooldown_s)
    await pool.connect()
    return pool


async def test_sequential_calls_take_turns(servers: list[FakeOpenAI]) -> None:
    pool = await _pool([s.url for s in servers])
    turns = [await pool.chat(HI) for _ in range(6)]
    await pool.close()
    assert [len(s.requests) for s in servers] == [3, 3]
    assert {t.endpoint for t in turns} == {s.url for s in servers}
    assert pool.model == "fake-model" and pool.profile.name == "vllm"


async def test_concurrent_calls_go_to_the_least_loaded(servers: list[FakeOpenAI]) -> None:
    servers[0].default = Reply(content="slow", delay_s=0.5)
    servers[1].default = Reply(content="fast", delay_s=0.01)
    pool = await _pool([s.url for s in servers])
    slow = asyncio.create_task(pool.chat(HI))
    await asyncio.sleep(0.05)  # the slow call is in flight on one endpoint
    fast = [await pool.chat(HI) for _ in range(4)]
    await slow
    await pool.close()
    # Whichever endpoint took the slow call, every call made while it was busy went to the other one.
    assert len({t.endpoint for t in fast}) == 1 and (await slow).endpoint not in {t.endpoint for t in fast}


async def test_a_dead_endpoint_fails_over_and_stays_out(servers: list[FakeOpenAI]) -> None:
    pool = await _pool([s.url for s in servers])
    servers[0].stop()
    turns = [await pool.chat(HI) for _ in range(4)]
    await pool.close()
    assert all(t.error is None and t.endpoint == servers[1].url for t in turns)
    assert len(servers[1].requests) == 4
    a, b = pool.stats()
    assert a["failures"] == 1 and not a["up"] and b["up"] and b["calls"] == 4
    assert turns[0].attempts == 2 or turns[1].attempts == 2  # the failed try is counted in the turn


async def test_a_failing_endpoint_comes_back_after_its_cooldown(servers: list[FakeOpenAI]) -> None:
    servers[0].script = [Reply(status=503)]  # the first call goes to the first endpoint, and fails there once
    pool = await _pool([s.url for s in servers], cooldown_s=0.2)
    first = await pool.chat(HI)
    assert first.error is None and first.endpoint == servers[1].url
    assert [st["up"] for st in pool.stats()] == [False, True]
    await asyncio.sleep(0.25)
    later = [await pool.chat(HI) for _ in range(4)]
    await pool.close()
    assert all(t.error is None for t in later) and servers[0].url in {t.endpoint for t in later}


async def test_a_bad_request_is_not_failed_over(servers: list[FakeOpenAI]) -> None:
    for s in servers:
        s.script = [Reply(status=400)]
    pool = await _pool([s.url for s in servers])
    turn = await pool.chat(HI)
    await pool.close()
    assert turn.error is not None and "400" in turn.error
    assert sum(len(s.requests) for s in servers) == 1  # every endpoint would refuse it alike
    assert all(st["up"] for st in pool.stats())


async def test_all_endpoints_failing_returns_the_error_turn(servers: list[FakeOpenAI]) -> None:
    pool = await _pool([s.url for s in servers])
    for s in servers:
        s.stop()
    turn = await pool.chat(HI)
    await pool.close()
    assert turn.error is not None and "APIConnectionError" in turn.error and turn.attempts == 2


async def test_an_endpoint_down_at_start_is_tried_later(servers: list[FakeOpenAI]) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"
    pool = await _pool([dead, servers[0].url], cooldown_s=0.1)
    assert [st["up"] for st in pool.stats()] == [False, True]
    await asyncio.sleep(0.15)
    turn = await pool.chat(HI)  # the dead one is tried again first after its cooldown, then fails over
    await pool.close()
    assert turn.error is None and turn.endpoint == servers[0].url


async def test_connect_refuses_no_endpoint_or_mixed_models() -> None:
    with pytest.raises(BackendUnavailableError, match="no model endpoint answers"):
        await _pool([f"http://127.0.0.1:{free_port()}/v1", f"http://127.0.0.1:{free_port()}/v1"])
    a, b = FakeOpenAI(model="qwen").start(), FakeOpenAI(model="llama").start()
    try:
        with pytest.raises(BackendUnavailableError, match="different models"):
            await _pool([a.url, b.url])
    finally:
        a.stop()
        b.stop()


async def test_a_judge_on_comma_separated_urls_survives_a_dead_endpoint(
    servers: list[FakeOpenAI], tmp_path: Path
) -> None:
    request = {"prompt": "Greet someone.", "candidates": ["Hello there, friend!", "k"]}
    async with Judge.load("llm", store=tmp_path / "r.db", model_url=",".join(s.url for s in servers)) as judge:
        first = await judge.arun({"id": "one", **request})
        servers[1].stop()
        second = await judge.arun({"id": "two", **request})
    assert first.verdict is not None and first.verdict.valid
    assert second.verdict is not None and second.verdict.valid
    served = {t.endpoint for t in first.model_turns()} | {t.endpoint for t in second.model_turns()}
    assert servers[0].url in served
    assert all(t.error is None for t in second.model_turns())
