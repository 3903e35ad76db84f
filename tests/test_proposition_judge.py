"""The proposition judge (MARCH) end to end: claims checked in isolated parallel tasks, aggregated per answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.fake_openai import FakeOpenAI, Reply
from judgegraph import Judge
from judgegraph.agents import judges
from judgegraph.graphs import ClaimTask
from judgegraph.tools import ClaimCheckInput
from tests.conftest import ROOT, demo_rows

DOC = {"id": "eiffel", "text": "The Eiffel Tower was completed in 1889. It is 330 metres tall."}
PAIR: dict[str, Any] = {
    "id": "p",
    "prompt": "Tell me about the Eiffel Tower.",
    "documents": [DOC],
    "label": {"winner": 1},
    "candidates": [
        "The Eiffel Tower was completed in 1901. It is 330 metres tall.",
        "The Eiffel Tower was completed in 1889. It is 330 metres tall.",
    ],
}


async def _run(server: FakeOpenAI, request: dict[str, Any], tmp_path: Path, judge: str = "propositions"):  # type: ignore[no-untyped-def]
    async with Judge.load(judge, store=tmp_path / "r.db", model_url=server.url) as j:
        return await j.arun(request)


async def test_claims_decide_in_both_orders(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    t = await _run(fake_openai, PAIR, tmp_path)
    assert t.path == ["propose", "check", "check", "check", "check", "aggregate"]
    assert t.verdict is not None and t.verdict.winner == 1 and t.verdict.scores == [0.0, 1.0] and t.correct
    swapped = {**PAIR, "candidates": PAIR["candidates"][::-1], "label": {"winner": 0}}
    again = await _run(fake_openai, swapped, tmp_path)
    assert again.verdict is not None and again.verdict.winner == 0 and again.correct
    assert fake_openai.requests == []  # deterministic checks decided every claim


def test_the_checker_task_holds_a_claim_and_its_evidence_only() -> None:
    assert set(ClaimTask.__annotations__) == {"candidate", "check"}
    assert set(ClaimCheckInput.model_fields) == {"claim", "evidence"}


async def test_the_model_checker_sees_one_claim_never_the_answer(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    base = judges.get("propositions")
    judges.register(
        "propositions_model",
        base.model_copy(update={"name": "propositions_model", "options": {**base.options, "model_checker": True}}),
    )
    fake_openai.default = Reply(content='{"verdict": "not_found", "span": ""}')
    answer = "The tower has a lovely restaurant upstairs. Visitors often queue for hours at its base."
    request = {**PAIR, "candidates": [answer, PAIR["candidates"][1]]}
    t = await _run(fake_openai, request, tmp_path, judge="propositions_model")
    prompts = [r["messages"][1]["content"] for r in fake_openai.requests]
    assert len(prompts) == 2  # the two claims no deterministic check decided
    assert all(("restaurant" in p) != ("queue" in p) for p in prompts)  # each prompt holds one claim, not the answer
    assert t.verdict is not None and t.verdict.winner == 1


async def test_without_evidence_the_verdict_is_invalid(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    t = await _run(fake_openai, {"id": "x", "prompt": "p", "candidates": ["a b c", "d e f"]}, tmp_path)
    assert t.verdict is not None and not t.verdict.valid and "needs documents or images" in (t.verdict.error or "")


async def test_bundled_document_and_image_examples(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    from judgegraph.runtime._batch import resolve_paths
    from judgegraph.schema import JudgeRequest

    examples = list(demo_rows().values())
    for ex in [e for e in examples if e.get("documents") or e.get("images")]:
        request = resolve_paths(JudgeRequest.model_validate(ex), ROOT / "examples").model_dump()
        t = await _run(fake_openai, request, tmp_path)
        assert t.verdict is not None and t.correct, (ex["id"], t.verdict)
