"""The judge's own reward, stored with each labelled run."""

from __future__ import annotations

from pathlib import Path

from benchmarks.fake_openai import FakeOpenAI, Reply
from judgegraph import Judge
from judgegraph.runtime._reward import RewardConfig, judge_reward
from judgegraph.schema import JudgeRequest, ToolCall, ToolCallEvent, ToolResult, ToolResultEvent, Trajectory, Verdict
from judgegraph.store import TrajectoryStore

MATH = {"id": "m", "prompt": "6*7?", "candidates": ["41", "42"], "reference": "42", "label": {"winner": 1}}


def _run(winner: int | None, valid: bool = True, calls: list[tuple[str, bool]] = ()) -> Trajectory:  # type: ignore[assignment]
    request = JudgeRequest(id="r", prompt="p", candidates=["a", "b"], label=1)
    verdict = Verdict(valid=True, winner=winner, scores=[0.5, 0.5]) if valid else Verdict.invalid("no JSON")
    t = Trajectory(judge="j", request=request, label=request.label, verdict=verdict)
    for i, (source, ok) in enumerate(calls):
        call = ToolCall(id=f"c{i}", name="match_reference", source=source)
        t.events += [
            ToolCallEvent(call=call),
            ToolResultEvent(result=ToolResult(call_id=call.id, name=call.name, ok=ok)),
        ]
    return t


def test_tir_rule_full_credit_only_when_right_and_well_formed() -> None:
    assert judge_reward(_run(1)) == 1.0
    assert judge_reward(_run(0)) == 0.0
    assert judge_reward(_run(None, valid=False)) == 0.0
    unlabelled = _run(1).model_copy(update={"label": None})
    assert judge_reward(unlabelled) is None


def test_tool_bonus_counts_only_the_models_successful_calls() -> None:
    config = RewardConfig(tool_bonus=0.05, max_tool_bonus=0.1)
    calls = [("model", True), ("model", False), ("plan", True)]
    assert judge_reward(_run(1, calls=calls), config) == 1.05
    assert judge_reward(_run(1, calls=[("model", True)] * 5), config) == 1.1  # capped
    assert judge_reward(_run(0, calls=calls), config) == 0.0  # no bonus for a wrong verdict


async def test_reward_is_stored_with_the_run(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.default = Reply(content="not json")
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=fake_openai.url) as judge:
        right = await judge.arun(MATH)
        invalid = await judge.arun({"id": "o", "prompt": "Greet.", "candidates": ["Hi!", "Hello there!"], "label": 0})
    store = TrajectoryStore(tmp_path / "r.db")
    assert store.get(right.id).reward == 1.0 and store.get(invalid.id).reward == 0.0
