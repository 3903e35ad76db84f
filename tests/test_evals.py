"""The bundled verifiable pairs and the quality report (the full run is recorded in EVALS.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.fake_openai import FakeOpenAI
from judgegraph.evals import code_pairs, constraint_pairs, length_bias_pairs, math_pairs, run_eval
from judgegraph.sandboxes import SandboxPool
from judgegraph.settings import Settings
from judgegraph.tools import equivalent, extract_final_answer


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


@pytest.mark.parametrize("suite", ["code", "math", "instructions"])
async def test_evidence_judge_scores_every_verifiable_pair_in_both_orders(
    suite: str, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    settings = Settings(model_url=fake_openai.url, store_path=tmp_path / "s.db", sandbox="process")
    report = await run_eval(suite, "evidence", settings, tmp_path / suite, limit=3)
    m = report.metrics
    assert m.n == 3 and m.accuracy == 1.0 and m.consistency == 1.0 and m.valid_rate == 1.0
    assert m.decided_by_evidence == 1.0 and fake_openai.requests == []  # the evidence decided every one
    assert (tmp_path / suite / "report.md").read_text().count("| 100.0% | 100.0% | 100.0% | 100.0% |") >= 1


async def test_training_and_evaluation_splits_are_disjoint_and_deterministic() -> None:
    from judgegraph.evals._harness import load_suite
    from judgegraph.evals._splits import EVAL_SHARE, split_of

    for suite in ("math", "instructions", "documents"):
        held_out = await load_suite(suite, limit=6, file=None, split="eval")
        train = await load_suite(suite, limit=6, file=None, split="train")
        assert len(held_out) == len(train) == 6
        assert {r.id for r in held_out}.isdisjoint({r.id for r in train})
        assert all(split_of(r.id) == "eval" for r in held_out) and all(split_of(r.id) == "train" for r in train)
        again = await load_suite(suite, limit=6, file=None, split="eval")
        assert [r.model_dump() for r in again] == [r.model_dump() for r in held_out]
    # A function of the id alone, about EVAL_SHARE of ids held out.
    share = sum(split_of(f"any/{i}") == "eval" for i in range(2000)) / 2000
    assert abs(share - EVAL_SHARE) < 0.05
