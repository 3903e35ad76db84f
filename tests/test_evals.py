"""The bundled verifiable pairs and the quality report (the full run is recorded in EVALS.md)."""

from __future__ import annotations

from pathlib import Path

from judgegraph.evals import code_pairs, constraint_pairs, evaluate, length_bias_pairs, math_pairs, report, swapped
from judgegraph.sandboxes import SandboxPool
from judgegraph.tools import equivalent, extract_final_answer
from tests.fake_openai import FakeOpenAI


async def test_pairs_are_verified_when_built() -> None:
    pool = await SandboxPool.open("process", size=2)
    try:
        code = await code_pairs(3, pool)
    finally:
        await pool.close()
    assert len(code) == 3 and all(p.tests and p.label and p.label.winner == 0 for p in code)
    assert all(p.candidates[0].content != p.candidates[1].content for p in code)
    math = math_pairs(6)
    for p in math:
        right, wrong = (extract_final_answer(c.content) for c in p.candidates)
        assert right and wrong and p.reference
        assert equivalent(right, p.reference).equivalent and not equivalent(wrong, p.reference).equivalent
    for p in constraint_pairs(6):
        good, bad = (c.content for c in p.candidates)
        assert all(c.check(good).passed for c in p.constraints)
        assert not all(c.check(bad).passed for c in p.constraints)
    assert math_pairs(4) == math_pairs(4)  # deterministic
    for p in length_bias_pairs(4):
        assert len(p.candidates[1].content) > 10 * len(p.candidates[0].content)


async def test_evidence_judge_scores_every_verifiable_pair_in_both_orders(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    pool = await SandboxPool.open("process", size=2)
    try:
        pairs = [*(await code_pairs(2, pool)), *math_pairs(3), *constraint_pairs(3)]
    finally:
        await pool.close()
    assert swapped(pairs[0]).label.winner == 1  # type: ignore[union-attr]
    outcomes = await evaluate("evidence", pairs, model_url=fake_openai.url, sandbox="process")
    assert all(all(o.correct) and o.consistent and all(o.valid) for o in outcomes)
    assert fake_openai.requests == []  # the evidence decided every one
    text = report(outcomes, "python -m judgegraph.evals.quality --n 3")
    assert "| evidence | all | 8 | 100.0% | 100.0% | 100.0% |" in text
