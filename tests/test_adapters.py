"""Trainer adapters, called as TRL and verl call reward functions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.fake_openai import FakeOpenAI, Reply
from judgegraph.adapters import AsyncJudgeReward, JudgeReward, compute_score, compute_score_async
from judgegraph.adapters import verl as verl_adapter
from judgegraph.backends import EmbeddedServer


def test_trl_reward_function_with_dataset_columns(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.default = Reply(content='{"scores": {"A": 10}, "confidence": 1, "rationale": "fine"}')
    reward = JudgeReward("evidence", store=tmp_path / "r.db", model_url=fake_openai.url)
    try:
        prompts = [
            [{"role": "user", "content": "What is 6*7?"}],
            [{"role": "user", "content": "6*7?"}],
            [{"role": "user", "content": "Say hi."}],
        ]
        completions = [
            [{"role": "assistant", "content": "It is 42."}],
            [{"role": "assistant", "content": "41"}],
            [{"role": "assistant", "content": "Hi!"}],
        ]
        scores = reward(prompts, completions, reference=["42", "42", None], trainer_state=None, log_metric=print)
    finally:
        reward.close()
    assert scores == [1.0, 0.0, 1.0]  # the reference decides the first two; the model the third
    assert reward.__name__ == "judgegraph_evidence"


async def test_trl_async_reward_and_ground_truth_json(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    reward = AsyncJudgeReward("evidence", store=tmp_path / "r.db", model_url=fake_openai.url)
    truth = json.dumps({"constraints": [{"kind": "no_commas"}]})
    try:
        scores = await reward(["Write a line."] * 2, ["no commas here", "one, two"], ground_truth=[truth, truth])
    finally:
        await reward.aclose()
    assert scores == [1.0, 0.0]


async def test_verl_compute_score(fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JUDGEGRAPH_MODEL_URL", fake_openai.url)
    monkeypatch.setenv("JUDGEGRAPH_STORE", str(tmp_path / "r.db"))
    monkeypatch.setattr(verl_adapter, "_JUDGES", {})
    right = await compute_score_async("gsm8k", "... so the answer is 72.", "72", {"index": 3, "prompt": "Natalia..."})
    wrong = await compute_score_async("gsm8k", "#### 70", "72", {"index": 4})
    assert right["score"] == 1.0 and right["valid"] and right["decided_by"] == "evidence"
    assert wrong["score"] == 0.0 and right["trajectory_id"].startswith("run_")
    with pytest.raises(ValueError, match="allowed"):
        await compute_score_async("x", "y", json.dumps({"surprise": 1}))
    for judge in verl_adapter._JUDGES.values():
        await judge.aclose()


def test_verl_sync_form(fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JUDGEGRAPH_MODEL_URL", fake_openai.url)
    monkeypatch.setenv("JUDGEGRAPH_STORE", str(tmp_path / "r.db"))
    monkeypatch.setattr(verl_adapter, "_JUDGES", {})
    try:
        assert compute_score("math", "The answer is \\boxed{3/4}", "0.75")["score"] == 1.0
    finally:
        for judge in verl_adapter._JUDGES.values():
            judge.close()


@pytest.mark.llm
async def test_trl_and_verl_style_calls_score_a_batch_on_the_embedded_model(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    async with EmbeddedServer() as server:
        reward = AsyncJudgeReward("evidence", store=tmp_path / "r.db", model_url=server.base_url)
        try:
            scores = await reward(
                ["2+2?", "Greet me.", "3*3?"], ["The answer is 4.", "Hello!", "It is 10."], reference=["4", None, "9"]
            )
        finally:
            await reward.aclose()
        assert scores[0] == 1.0 and scores[2] == 0.0 and (scores[1] is None or 0.0 <= scores[1] <= 1.0)
        monkeypatch.setenv("JUDGEGRAPH_MODEL_URL", server.base_url)
        monkeypatch.setenv("JUDGEGRAPH_STORE", str(tmp_path / "v.db"))
        monkeypatch.setattr(verl_adapter, "_JUDGES", {})
        results = [
            await compute_score_async("math", s, "9", {"index": i}) for i, s in enumerate(["9", "The answer is 8."])
        ]
        for judge in verl_adapter._JUDGES.values():
            await judge.aclose()
    assert [r["score"] for r in results] == [1.0, 0.0]
