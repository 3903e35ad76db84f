"""The reliability checks of RELIABILITY.md (benchmarks/reliability.py), run in CI at a smaller size: each
asserts what must hold (hostile code, bad input, model faults, kill -9, injection, master keys)."""

from __future__ import annotations

import pytest

from benchmarks import reliability

pytestmark = pytest.mark.slow


async def test_injection_is_judged_correctly_with_a_model_that_obeys_it() -> None:
    figure = await reliability.injection(n=24)
    assert "100.0%" in figure.body or "judged correctly" in figure.body


async def test_master_keys_never_pass() -> None:
    await reliability.master_keys()


@pytest.mark.parametrize("sandbox", ["process", "docker"])
async def test_hostile_candidates_through_the_whole_judge(sandbox: str) -> None:
    figure = await reliability.hostile(sandbox)
    assert "| hostile one |" not in figure.body and "| tie |" not in figure.body


async def test_a_batch_of_bad_input_answers_every_line() -> None:
    figure = await reliability.bad_input()
    assert "decompression bomb" in figure.body


async def test_model_faults_end_in_invalid_verdicts_never_default_scores() -> None:
    figure = await reliability.model_faults()
    assert "connection refused at start" in figure.body


def test_kill_9_then_resume_loses_and_duplicates_nothing() -> None:
    figure = reliability.crash_consistency(kills=3, n=24)
    assert "none lost, none twice" in figure.body


async def test_the_reward_server_under_load_answers_200_or_429_with_bounded_memory() -> None:
    figure = await reliability.load(clients=100, per_client=2)
    assert "429" in figure.body or "200" in figure.body
