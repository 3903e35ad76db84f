"""Math without a reference: a reference the judge derives by programs the model writes (self-consistency, dual
agreement, repairs), never ground truth."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.fake_openai import FakeOpenAI
from judgegraph import Judge

# ---------------------------------------------------------------- math without a reference

MATH_NOREF = {
    "id": "comb",
    "prompt": "In how many ways can a committee of 3 be chosen from 10 people?",
    "candidates": [
        "Order does not matter, so C(10,3) = 120. The answer is 120.",
        "10*9*8 = 720. **Final answer:** 720",
    ],
    "label": {"winner": 0},
}


def _programs(*outputs: str) -> Any:
    """A model that answers the i-th request for a program with a program printing outputs[i % n]."""
    count = {"n": 0}

    def respond(body: dict[str, Any]) -> Any:
        from benchmarks.fake_openai import Reply

        if "solve math problems by writing a Python" not in body["messages"][0]["content"]:
            return Reply(content='{"winner": "tie", "confidence": 0.1, "rationale": "unsure"}')
        out = outputs[count["n"] % len(outputs)]
        count["n"] += 1
        return Reply(content=f"```python\nimport math\nprint({out})\n```")

    return respond


async def test_math_without_a_reference_is_judged_against_a_derived_one(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_openai.responder = _programs("math.comb(10, 3)", "math.comb(10, 3)", "10 * 9 * 8")
    async with Judge.load("skill", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process") as judge:
        t = await judge.arun(MATH_NOREF)
        again = await judge.arun({**MATH_NOREF, "id": "comb-2"})  # the same prompt: derived once, shared
    v = t.verdict
    assert v is not None and v.winner == 0 and v.decided_by == "evidence" and t.correct
    results = [r for r in t.tool_results() if r.name == "derived_reference"]
    assert len(results) == 2 and all(r.data for r in results)
    derived = results[0].data["derived"]  # type: ignore[index]
    assert derived["provenance"] == "derived" and derived["answer"] == "120" and derived["votes"] == 4  # of 5
    assert results[1].data["extracted"] == "720" and not results[1].data["matches"]  # type: ignore[index]
    criteria = {c.candidate: c for c in v.criteria if c.source == "derived_reference"}
    assert criteria[0].passed and not criteria[0].conclusive and criteria[1].passed is False
    assert len([r for r in fake_openai.requests if "solve math" in str(r["messages"][0])]) == 5  # k, not 2k or 4k
    assert again.verdict is not None and again.verdict.winner == 0
    async with Judge.load("skill", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process") as judge:
        report = await judge.areplay(t)  # the programs' turns come back with the derived reference's result
    assert report.identical and report.unused_model_turns == 0 and report.unused_tool_results == 0


async def test_a_derived_reference_without_a_majority_only_informs(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = _programs("120", "720", "1/0")
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process") as judge:
        t = await judge.arun(MATH_NOREF)
    assert t.verdict is not None and t.verdict.decided_by == "model"
    assert "no majority" in next(r.text for r in t.tool_results() if r.name == "derived_reference")


async def test_an_answer_no_program_reproduces_loses_to_one_a_program_does(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """Dual agreement (CodeT): no majority (120, 7, an error, 120, 7), but programs reproduced candidate 0's
    answer and none candidate 1's, so candidate 1 fails; candidate 0 is supported, not proven."""
    fake_openai.responder = _programs("math.comb(10, 3)", "7", "1/0")
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process") as judge:
        t = await judge.arun(MATH_NOREF)
    v = t.verdict
    assert v is not None and v.winner == 0 and v.decided_by == "evidence" and t.correct
    results = {r.data["candidate"]: r for r in t.tool_results() if r.name == "derived_reference" and r.data}
    assert results[0].data["support"] == 2 and results[1].data["support"] == 0  # type: ignore[index]
    assert results[1].data["rival_support"] == 2 and not results[1].data["decisive"]  # type: ignore[index]
    assert "0 of 5 programs printed this candidate's answer, up to 2 another candidate's" in results[1].text
    criteria = {c.candidate: c for c in v.criteria if c.source == "derived_reference"}
    assert criteria[1].passed is False and criteria[1].conclusive
    assert criteria[0].passed and not criteria[0].conclusive


async def test_a_program_that_fails_is_sent_back_once_with_its_error(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """Self-debugging: a program that fails (a misspelled name) or prints nothing goes back to the model once with
    its error's last lines; the rewrite's answer counts, a second failure is not sent back again."""
    from benchmarks.fake_openai import Reply

    def respond(body: dict[str, Any]) -> Any:
        messages = body["messages"]
        if "solve math problems by writing a Python" not in messages[0]["content"]:
            return Reply(content='{"winner": "tie", "confidence": 0.1, "rationale": "unsure"}')
        if len(messages) == 2:  # the first try of each program: a typo, or nothing printed
            seed = body.get("seed") or 0
            code = (
                "import math\nways = math.comb(10, 3)"
                if seed % 2
                else "import math\nway = math.comb(10, 3)\nprint(ways)"
            )
            return Reply(content=f"```python\n{code}\n```")
        told = messages[-1]["content"]
        assert messages[-2]["role"] == "assistant" and "Fix it" in told
        if "NameError: name 'ways' is not defined" in told:
            return Reply(content="```python\nimport math\nprint(math.comb(10, 3))\n```")
        assert "printed nothing" in told
        return Reply(content="```python\nprint(undefined)\n```")  # fails again: not sent back a third time

    fake_openai.responder = respond
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process") as judge:
        t = await judge.arun(MATH_NOREF)
        report = await judge.areplay(t)  # the repairs' turns come back too
    derived = next(r.data for r in t.tool_results() if r.name == "derived_reference" and r.data)["derived"]
    assert derived["answers"] == ["120", None, "120", None, "120"] and derived["repaired"] == 5
    assert len([r for r in fake_openai.requests if "solve math" in str(r["messages"][0])]) == 10  # k, then k repairs
    assert t.verdict is not None and t.verdict.winner == 0 and t.verdict.decided_by == "evidence"
    assert "5 of them rewritten once after failing" in t.tool_results()[0].text
    assert report.identical and report.unused_model_turns == 0

    fake_openai.requests.clear()  # JUDGEGRAPH_DERIVED_REPAIRS=0: no program goes back, none prints an answer
    async with Judge.load(
        "evidence", store=tmp_path / "r0.db", model_url=fake_openai.url, sandbox="process", derived_repairs=0
    ) as judge:
        t = await judge.arun(MATH_NOREF)
    derived = next(r.data for r in t.tool_results() if r.name == "derived_reference" and r.data)["derived"]
    assert derived["answers"] == [None] * 5 and derived["repaired"] == 0
    assert len([r for r in fake_openai.requests if "solve math" in str(r["messages"][0])]) == 5
    assert t.verdict is not None and t.verdict.decided_by == "model"


async def test_a_multiple_choice_pair_is_judged_by_the_option_the_programs_value_names(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """An AMC-style problem with its options in the statement and no reference; the responses name a letter five
    times over (LiveBench's convention). The programs print a value: it names option C, which one response chose."""
    from tests.test_answers import AMC

    candidates = [
        "A square's four sides are equal, so each is a quarter of the perimeter: $\\frac{49}{2}$.\n\nCCCCC",
        "The side of a square is about a third of its perimeter, so the answer is $\\textbf{(D) }28$.\n\nDDDDD",
    ]
    pair: dict[str, Any] = {"id": "amc", "prompt": AMC, "candidates": candidates, "label": {"winner": 0}}
    fake_openai.responder = _programs("'49/2'", "98 / 4", "98 // 3")  # 5 programs: 49/2, 24.5, 32, 49/2, 24.5
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process") as judge:
        t = await judge.arun(pair)
        swapped = await judge.arun({**pair, "id": "amc-2", "candidates": candidates[::-1], "label": {"winner": 1}})
    for run, right in ((t, 0), (swapped, 1)):
        assert run.verdict is not None and run.verdict.winner == right and run.verdict.decided_by == "evidence"
    results = {r.data["candidate"]: r.data for r in t.tool_results() if r.name == "derived_reference" and r.data}
    assert results[0]["extracted"] == "C" and results[0]["support"] == 4  # 49/2 and 24.5 name option C
    assert results[1]["extracted"] == "D" and results[1]["support"] == 0  # 32 names no option


def test_a_programs_answer_is_its_last_line_as_sympy_prints_a_solution() -> None:
    from judgegraph.tools.code.python_runs import PythonResult
    from judgegraph.tools.derived_reference import _answer_of

    def answer(stdout: str) -> str | None:
        return _answer_of(PythonResult(code="", stdout=stdout, error="", exit_code=0))

    assert answer("x = 3\nFinal answer: 12\n") == "12"
    assert answer("[{x: 12}]") == "12" and answer("{n: 5/2}") == "5/2"  # solve(..., dict=True), one unknown
    assert answer("[(1, 4*sqrt(3))]") == "(1, 4*sqrt(3))" and answer("[7]") == "7"  # solve's list of one solution
    assert answer("[{x: 1, y: 2}]") == "{x: 1, y: 2}"  # two unknowns: compared as a whole
    assert answer("[-3, 2]") == "[-3, 2]" and answer("[1] + [2]") == "[1] + [2]"  # several, or not one list
    assert answer("\n\n") is None


async def test_a_majority_no_candidate_states_leaves_them_to_dual_agreement(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """Four programs print 5, one 120: the majority says both 120 and 720 are wrong and orders neither, so the
    answer a program reproduced (120) is preferred to the one none did; a lone candidate still fails it."""
    fake_openai.responder = _programs("5", "5", "math.comb(10, 3)", "5", "5")
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process") as judge:
        t = await judge.arun(MATH_NOREF)
    v = t.verdict
    assert v is not None and v.winner == 0 and v.decided_by == "evidence" and t.correct
    results = {r.data["candidate"]: r for r in t.tool_results() if r.name == "derived_reference" and r.data}
    assert results[0].data["derived"]["votes"] == 4 and not results[0].data["decisive"]  # type: ignore[index]
    assert "a majority no candidate states" in results[0].text
    from judgegraph.tools.derived_reference import Derivation, compare

    derivation = Derivation.model_validate(results[0].data["derived"])  # type: ignore[index]
    alone = compare(0, "120", derivation, [])
    assert alone.decisive and not alone.matches  # pointwise: the majority decides against it


async def test_self_consistency_k_is_a_setting(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """`derived_samples` (JUDGEGRAPH_DERIVED_SAMPLES; 5 by default): 3 programs, and 2 of 3 is a majority."""
    fake_openai.responder = _programs("math.comb(10, 3)", "720", "math.comb(10, 3)", "1/0", "math.comb(10, 3)")
    async with Judge.load(
        "evidence", store=tmp_path / "r.db", model_url=fake_openai.url, sandbox="process", derived_samples=3
    ) as judge:
        t = await judge.arun(MATH_NOREF)
    derived = next(r.data for r in t.tool_results() if r.name == "derived_reference" and r.data)
    assert derived["derived"]["samples"] == 3 and derived["derived"]["votes"] == 2
    assert len([r for r in fake_openai.requests if "solve math" in str(r["messages"][0])]) == 3
    assert t.verdict is not None and t.verdict.winner == 0 and t.verdict.decided_by == "evidence"
