"""Commit-first deliberation (the `commit_first` judge): where no evidence decides, the model writes its own
answer before any response is shown to it, and each response's final answer is scored against it by rule; a
gullible model that gives whatever it reads the top score then rewards no confident wrong answer."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from benchmarks.fake_openai import FakeOpenAI, Reply
from judgegraph import Judge
from judgegraph.adapters import compute_score_batch_async
from judgegraph.adapters import verl as verl_adapter
from judgegraph.graphs.evidence.commit_first import own_answer_of, ruling_against
from judgegraph.schema import JudgeRequest

PROMPT = "A box holds 6 rows of 7 eggs. How many eggs are in the box?"
RIGHT = "6 rows of 7 is 6 * 7 = 42.\nThe answer is 42."
WRONG = "6 rows of 7 is 6 + 7 = 13.\nThe answer is 13."
PROSE = "Eggs come in rows, and counting them row by row is a fine way to count them all."


def _gullible(own: str) -> Any:
    """A model that solves the task (its own answer: `own`) when asked to, and gives every response it reads the
    top score."""

    def respond(body: dict[str, Any]) -> Reply:
        text = json.dumps(body["messages"])
        if "Solve the task below yourself" in text:
            return Reply(content=f"Counting: 6 * 7.\nFinal answer: {own}")
        shown = sorted(set(re.findall(r"<response_([A-Z])_", text)))
        if "scores" in json.dumps(body):
            return Reply(content=json.dumps({"scores": dict.fromkeys(shown or ["A"], 10), "rationale": "great"}))
        return Reply(content=json.dumps({"winner": "A", "confidence": 0.9, "rationale": "great"}))

    return respond


async def test_a_group_is_scored_against_the_models_own_answer(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = _gullible("42")
    request = {"id": "g", "mode": "pointwise", "prompt": PROMPT, "candidates": [RIGHT, WRONG, PROSE, ":"]}
    async with Judge.load("commit_first", store=tmp_path / "r.db", model_url=fake_openai.url) as judge:
        original = await judge.arun(request)
        report = await judge.areplay(original)
    verdict = original.verdict
    assert verdict is not None and verdict.valid and verdict.decided_by == "model"
    assert verdict.scores == [1.0, 0.0, 1.0, 0.0]  # the prose states no answer: the model reads it
    own_request = json.dumps(fake_openai.requests[0]["messages"])
    assert "Solve the task below yourself" in own_request and "13" not in own_request and "42" not in own_request
    read = [json.dumps(r["messages"]) for r in fake_openai.requests if "<response_" in json.dumps(r)]
    assert len(read) == 1 and PROSE[:30] in read[0]  # only the response without a final answer was read
    assert report.identical, report.divergence


async def test_a_pair_is_decided_without_reading_it(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = _gullible("42")
    async with Judge.load("commit_first", store=tmp_path / "r.db", model_url=fake_openai.url) as judge:
        verdict = await judge.ajudge({"id": "p", "prompt": PROMPT, "candidates": [WRONG, RIGHT]})
    assert verdict.winner == 1 and verdict.consistent and "commit-first" in verdict.rationale
    assert not [r for r in fake_openai.requests if "<response_" in json.dumps(r)]  # no response was read


async def test_without_an_own_answer_the_model_reads_as_before(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = _gullible("none")
    async with Judge.load("commit_first", store=tmp_path / "r.db", model_url=fake_openai.url) as judge:
        verdict = await judge.ajudge({"id": "n", "prompt": PROMPT, "candidates": [WRONG, RIGHT]})
    read = [r for r in fake_openai.requests if "<response_" in json.dumps(r)]
    assert len(read) == 2 and verdict.consistent is False  # no own answer: both orders read (and disagree)


@pytest.mark.parametrize(("trusted", "expected"), [(True, [1.0, 0.0]), (False, [None, None])])
async def test_the_reward_follows_commit_first_where_the_model_is_trusted(
    trusted: bool,
    expected: list[float | None],
    fake_openai: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """The evidence judge with the same gullible model rewards the confident wrong answer; commit-first does not.
    Its scores are still the model's (not evidence): an untrusted model's abstain."""
    fake_openai.responder = _gullible("42")
    monkeypatch.setenv("JUDGEGRAPH_MODEL_URL", fake_openai.url)
    monkeypatch.setenv("JUDGEGRAPH_STORE", str(tmp_path / "r.db"))
    monkeypatch.setenv("JUDGEGRAPH_MODEL_TRUSTED", str(trusted).lower())

    async def rewards(judge: str) -> list[float | None]:
        monkeypatch.setattr(verl_adapter, "_JUDGES", {})
        try:
            out = await compute_score_batch_async(
                ["d", "d"], [RIGHT, WRONG], [None, None], [{"prompt": PROMPT, "judge": judge}] * 2
            )
        finally:
            for j in verl_adapter._JUDGES.values():
                await j.aclose()
        return [r["score"] if r["valid"] else None for r in out]

    assert await rewards("commit_first") == expected
    if trusted:
        assert await rewards("evidence") == [1.0, 1.0]  # reading first, the gullible model rewards both


def test_ruling_against_an_own_answer() -> None:
    def request(*candidates: str, mode: str = "pointwise") -> JudgeRequest:
        return JudgeRequest.model_validate({"id": "r", "mode": mode, "prompt": PROMPT, "candidates": list(candidates)})

    assert own_answer_of("work\nFinal answer: 42") == "42"
    assert own_answer_of("an essay task\nFinal answer: none") is None and own_answer_of("no answer line") is None
    ruled = ruling_against(request(RIGHT, "\\boxed{42.0}", WRONG, "The answer is 41 or 42."), "42")
    assert ruled is not None and ruled.scores == [1.0, 1.0, 0.0, 0.0]  # a hedge is not the answer
    assert ruling_against(request(RIGHT, PROSE), "42") is None  # one states no final answer: the model reads
    pair = ruling_against(request(RIGHT, "The answer is 42.", mode="pairwise"), "42")
    assert pair is not None and pair.winner is None  # both match: a tie
