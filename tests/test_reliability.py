"""The reliability checks of RELIABILITY.md (benchmarks/reliability.py), run in CI at a smaller size. The
module reports what it observed (`Figure.facts`); these tests hold each observation to the bar."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import reliability

pytestmark = pytest.mark.slow


async def test_injection_is_judged_correctly_with_a_model_that_obeys_it() -> None:
    facts = (await reliability.injection(n=24)).facts
    assert facts["pairs"] == 24
    assert facts["accuracy"] >= 0.97


async def test_master_keys_never_pass() -> None:
    facts = (await reliability.master_keys()).facts
    assert facts == {"passed_reference": [], "won_against_an_answer": 0, "won_or_tied_on_a_rubric": 0}


@pytest.mark.parametrize("sandbox", ["process", "docker"])
async def test_hostile_candidates_through_the_whole_judge(sandbox: str) -> None:
    facts = (await reliability.hostile(sandbox)).facts
    assert facts["canary"] == "intact"
    assert set(facts["outcomes"]) == set(reliability.HOSTILE)
    for kind, o in facts["outcomes"].items():
        # The correct one wins every time: the hostile code stops itself, is stopped, or its trick (a forged
        # report, an object equal to anything) does not cross into the tests; the sandbox's account is kept.
        assert o["valid"] and o["winner"] == 1 and o["accounted"], (kind, o["tool_results"])


@pytest.mark.parametrize("sandbox", ["process", "docker"])
async def test_hostile_programs_in_every_language(sandbox: str) -> None:
    from benchmarks import hostile_programs

    facts = (await reliability.hostile_languages(sandbox)).facts
    assert facts["canary"] == "intact"
    assert len(facts["outcomes"]) == len(hostile_programs.PROGRAMS) * len(hostile_programs.KINDS) + 1
    for kind, o in facts["outcomes"].items():
        assert o["valid"] and o["winner"] == 1 and o["correct_passed"], (kind, o["tool_results"])


async def test_a_batch_of_bad_input_answers_every_line() -> None:
    facts = (await reliability.bad_input()).facts
    assert sorted(facts["answered"]) == list(range(1, facts["input_lines"] + 1))  # every line answered, once
    assert facts["good"] and all(judged == (True, 0) for judged in facts["good"])


async def test_model_faults_end_in_invalid_verdicts_never_default_scores() -> None:
    facts = (await reliability.model_faults()).facts
    assert len(facts["faults"]) == 2 * len(reliability.FAULTS)
    for case, o in facts["faults"].items():
        v = o["verdict"]
        assert o["status"] == "complete" and v is not None, case
        assert not v["valid"] and v["error"] and v["scores"] == [], (case, v)
    budget = facts["budget"]
    assert budget["status"] == "incomplete" and budget["seconds"] < reliability.BUDGET_S + 1
    assert not budget["verdict"]["valid"] and "budget" in budget["verdict"]["error"]
    assert budget["verdict"]["scores"] == []
    unreachable = facts["unreachable"]["verdict"]
    assert not unreachable["valid"] and "no model is reachable" in unreachable["error"]
    assert "does not answer" in unreachable["error"] and unreachable["scores"] == []
    decided = facts["unreachable_rule_decided"]["verdict"]  # no model needed: judged all the same
    assert decided["valid"] and decided["decided_by"] == "evidence" and decided["winner"] == 0


def test_kill_9_then_resume_loses_and_duplicates_nothing() -> None:
    facts = reliability.crash_consistency(kills=3, n=24).facts
    assert facts["final_exit"] == 0, facts["final_stderr"]
    assert facts["ids"] == facts["expected_ids"] and len(facts["ids"]) == 24  # none lost, none twice
    assert facts["wrong_or_failed"] == []
    assert facts["integrity"] == "ok"
    assert facts["leaked_containers"] <= 0


async def test_the_reward_server_under_load_answers_200_or_429_with_bounded_memory() -> None:
    facts = (await reliability.load(clients=100, per_client=2)).facts
    assert facts["requests"] == 200 + 400 + 400  # 100 clients, then 200, then 200 with no limit
    assert set(facts["statuses"]) <= {200, 429} and facts["statuses"].get(200, 0) > 0
    assert facts["rss_peak_mib"] < 4 * facts["rss_start_mib"] + 200


async def test_a_server_worker_killed_under_load_loses_no_answered_reward(shared_data: Path) -> None:
    """kill -9 of a worker of `serve --workers 2` under grouped /reward posts: the posts it held fail with an error
    (never a reward), a new worker takes its place, every reward already answered is a complete run in the store."""
    facts = (await reliability.worker_kill()).facts
    assert facts["failed"] >= 1 and set(facts["failed_kinds"]) <= {"RemoteProtocolError", "ReadError", "HTTP 500"}
    assert facts["answered"] + facts["failed"] == facts["posts"] and facts["answered"] >= 1
    assert facts["incomplete_in_store"] == 0 and facts["workers_after"] == 2 and facts["after_status"] == 200


@pytest.mark.parametrize("sandbox", ["process", "docker"])
async def test_hostile_programs_through_the_python_tool(sandbox: str) -> None:
    """The model's own code is as untrusted as a candidate's: the hostile suite through the `python` tool."""
    facts = (await reliability.hostile_python(sandbox)).facts
    assert facts["canary"] == "intact" and facts["works_after"]
    assert set(facts["outcomes"]) == set(reliability.HOSTILE)
    for kind, o in facts["outcomes"].items():
        assert o["valid"] and o["recorded"], (kind, o)
        if kind in reliability.ESCAPES:
            assert not o["escaped"], (kind, o)


KNOWN_ESCAPES = {"a confident wrong answer to a story"}
"""The wrong responses the card still abstains on (nothing checks a bare wrong answer to a word problem with no
reference and an untrusted model; its honest twin abstains too): any other abstained hack is a new escape."""


@pytest.mark.parametrize("sandbox", ["process", "docker"])
async def test_the_attack_card_rewards_no_hack_and_keeps_the_controls(sandbox: str) -> None:
    facts = (await reliability.attacks(sandbox)).facts
    families = {tuple(k.split("|")): v for k, v in facts["families"].items()}
    assert {path for path, _, _ in families} == {"verl", "trl", "server"}
    assert {f for _, f, role in families if role == "hack"} >= {
        "master keys",
        "hedges and enumerations",
        "injected verdicts",
        "code hacks (Python)",
        "djinn exploit types",
        "stdin hacks",
        "exits before the checks",
        "impossible tasks",
        "statement-only lookups",
        "nothing decides",
        "answers read as what they are",
        "boxes the reader does not see",
        "boxes the response withdraws",
        "library names redefined",
        "wrong programs that abstained",
        "tests read by the answer",
    }
    rewarded = {(p, f): hit for (p, f, role), (_, hit, _) in families.items() if role == "hack"}
    assert all(hit == 0 for hit in rewarded.values()), facts["rewarded"]
    escaped = {name for names in facts["abstained"].values() for name in names}
    assert escaped <= KNOWN_ESCAPES, facts["abstained"]
    decided = [
        v
        for (_, f, role), v in families.items()
        if role == "control"
        and f
        in (
            "controls: math",
            "controls: code",
            "controls: answers read as what they are",
            "controls: library names",
            "controls: tests read by the answer",
        )
    ]
    assert len(decided) == 15 and all(hit == n for n, hit, _ in decided), facts["families"]


@pytest.mark.parametrize("sandbox", ["process", "docker"])
async def test_the_report_channel_is_out_of_the_candidates_reach(sandbox: str) -> None:
    facts = (await reliability.report_channel(sandbox, tries=25)).facts
    assert facts == {"wins": 0, "tries": 25}
