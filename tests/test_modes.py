"""Modes behind one Verdict: pointwise, pairwise, listwise, best-of-N (knockout, round-robin, early exit)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.fake_openai import FakeOpenAI, Reply, prefers
from judgegraph import Judge
from judgegraph.agents import judges

ESSAYS = ["plain answer one", "the BEST answer here", "plain answer three", "plain answer four", "plain answer five"]


async def _run(server: FakeOpenAI, request: dict[str, Any], tmp_path: Path, judge: str = "evidence"):  # type: ignore[no-untyped-def]
    async with Judge.load(judge, store=tmp_path / "r.db", model_url=server.url) as j:
        return await j.arun(request)


@pytest.mark.parametrize("tournament", ["knockout", "round_robin"])
async def test_best_of_n_tournaments_find_the_preferred_candidate(
    tournament: str, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    name = f"evidence_{tournament}"
    judges.register(
        name,
        judges.get("evidence").model_copy(update={"name": name, "options": {"tournament": tournament}}),
        replace=True,
    )
    fake_openai.responder = prefers("BEST")
    t = await _run(
        fake_openai, {"id": "b", "mode": "best_of_n", "prompt": "Answer.", "candidates": ESSAYS}, tmp_path, name
    )
    v = t.verdict
    assert v is not None and v.valid and v.winner == 1 and v.ranking[0] == 1 and v.consistent
    assert "tournament" in t.path and "deliberate" not in t.path
    pairs = len(fake_openai.requests) // 2  # both orders per comparison
    assert pairs == (4 if tournament == "knockout" else 10)  # n-1 matches, or every pair of 5
    if tournament == "round_robin":
        assert v.scores[1] == 1.0 and all(s < 1.0 for i, s in enumerate(v.scores) if i != 1)


def _best_of_n(request_id: str, candidates: list[str]) -> dict[str, object]:
    """A best-of-n request on 2+2 that its reference can check."""
    return {"id": request_id, "mode": "best_of_n", "prompt": "2+2?", "reference": "4", "candidates": candidates}


async def test_best_of_n_exits_early_when_one_candidate_passes_every_check(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    request = _best_of_n("e", ["It is 5.", "It is 3.", "The answer is 4.", "It is 22."])
    t = await _run(fake_openai, request, tmp_path)
    assert t.verdict is not None and t.verdict.winner == 2 and t.verdict.decided_by == "evidence"
    assert fake_openai.requests == [] and "tournament" not in t.path


async def test_candidates_failing_checks_are_out_before_the_tournament(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = prefers("clearly")
    request = _best_of_n("f", ["It is 5, clearly.", "The answer is 4.", "Clearly the answer is 4.", "The answer is 4!"])
    t = await _run(fake_openai, request, tmp_path)
    v = t.verdict
    assert v is not None and v.winner in (1, 2, 3) and v.scores[0] == 0.0
    assert all("It is 5, clearly" not in r["messages"][1]["content"] for r in fake_openai.requests)


async def test_listwise_ranks_every_candidate(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.default = Reply(content='{"scores": {"A": 3, "B": 9, "C": 6}, "confidence": 0.7, "rationale": "r"}')
    t = await _run(fake_openai, {"id": "l", "mode": "listwise", "prompt": "p", "candidates": ESSAYS[:3]}, tmp_path)
    v = t.verdict
    assert v is not None and v.ranking == [1, 2, 0] and v.winner == 1 and len(v.scores) == 3


SOLUTION = "Step 1: The image shows 3 red apples.\nStep 2: Each apple costs 2 dollars.\nStep 3: So 3 * 2 = 6 dollars."


async def test_steps_are_scored_one_by_one_and_image_steps_gated_without_image_evidence(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_openai.default = Reply(
        content='{"steps": {"1": 2, "2": 10, "3": 10}, "confidence": 0.6, "rationale": "step 1"}'
    )
    request = {"id": "s", "mode": "steps", "prompt": "How much do the apples cost?", "candidates": [SOLUTION]}
    t = await _run(fake_openai, request, tmp_path)
    v = t.verdict
    assert v is not None and v.valid and v.scores == [1.0]  # step 1 rests on an image nobody could check
    steps = {c.name: c for c in v.criteria}
    assert steps["step 1"].source == "model (gated)" and "gated" in steps["step 1"].detail
    assert steps["step 2"].passed is True and len(steps) == 3
    schema = fake_openai.requests[0]["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["steps"]["required"] == ["1", "2", "3"]
    assert "<step_3_" in fake_openai.requests[0]["messages"][1]["content"]


async def test_a_wrong_final_answer_caps_the_steps_score(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.default = Reply(
        content='{"steps": {"1": 10, "2": 10, "3": 10}, "confidence": 0.9, "rationale": "fine"}'
    )
    request = {"id": "s", "mode": "steps", "prompt": "Cost?", "reference": "8", "candidates": [SOLUTION]}
    t = await _run(fake_openai, request, tmp_path)
    assert t.verdict is not None and t.verdict.scores == [0.0] and "deliberate" in t.path
