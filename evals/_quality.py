"""Judge quality on the bundled verifiable pairs, judged in both candidate orders."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime

from pydantic import BaseModel

from judgegraph._judge import Judge
from judgegraph.evals._pairs import code_pairs, constraint_pairs, length_bias_pairs, math_pairs
from judgegraph.sandboxes import SandboxPool
from judgegraph.types import JudgeRequest, Label


class PairOutcome(BaseModel):
    judge: str
    category: str
    correct: list[bool]
    """One per candidate order."""
    valid: list[bool]
    consistent: bool
    """Both orders picked the same underlying candidate."""


def swapped(request: JudgeRequest) -> JudgeRequest:
    label = request.label
    flipped = None if label is None or label.winner is None else Label(winner=1 - label.winner)
    return request.model_copy(
        update={"id": request.id + "/swapped", "candidates": request.candidates[::-1], "label": flipped}
    )


async def build_pairs(n: int) -> list[JudgeRequest]:
    pool = await SandboxPool.open("auto", size=2)
    try:
        code = await code_pairs(n, pool)
    finally:
        await pool.close()
    return [*code, *math_pairs(n), *constraint_pairs(n), *length_bias_pairs(n)]


async def evaluate(judge_name: str, pairs: list[JudgeRequest], **settings: object) -> list[PairOutcome]:
    outcomes = []
    async with Judge.load(judge_name, store=False, **settings) as judge:
        for pair in pairs:
            runs = [await judge.arun(pair), await judge.arun(swapped(pair))]
            winners = [t.verdict.winner if t.verdict else None for t in runs]
            underlying = [winners[0], None if winners[1] is None else 1 - winners[1]]
            outcomes.append(
                PairOutcome(
                    judge=judge_name,
                    category=str(pair.metadata.get("category", "?")),
                    correct=[bool(t.correct) for t in runs],
                    valid=[bool(t.verdict and t.verdict.valid) for t in runs],
                    consistent=underlying[0] is not None and underlying[0] == underlying[1],
                )
            )
    return outcomes


def report(outcomes: list[PairOutcome], command: str) -> str:
    by: dict[tuple[str, str], list[PairOutcome]] = defaultdict(list)
    for o in outcomes:
        by[(o.judge, o.category)].append(o)
        by[(o.judge, "all")].append(o)
    rows = ["| judge | category | pairs | accuracy (both orders) | consistent | valid |", "|---|---|---|---|---|---|"]
    for (judge, category), items in sorted(by.items(), key=lambda kv: (kv[0][0], kv[0][1] == "all", kv[0][1])):
        judgments = [c for o in items for c in o.correct]
        valid = [v for o in items for v in o.valid]
        rows.append(
            f"| {judge} | {category} | {len(items)} | {100 * sum(judgments) / len(judgments):.1f}% "
            f"| {100 * sum(o.consistent for o in items) / len(items):.1f}% | {100 * sum(valid) / len(valid):.1f}% |"
        )
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        "# Judge quality on bundled verifiable pairs\n\n"
        f"Measured {stamp} with `{command}` on the embedded model (SmolLM2-135M-Instruct, llama.cpp, CPU).\n"
        "Each pair is judged as given and with its candidates swapped; accuracy counts judgments, consistency\n"
        "counts pairs whose two runs picked the same candidate. `llm` is the same graph with no tools (baseline).\n\n"
        + "\n".join(rows)
        + "\n"
    )
