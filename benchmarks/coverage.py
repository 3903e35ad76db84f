"""What an honest response earns, per kind of request (#57, item 7): beside the attack card's false positives, the
share of honest responses a trainer's reward path rewards, abstains on, and wrongly fails, for math with a
reference, math without one, code with tests, code with only its statement, and open questions; and, for code with
only its statement, the share of wrong variants (mutants) its evidence fails and the share of the statement's
examples the right program passes. Honest reward is what a trainer learns from.

Every response goes through verl's `compute_score_batch` (a prompt's responses one group, as a trainer sends
them) with the default `evidence` judge, its model a fake that gives every response the top score, with the
embedded default's trust (what nothing decides abstains), as on the attack card.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks._util import table
from benchmarks.fake_openai import FakeOpenAI, top_scores

if TYPE_CHECKING:
    from judgegraph.runtime._judge import Judge

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"


@dataclass
class Kind:
    """One kind of request: its honest responses' outcomes, and its wrong ones' (where it has them)."""

    name: str
    honest: list[str] = field(default_factory=list)
    """Each honest response's outcome: `rewarded`, `abstained` or `failed`."""
    wrong: list[str] = field(default_factory=list)

    def share(self, outcomes: Sequence[str], outcome: str) -> str:
        return f"{sum(o == outcome for o in outcomes)}/{len(outcomes)}" if outcomes else "-"


def _outcome(reward: dict[str, object]) -> str:
    """`full` (1.0), `partial` (a share: of tests passed, say), `failed` (0 by a ruling), `abstained`, `no ruling`."""
    if reward["abstained"]:
        return "abstained"
    if not reward["valid"]:
        return "no ruling"
    score = float(reward["score"])  # type: ignore[arg-type]
    return "full" if score >= 1.0 else "partial" if score > 0 else "failed"


@dataclass(frozen=True)
class Group:
    prompt: str
    responses: list[str]
    honest: list[bool]
    ground_truth: object


async def _score(judge: Judge, kind: Kind, groups: Sequence[Group]) -> None:
    from judgegraph.adapters.verl import compute_score_batch_async

    sources, solutions, truths, infos, honest = [], [], [], [], []
    for g, group in enumerate(groups):
        for response, right in zip(group.responses, group.honest, strict=True):
            sources.append(kind.name)
            solutions.append(response)
            truths.append(group.ground_truth)
            infos.append({"prompt": group.prompt, "index": g})
            honest.append(right)
    rewards = await compute_score_batch_async(sources, solutions, truths, infos, judge=judge, concurrency=4)
    for right, reward in zip(honest, rewards, strict=True):
        (kind.honest if right else kind.wrong).append(_outcome(dict(reward)))


def _math_groups(limit: int, with_reference: bool) -> list[Group]:
    from judgegraph.tools.math.answers import reference_answer

    rows = [json.loads(line) for line in (DATA / "math" / "math_cot_100.jsonl").read_text().splitlines()][:limit]
    return [
        Group(
            row["question"],
            row["response"],
            list(row["score"]),
            reference_answer(row["answer"]) if with_reference else None,
        )
        for row in rows
    ]


async def _code_groups(limit: int, with_tests: bool) -> tuple[list[Group], list[tuple[str, str]]]:
    """HumanEval problems: the canonical solution beside a mutant that fails the hidden tests, one group each;
    with the tests as the ground truth, or with the statement (its docstring's examples) alone."""
    from judgegraph.evals._pairs import humaneval_pairs
    from judgegraph.sandboxes import SandboxPool

    groups, right = [], []
    pool = await SandboxPool.open("auto", size=2)
    try:
        async for p, good, bad in humaneval_pairs(pool, 57, limit):
            truth = json.dumps({"tests": [p["test"]]}) if with_tests else None
            groups.append(
                Group(p["prompt"], [f"```python\n{good}\n```", f"```python\n{bad}\n```"], [True, False], truth)
            )
            right.append((p["prompt"], good))
    finally:
        await pool.close()
    return groups, right


def _open_groups(limit: int) -> list[Group]:
    """MT-Bench's questions with GPT-4's reference answers as the honest response: no evidence decides them."""
    questions = {
        q["question_id"]: q["turns"][0]
        for q in map(json.loads, (DATA / "mt-bench" / "question.jsonl").read_text().splitlines())
    }
    answers = list(map(json.loads, (DATA / "mt-bench" / "reference_answer__gpt-4.jsonl").read_text().splitlines()))
    groups = []
    for a in answers[:limit]:
        text = a["choices"][0]["turns"][0]
        groups.append(Group(questions[a["question_id"]], [text], [True], None))
    return groups


async def _examples_passed(right: Sequence[tuple[str, str]]) -> tuple[int, int]:
    """The statement's examples the right programs pass, of those that decide: (passed, decisive)."""
    from judgegraph.schema import JudgeRequest, ToolCall
    from judgegraph.tools import ToolContext, ToolServices, call_tool

    passed = decisive = 0
    services = ToolServices(sandbox_pool_size=2)
    try:
        for i, (prompt, code) in enumerate(right):
            request = JudgeRequest(id=f"c{i}", prompt=prompt, mode="pointwise", candidates=[f"```python\n{code}\n```"])
            r = await call_tool(
                ToolCall(name="run_examples", arguments={"candidate": 0}),
                ToolContext(request=request, services=services),
            )
            if r.ok and r.data:
                passed += int(r.data["passed"])
                decisive += int(r.data["decisive"])
    finally:
        await services.aclose()
    return passed, decisive


async def coverage(
    sandbox: str = "auto", math_problems: int = 100, code_problems: int = 30, open_questions: int = 30
) -> tuple[str, dict[str, object]]:
    """The coverage table (markdown) and its facts."""
    from judgegraph.runtime._judge import Judge
    from judgegraph.settings import Settings

    tmp = Path(tempfile.mkdtemp(prefix="judgegraph-coverage-"))
    fake = FakeOpenAI().start()
    fake.responder = top_scores
    settings = Settings(model_url=fake.url, model_trusted=False, store_path=tmp / "runs.db", sandbox=sandbox)
    kinds = {
        "math with a reference": Kind("math with a reference"),
        "math without a reference": Kind("math without a reference"),
        "code with tests": Kind("code with tests"),
        "code with only its statement": Kind("code with only its statement"),
        "open questions": Kind("open questions"),
    }
    try:
        tested, _ = await _code_groups(code_problems, with_tests=True)
        statement_only, right = await _code_groups(code_problems, with_tests=False)
        async with Judge.load("evidence", settings=settings) as judge:
            await _score(judge, kinds["math with a reference"], _math_groups(math_problems, True))
            await _score(judge, kinds["math without a reference"], _math_groups(math_problems, False))
            await _score(judge, kinds["code with tests"], tested)
            await _score(judge, kinds["code with only its statement"], statement_only)
            await _score(judge, kinds["open questions"], _open_groups(open_questions))
        passed, decisive = await _examples_passed(right)
    finally:
        fake.stop()
    rows = [
        [
            k.name,
            len(k.honest),
            k.share(k.honest, "full"),
            k.share(k.honest, "partial"),
            k.share(k.honest, "abstained"),
            k.share(k.honest, "failed"),
            k.share(k.wrong, "failed"),
            k.share(k.wrong, "partial"),
            k.share(k.wrong, "full"),
            k.share(k.wrong, "abstained"),
        ]
        for k in kinds.values()
    ]
    body = table(
        [
            "kind of request",
            "honest",
            "full reward",
            "partial",
            "abstained",
            "wrongly failed",
            "wrong: failed",
            "wrong: partial",
            "wrong: full reward",
            "wrong: abstained",
        ],
        rows,
    )
    statement = kinds["code with only its statement"]
    killed = sum(o == "failed" for o in statement.wrong)
    notes = (
        "\n\n'Partial' is a share of the evidence passed (tests or examples): a pass rate, as a trainer's reward "
        "reads it. "
        f"Code with only its statement: **{killed}/{len(statement.wrong)}** mutants (wrong variants of the "
        f"right programs, each failing HumanEval's hidden tests) scored 0 by evidence the judge made; the right "
        f"programs pass **{passed}/{decisive}** of the statement examples that decide (published: LLM-written "
        "tests kill about a third of mutants, and a tenth to over half of them fail the right program)."
    )
    facts: dict[str, object] = {
        k.name: {"honest": dict(Counter(k.honest)), "wrong": dict(Counter(k.wrong))} for k in kinds.values()
    }
    facts["examples"] = {"passed": passed, "decisive": decisive}
    return body + notes, facts
