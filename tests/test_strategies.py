"""Every aggregation's rationale names what it means in every mode: which responses pass, what the others fail,
never `None` where a winner is absent (pointwise and group judgments have none)."""

from __future__ import annotations

import pytest

from judgegraph.graphs._aggregate import decide_from_evidence
from judgegraph.graphs._strategies import aggregations
from judgegraph.schema import CriterionResult, JudgeRequest, ToolResult

MODES = ["pointwise", "pairwise", "listwise", "best_of_n"]


def _request(mode: str, n: int) -> JudgeRequest:
    candidates = [f"The answer is {40 + i}." for i in range(n)]
    return JudgeRequest.model_validate({"id": "r", "mode": mode, "prompt": "6 * 7?", "candidates": candidates})


def _criteria(n: int, passing: set[int]) -> list[CriterionResult]:
    return [
        CriterionResult(name="matches_reference", candidate=i, passed=i in passing, score=float(i in passing))
        for i in range(n)
    ]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(aggregations.names()))
@pytest.mark.parametrize("passing", [set(), {1}, {0, 1}])
def test_each_rationale_reads_in_each_mode(mode: str, name: str, passing: set[int]) -> None:
    n = 1 if mode == "pointwise" and not passing else 3 if mode in ("listwise", "best_of_n") else 2
    verdict = aggregations.get(name)(_request(mode, n), _criteria(n, passing), {})
    if verdict is None:
        return
    assert "None" not in verdict.rationale and verdict.rationale, (name, mode, verdict.rationale)


def test_all_pass_says_who_passes_and_what_the_others_fail() -> None:
    group = aggregations.get("all_pass")(_request("pointwise", 3), _criteria(3, {1}), {})
    assert group is not None
    assert group.rationale == (
        "1 of 3 pass every check (matches_reference); candidate 0 fails matches_reference; "
        "candidate 2 fails matches_reference"
    )
    alone = aggregations.get("all_pass")(_request("pointwise", 1), _criteria(1, set()), {})
    assert alone is not None and alone.rationale == "fails matches_reference (checks: matches_reference)"
    pair = aggregations.get("all_pass")(_request("pairwise", 2), _criteria(2, {1}), {})
    assert pair is not None and pair.winner == 1
    assert (
        pair.rationale == "only candidate 1 passes every check (matches_reference); candidate 0 fails matches_reference"
    )


def test_a_verdict_decided_by_the_silence_gate_names_the_one_that_speaks() -> None:
    request = JudgeRequest.model_validate({"id": "s", "prompt": "6 * 7?", "candidates": [":", "It is 42."]})
    verdict = decide_from_evidence(request, list[ToolResult]())
    assert verdict is not None and verdict.rationale == "only candidate 1 commits to anything"
