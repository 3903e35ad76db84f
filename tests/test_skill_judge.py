"""The skill judge (Skill-RM) and the aggregation strategies it names."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.fake_openai import FakeOpenAI, prefers
from judgegraph import Judge, JudgeRequest
from judgegraph.agents import select_skill, skills
from judgegraph.graphs._strategies import CriterionPolicy, aggregations
from judgegraph.schema import CriterionResult, NodeEvent

PAIR = JudgeRequest(id="p", prompt="p", candidates=["a", "b"])
POINT = JudgeRequest(id="q", prompt="p", candidates=["a", "b"], mode="pointwise")


def crit(candidate: int, passed: bool, score: float, source: str = "t", name: str = "c") -> CriterionResult:
    return CriterionResult(name=name, candidate=candidate, passed=passed, score=score, source=source)


@pytest.mark.parametrize(
    ("request_fields", "skill"),
    [
        ({"tests": ["assert f()"], "reference": "1"}, "code"),
        ({"reference": "1"}, "math"),
        ({"constraints": [{"kind": "no_commas"}]}, "instructions"),
        ({"documents": [{"id": "d", "text": "t"}]}, "documents"),
        ({"images": ["x.png"]}, "documents"),
        ({}, "chat"),
    ],
)
def test_skill_selection_follows_the_evidence(request_fields: dict[str, object], skill: str) -> None:
    request = JudgeRequest.model_validate({"id": "s", "prompt": "p", "candidates": ["a", "b"], **request_fields})
    assert select_skill(request).name == skill


def test_shipped_skills_have_guidance_and_known_strategies() -> None:
    assert set(skills.names()) >= {"code", "math", "instructions", "documents", "chat"}
    for name in skills:
        s = skills.get(name)
        assert s.guidance.strip() and s.aggregation in aggregations
    assert skills.get("documents").ordered_resources()[0].tool == "retrieve"  # cheapest first


def test_strategies() -> None:
    mixed = [
        crit(0, True, 1.0, "a", "x"),
        crit(0, False, 0.5, "b", "y"),
        crit(1, True, 0.6, "a", "x"),
        crit(1, True, 0.6, "b", "y"),
    ]
    assert aggregations.get("all_pass")(PAIR, mixed, {}).winner == 1  # type: ignore[union-attr]
    assert aggregations.get("weighted_sum")(PAIR, mixed, {}) is None  # 0.75 vs 0.6: no clear leader
    weights = {"a": CriterionPolicy(weight=5.0)}
    assert aggregations.get("weighted_sum")(PAIR, mixed, weights).winner == 0  # type: ignore[union-attr]
    assert aggregations.get("essential_first")(PAIR, mixed, {"b": CriterionPolicy(essential=True)}).winner == 1  # type: ignore[union-attr]
    assert aggregations.get("hard_gates")(PAIR, mixed, {"b": CriterionPolicy(gate=True)}).winner == 1  # type: ignore[union-attr]
    assert aggregations.get("hard_gates")(PAIR, mixed, {}) is None  # nothing gated: both through
    votes = aggregations.get("criterion_vote")(PAIR, mixed, {})
    assert votes is None  # one vote each
    unreliable = {"b": CriterionPolicy(reliability=0.2)}
    assert aggregations.get("reliability_gating")(PAIR, mixed, unreliable).winner == 0  # type: ignore[union-attr]
    assert aggregations.get("holistic")(PAIR, mixed, {}) is None
    assert aggregations.get("weighted_sum")(POINT, mixed, {}).scores == [0.75, 0.6]  # type: ignore[union-attr]
    assert aggregations.get("all_pass")(PAIR, mixed[:2], {}) is None  # candidate 1 unchecked: no decision


async def test_skill_judge_uses_the_skill_and_its_guidance(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = prefers("Hello there")
    async with Judge.load("skill", store=tmp_path / "r.db", model_url=fake_openai.url) as judge:
        decided = await judge.arun({"id": "m", "prompt": "6*7?", "candidates": ["41", "42"], "reference": "42"})
        chat = await judge.arun({"id": "c", "prompt": "Greet.", "candidates": ["Hello there!", "hi"]})
    assert decided.path == ["evidence"] and decided.verdict.decided_by == "evidence"  # type: ignore[union-attr]
    chosen = next(e for e in decided.events if isinstance(e, NodeEvent) and e.phase == "exit")
    assert chosen.node == "evidence" and chosen.update["skill"] == "math"
    assert chat.verdict is not None and chat.verdict.winner == 0 and chat.verdict.consistent
    assert chat.tool_results() == [] and "helpfulness" in fake_openai.requests[0]["messages"][1]["content"]
