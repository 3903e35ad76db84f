"""One rollout never fails its group or the trainer (#57, item 4): every reader is total on any response, every
trainer's reward path answers every rollout without raising, and a rollout whose judgment fails is that rollout's
alone: its honest siblings keep their reward, through verl's batch function, TRL's reward function and the reward
server alike."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgegraph import Judge
from judgegraph.adapters import AsyncJudgeReward, compute_score_batch_async
from judgegraph.adapters._common import group_request, judge_members
from judgegraph.schema import JudgeRequest, Trajectory
from judgegraph.serving import ServerConfig, create_app
from judgegraph.tools.match_reference import _match
from judgegraph.tools.math.answers import extract_final_answer
from judgegraph.tools.responses.silence import commits_to_nothing

NO_MODEL = "http://127.0.0.1:9/v1"  # rule-decided math never asks a model
PROMPT = "What is 6 times 7?"
HONEST = ["So the product is $\\boxed{42}$.", "6 * 7 = 42, so the answer is 42."]

HOSTILE = {
    "repeated letters": "a" * 20_000,
    "repeated digits": "9" * 20_000,
    "nested boxes": "\\boxed{" * 3_000 + "42" + "}" * 3_000,
    "open brackets": "(" * 20_000,
    "open braces": "{" * 20_000,
    "a fraction tower": "\\boxed{" + "\\frac{" * 500 + "1}{2}" * 500 + "}",
    "a power tower": "\\boxed{" + "2^{" * 300 + "2" + "}" * 300 + "}",
    "a lone surrogate": "\ud800 \\boxed{42} \udfff",
    "a code flood": "```python\n" + "x = 1\n" * 20_000 + "```",
    "NUL bytes": "\x00" * 1_000 + "\\boxed{41}",
    "a long sum": "\\boxed{" + "1+" * 20_000 + "1}",
    "many boxes": "\\boxed{1}" * 20_000,
    "unclosed comments": "<!--" * 10_000,
    "colour switches": "\\color{white}" * 5_000,
    "an answer phrase said again": "The answer is " * 20_000,  # 74 s to read before the phrase was bounded
    "one line of fences": "```" * 20_000,  # 39 s: the fence pattern backtracked
    "one line of dollars": "$" * 20_000,  # 4.5 s: the repeated-letter pattern backtracked
    "blank lines": "    x\n\n" * 50_000,  # 12 s: the `A:` line pattern ran over every blank line from each
    "a correction said again": "Wait, I mean " * 20_000,
    "unmatched code spans": "```x`" * 20_000,
    "unclosed details": "<details>" * 20_000,
    "comments in display math": "$$" + "% x\n" * 20_000,
}

responses = st.one_of(
    st.sampled_from(list(HOSTILE.values())),
    st.text(max_size=400),
    st.builds(
        lambda c, n: c * n, st.sampled_from(["{", "(", "\\boxed{", "$", "9", "<!--", "```\n"]), st.integers(1, 5000)
    ),
)


def _post(client: TestClient, body: dict[str, list[str]]) -> tuple[int, Any]:
    """`/reward` with the body as a trainer's JSON carries it (ASCII, `\\ud800` escaped: a lone surrogate too):
    the status, and the reply's JSON (its text where it is not 200)."""
    reply = client.post("/reward", content=json.dumps(body), headers={"content-type": "application/json"})
    return reply.status_code, reply.json() if reply.status_code == 200 else reply.text


@pytest.mark.parametrize("name", list(HOSTILE))
@pytest.mark.timeout(60)
def test_every_reader_is_total_and_bounded_on_a_hostile_response(name: str) -> None:
    text = HOSTILE[name]
    start = time.perf_counter()
    commits_to_nothing(text, PROMPT)
    extract_final_answer(text)
    assert not _match(text, "42", 0).equivalent or name == "a lone surrogate"
    assert time.perf_counter() - start < 20  # a bound, not a benchmark: an unbounded reader never returns


async def test_a_hostile_rollout_leaves_its_honest_siblings_their_reward_on_every_path(tmp_path: Path) -> None:
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=NO_MODEL) as judge:
        for name, hostile in HOSTILE.items():
            batch = [*HONEST, hostile]
            verl = await compute_score_batch_async(["m"] * 3, batch, ["42"] * 3, [{"prompt": PROMPT}] * 3, judge=judge)
            assert [r["score"] for r in verl[:2]] == [1.0, 1.0] and all(r["valid"] for r in verl[:2]), (name, verl)
            trl = await AsyncJudgeReward(judge)([PROMPT] * 3, batch, reference=["42"] * 3)
            assert trl[:2] == [1.0, 1.0], (name, trl)
    app = create_app(ServerConfig(), model_url=NO_MODEL, store=tmp_path / "s.db")
    with TestClient(app) as client:
        for name, hostile in HOSTILE.items():
            body = {"query": [PROMPT + r for r in (*HONEST, hostile)], "prompts": [PROMPT] * 3, "labels": ["42"] * 3}
            status, reply = _post(client, body)
            assert status == 200, (name, reply)
            assert reply["rewards"][:2] == [1.0, 1.0], name


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(responses, min_size=1, max_size=3))
def test_no_reward_function_raises_on_any_response(tmp_path_factory: pytest.TempPathFactory, batch: list[str]) -> None:
    """verl's batch function, TRL's reward function and the server answer every rollout of any batch: a number
    (verl, the server) or a number or None (TRL), never an exception."""
    import asyncio

    tmp = tmp_path_factory.mktemp("any")
    n = len(batch)

    async def trainers() -> None:
        async with Judge.load("evidence", store=tmp / "r.db", model_url=NO_MODEL) as judge:
            verl = await compute_score_batch_async(["m"] * n, batch, ["42"] * n, [{"prompt": PROMPT}] * n, judge=judge)
            assert len(verl) == n and all(isinstance(r["score"], float) for r in verl)
            trl = await AsyncJudgeReward(judge)([PROMPT] * n, batch, reference=["42"] * n)
            assert len(trl) == n and all(s is None or isinstance(s, float) for s in trl)

    asyncio.run(trainers())
    app = create_app(ServerConfig(), model_url=NO_MODEL, store=tmp / "s.db")
    with TestClient(app) as client:
        status, reply = _post(client, {"query": batch, "prompts": [""] * n, "labels": ["42"] * n})
    assert status == 200 and len(reply["rewards"]) == n


async def test_a_group_whose_run_fails_is_judged_member_by_member(tmp_path: Path) -> None:
    """Whatever makes a group's run fail (here: a run that raises on one response, standing in for a check that
    breaks on it), its siblings are judged alone and keep their ruling; only that response has none."""
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=NO_MODEL) as judge:

        async def breaks_on_one(request: JudgeRequest) -> Trajectory:
            if any("BREAK" in c.content for c in request.candidates):
                raise RuntimeError("a check broke on this response")
            return await judge.arun(request)

        request = group_request("g", PROMPT, [*HONEST, "BREAK \\boxed{42}", "\\boxed{41}"], {"reference": "42"})
        ruled = await judge_members(breaks_on_one, request)
    assert [v.valid for v, _ in ruled] == [True, True, False, True]
    assert [v.scores for v, _ in ruled if v.valid] == [[1.0], [1.0], [0.0]]
    assert "a check broke" in (ruled[2][0].error or "")
    assert len({tid for _, tid in ruled}) == 4  # judged alone: each its own trajectory (the broken one none)
