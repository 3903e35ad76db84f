"""Group judgments (issue #23): the k rollouts of one prompt judged in one run, one trajectory, each rollout its
own reward; the same rewards and per-response exports as k judgments of one rollout each; the trainers' batch
interfaces (verl's batch reward manager, TRL, OpenRLHF's /reward) grouping by prompt; a failed group answered
with a reason for every rollout, never a score."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from benchmarks.fake_openai import FakeOpenAI, Reply
from judgegraph import Judge
from judgegraph.adapters import (
    AsyncJudgeReward,
    VerlReward,
    compute_score,
    compute_score_async,
    compute_score_batch_async,
)
from judgegraph.adapters import verl as verl_adapter
from judgegraph.adapters._coalesce import Coalescer
from judgegraph.adapters._common import group_request, group_scores, pointwise_request
from judgegraph.output._export import exporters
from judgegraph.serving import ServerConfig, create_app
from judgegraph.store import TrajectoryStore

NO_MODEL = "http://127.0.0.1:9/v1"  # nothing answers: a rule-decided group never asks
PER_RESPONSE_IDS = ("trajectory_id", "request_id", "response_index", "group_size")


def _math_rows(shared_data: Path, n: int) -> list[dict[str, Any]]:
    with (shared_data / "math" / "math_cot_100.jsonl").open() as f:
        return [json.loads(next(f)) for _ in range(n)]


def _content(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Export rows without what names the run and the response's place in it, or how long a check took."""
    out = []
    for row in rows:
        checks = [{**c, "data": {k: v for k, v in c["data"].items() if k != "duration_s"}} for c in row["checks"]]
        out.append({**{k: v for k, v in row.items() if k not in PER_RESPONSE_IDS}, "checks": checks})
    return out


async def _group_and_singles(judge: Judge, prompt: str, responses: list[str], evidence: dict[str, Any]) -> Any:
    group = await judge.arun(group_request("g", prompt, responses, evidence))
    singles = [await judge.arun(pointwise_request(f"s{i}", prompt, r, evidence)) for i, r in enumerate(responses)]
    return group, singles


async def test_a_group_judgment_gives_what_k_single_judgments_give(shared_data: Path, tmp_path: Path) -> None:
    """Real MATH rollouts (8 a problem): one group run a problem, the same scores and per-response exports."""
    rows = _math_rows(shared_data, 6)
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=NO_MODEL) as judge:
        for row in rows:
            group, singles = await _group_and_singles(judge, row["question"], row["response"], {"reference": row["gt"]})
            assert group.verdict is not None and group.verdict.valid
            k = len(row["response"])
            assert group_scores(group.verdict, k) == [group_scores(t.verdict, 1)[0] for t in singles if t.verdict]
            assert [s >= 0.5 for s in group_scores(group.verdict, k) if s is not None] == row["score"]
            export = exporters.get("responses")
            grouped = list(export([group]))
            assert [r["response_index"] for r in grouped] == list(range(k)) and {r["group_size"] for r in grouped} == {
                k
            }
            assert _content(grouped) == _content([r for t in singles for r in export([t])])
            report = await judge.areplay(group)  # the group's run replays exactly from its record
            assert report.identical
    assert TrajectoryStore(tmp_path / "r.db").count() == len(rows) * 9


async def test_code_rollouts_share_their_tests_and_keep_their_own_results(tmp_path: Path) -> None:
    responses = [
        "def add(a, b):\n    return a + b\n",
        "def add(a, b):\n    return a - b\n",
        "```python\ndef add(a, b):\n    return b + a\n```",
        "I would write a function that adds them.",
    ]
    evidence = {"tests": ["assert add(1, 2) == 3", "assert add(-1, 1) == 0"]}
    async with Judge.load("evidence", store=False, model_url=NO_MODEL, sandbox="process") as judge:
        group, singles = await _group_and_singles(judge, "Write add(a, b).", responses, evidence)
    assert group.verdict is not None and group_scores(group.verdict, 4)[:3] == [1.0, 0.0, 1.0]
    export = exporters.get("responses")
    grouped = list(export([group]))
    assert _content(grouped) == _content([r for t in singles for r in export([t])])
    assert [r["checks"][0]["data"]["all_passed"] for r in grouped[:3]] == [True, False, True]


async def test_verl_batch_reward_groups_rollouts_by_prompt(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Called as verl's batch reward manager calls it: four lists, the rollouts of two prompts interleaved."""
    monkeypatch.setenv("JUDGEGRAPH_MODEL_URL", fake_openai.url)
    monkeypatch.setenv("JUDGEGRAPH_STORE", str(tmp_path / "r.db"))
    monkeypatch.setattr(verl_adapter, "_JUDGES", {})
    solutions = ["The answer is 72.", "#### 5", "So 70.", "the answer is 5", "72", "Answer: 4"]
    sources = ["gsm8k"] * 6
    truths = ["72", "5", "72", "5", "72", "5"]
    infos = [{"index": 10}, {"index": 11}, {"index": 10}, {"index": 11}, {"index": 10}, {"index": 11}]
    batch = await compute_score_batch_async(
        data_sources=sources, solution_strs=solutions, ground_truths=truths, extra_infos=infos
    )
    assert [r["score"] for r in batch] == [1.0, 1.0, 0.0, 1.0, 1.0, 0.0]
    assert all(r["valid"] and r["group_size"] == 3 for r in batch)
    assert len({r["trajectory_id"] for r in batch}) == 2  # one run a prompt
    single = [
        await compute_score_async(s, x, t, i) for s, x, t, i in zip(sources, solutions, truths, infos, strict=True)
    ]
    assert [r["score"] for r in single] == [r["score"] for r in batch]
    with pytest.raises(Exception, match="same length"):
        await compute_score_batch_async(sources, solutions[:2], truths, infos)
    for judge in verl_adapter._JUDGES.values():
        await judge.aclose()


async def test_verls_per_rollout_calls_are_coalesced_into_groups(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """As verl's reward loop calls it: one call per rollout, all at once. Each prompt's calls are judged as one
    group (by the window, or as soon as `group_size` arrived), each its own reward; window 0 judges each alone."""
    monkeypatch.setenv("JUDGEGRAPH_MODEL_URL", fake_openai.url)
    monkeypatch.setenv("JUDGEGRAPH_STORE", str(tmp_path / "r.db"))
    monkeypatch.setattr(verl_adapter, "_JUDGES", {})
    solutions = ["The answer is 72.", "#### 5", "So 70.", "the answer is 5", "72", "Answer: 4"]
    truths = ["72", "5"] * 3
    infos = [{"index": 10 + i % 2} for i in range(6)]

    async def all_at_once(**kwargs: Any) -> list[VerlReward]:
        calls = zip(solutions, truths, infos, strict=True)
        return list(await asyncio.gather(*(compute_score_async("gsm8k", x, t, i, **kwargs) for x, t, i in calls)))

    try:
        windowed = await all_at_once()
        # complete groups close at once: a window far longer than the test's timeout is never waited out
        complete = await asyncio.wait_for(all_at_once(group_window_s=3600, group_size=3), timeout=60)
        alone = await all_at_once(group_window_s=0)
    finally:
        for judge in verl_adapter._JUDGES.values():
            await judge.aclose()
    for grouped in (windowed, complete):
        assert [r["score"] for r in grouped] == [1.0, 1.0, 0.0, 1.0, 1.0, 0.0]
        assert [r["group_size"] for r in grouped] == [3] * 6
        assert len({r["trajectory_id"] for r in grouped[0::2]}) == len({r["trajectory_id"] for r in grouped[1::2]}) == 1
    assert [r["score"] for r in alone] == [r["score"] for r in windowed]
    assert [r["group_size"] for r in alone] == [1] * 6 and len({r["trajectory_id"] for r in alone}) == 6


def test_verls_sync_calls_from_many_threads_share_one_judge_and_group(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """verl runs a sync reward function in executor threads, all at once: one judge is loaded (not one a thread),
    and the calls meet on its loop, so a prompt's rollouts are still one group (complete at 4: calls that met on
    different loops would wait out the window and come back as smaller groups)."""
    monkeypatch.setenv("JUDGEGRAPH_MODEL_URL", fake_openai.url)
    monkeypatch.setenv("JUDGEGRAPH_STORE", str(tmp_path / "r.db"))
    monkeypatch.setattr(verl_adapter, "_JUDGES", {})
    solutions = ["9", "The answer is 8.", "\\boxed{9}", "nine? no: 10"]
    try:
        with ThreadPoolExecutor(len(solutions)) as pool:
            results = list(
                pool.map(
                    lambda s: compute_score("math", s, "9", {"index": 1}, group_window_s=60, group_size=4), solutions
                )
            )
    finally:
        for judge in verl_adapter._JUDGES.values():
            judge.close()
    assert len(verl_adapter._JUDGES) == 1
    assert [r["score"] for r in results] == [1.0, 0.0, 1.0, 0.0]
    assert [r["group_size"] for r in results] == [4] * 4 and len({r["trajectory_id"] for r in results}) == 1


async def test_a_coalescer_tells_every_member_why_its_group_failed() -> None:
    """A group whose judging raises reaches every caller with the error (never a result); a caller cancelled
    while waiting does not cancel its siblings' results; the next group of the same key starts afresh."""
    calls: list[list[str]] = []

    async def judge(members: list[str]) -> list[str]:
        calls.append(members)
        await asyncio.sleep(0.01)
        if "bad" in members:
            raise RuntimeError("the judge broke")
        return [m.upper() for m in members]

    coalescer: Coalescer[str, str] = Coalescer(judge)
    failed = await asyncio.gather(
        *(coalescer.submit("k", m, window_s=0.05) for m in ("a", "bad")), return_exceptions=True
    )
    assert [str(e) for e in failed] == ["the judge broke"] * 2
    waiting = [asyncio.create_task(coalescer.submit("k", m, window_s=0.05)) for m in ("x", "y", "z")]
    await asyncio.sleep(0)
    waiting[0].cancel()
    assert await asyncio.gather(*waiting[1:]) == ["Y", "Z"]
    assert calls == [["a", "bad"], ["x", "y", "z"]] and coalescer.pending() == 0


async def test_a_failed_group_answers_every_rollout_with_its_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No reference and no model: the group cannot be ruled, and each rollout says so (score 0.0, never a guess)."""
    monkeypatch.setenv("JUDGEGRAPH_MODEL_URL", NO_MODEL)
    monkeypatch.setenv("JUDGEGRAPH_STORE", str(tmp_path / "r.db"))
    monkeypatch.setattr(verl_adapter, "_JUDGES", {})
    batch = await compute_score_batch_async(
        ["chat"] * 3, ["Hello!", "Hi.", "Hey"], [None] * 3, [{"prompt": "Greet me.", "index": 0}] * 3
    )
    assert all(r["score"] == 0.0 and not r["valid"] and "no model is reachable" in r["error"] for r in batch)
    for judge in verl_adapter._JUDGES.values():
        await judge.aclose()


async def test_trl_scores_each_prompts_generations_as_one_group(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    reward = AsyncJudgeReward("evidence", store=tmp_path / "r.db", model_url=fake_openai.url)
    prompts = ["What is 6*7?"] * 3 + ["What is 2+2?"] * 3  # num_generations = 3
    completions = ["42", "It is 42.", "41", "4", "5", "The answer is 4."]
    try:
        scores = await reward(prompts, completions, reference=["42"] * 3 + ["4"] * 3)
    finally:
        await reward.aclose()
    assert scores == [1.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    runs = TrajectoryStore(tmp_path / "r.db").list_runs()
    assert len(runs) == 2


def test_openrlhf_reward_groups_a_prompts_samples(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    store = tmp_path / "r.db"
    app = create_app(ServerConfig(), model_url=fake_openai.url, store=store)
    prompts = ["Q: 3*3? A:", "Q: 3*3? A:", "Q: 2*5? A:", "Q: 3*3? A:"]
    responses = [" 9", " 6", " 10", " nine, i.e. 9"]
    with TestClient(app) as client:
        body = {
            "query": [p + r for p, r in zip(prompts, responses, strict=True)],
            "prompts": prompts,
            "labels": ["9", "9", "10", "9"],
        }
        reply = client.post("/reward", json=body)
    assert reply.status_code == 200, reply.text
    data = reply.json()
    assert data["rewards"] == [1.0, 0.0, 1.0, 1.0] and all(data["extra_logs"]["valid"])
    ids = data["extra_logs"]["trajectory_id"]
    assert ids[0] == ids[1] == ids[3] != ids[2]
    assert TrajectoryStore(store).count() == 2


def _kind_scores(body: dict[str, Any]) -> Reply:
    """A model that scores each response alone: 9 for a polite one, 2 otherwise (its letters from the schema)."""
    keys = body["response_format"]["json_schema"]["schema"]["properties"]["scores"]["required"]
    user = body["messages"][1]["content"]
    score = 9 if "please" in user.split("<response_A_", 1)[-1] else 2
    return Reply(content=json.dumps({"scores": dict.fromkeys(keys, score), "confidence": 0.8, "rationale": "tone"}))


async def test_a_model_judged_group_scores_each_rollout_alone(fake_openai: FakeOpenAI) -> None:
    """Nothing to check: the model scores each of a group's rollouts in a call of its own, never against its
    siblings, the calls sharing everything before the response (a server's prefix cache serves it once); the
    scores and per-response rows are those of k judgments of one rollout each."""
    fake_openai.responder = _kind_scores
    responses = [f"{'Yes, please' if i % 3 == 0 else 'No'} sit down, guest {i}." for i in range(30)]  # past Z
    async with Judge.load("evidence", store=False, model_url=fake_openai.url) as judge:
        group, singles = await _group_and_singles(judge, "Invite the guest to sit.", responses, {})
    assert group.verdict is not None and group.verdict.valid and group.verdict.decided_by == "model"
    expected = [(9 - 1) / 9 if i % 3 == 0 else (2 - 1) / 9 for i in range(30)]
    assert group_scores(group.verdict, 30) == pytest.approx(expected)
    turns = group.model_turns()
    assert len(turns) == 30 and all(t.request.messages[1]["content"].count("<response_A_") == 1 for t in turns)
    openings = [t.request.messages[1]["content"] for t in turns]
    shared = openings[0].split("<response_A_")[0]
    assert all(o.startswith(shared) for o in openings) and "Invite the guest" in shared
    export = exporters.get("responses")
    assert [r["score"] for r in export([group])] == [r["score"] for t in singles for r in export([t])]


async def test_a_rollout_whose_reply_is_unusable_is_asked_again_alone(fake_openai: FakeOpenAI) -> None:
    asked: list[str] = []

    def flaky(body: dict[str, Any]) -> Reply:
        user = body["messages"][1]["content"]
        asked.append(user)
        if "second" in user and asked.count(user) == 1:
            return Reply(content="I think it is fine.")  # not the JSON asked for: retried, this response only
        return _kind_scores(body)

    fake_openai.responder = flaky
    request = group_request("g", "Greet.", ["first, please", "second", "third"], {})
    async with Judge.load("evidence", store=False, model_url=fake_openai.url) as judge:
        t = await judge.arun(request)
    assert t.verdict is not None and t.verdict.valid and len(asked) == 4
    assert group_scores(t.verdict, 3) == pytest.approx([8 / 9, 1 / 9, 1 / 9])


def test_the_batch_api_groups_unlabelled_rollouts_of_one_prompt(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    store = tmp_path / "r.db"
    app = create_app(ServerConfig(), model_url=fake_openai.url, store=store)

    def item(i: int, prompt: str, response: str, reference: str, **more: Any) -> dict[str, Any]:
        base = {"id": f"r{i}", "mode": "pointwise", "prompt": prompt, "candidates": [response], "reference": reference}
        return base | more

    batch = [
        item(0, "3*3?", "The answer is 9.", "9"),
        item(1, "2*5?", "10", "10"),
        item(2, "3*3?", "6", "9"),
        item(3, "3*3?", "nine, so 9", "9"),
        item(4, "2*5?", "It is 11.", "10"),
        item(5, "3*3?", "9", "9", label={"scores": [1.0]}),  # labelled: judged alone, its correctness its own
    ]
    with TestClient(app) as client:
        grouped = client.post("/v1/judge/batch", json=batch).json()
        alone = [client.post("/v1/judge", json=b).json() for b in batch]
    assert [g["verdict"]["scores"] for g in grouped] == [a["verdict"]["scores"] for a in alone]
    assert [g["verdict"]["scores"] for g in grouped] == [[1.0], [1.0], [0.0], [1.0], [0.0], [1.0]]
    ids = [g["trajectory_id"] for g in grouped]
    assert ids[0] == ids[2] == ids[3] and ids[1] == ids[4] and len(set(ids)) == 3
    for g, a in zip(grouped, alone, strict=True):  # each its own criteria, named as candidate 0
        assert [c["candidate"] for c in g["verdict"]["criteria"]] == [c["candidate"] for c in a["verdict"]["criteria"]]
        assert [c["passed"] for c in g["verdict"]["criteria"]] == [c["passed"] for c in a["verdict"]["criteria"]]
