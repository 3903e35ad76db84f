"""Commit-first against reading first, with a real model (EVALS.md, "Commit-first"): real model-written GSM8K
solutions (ProcessBench's, half with a wrong final answer), each judged alone with no reference, by the
`evidence` judge (the model reads the solution and scores it) and by `commit_first` (the model answers first,
then the solution's final answer is compared with its own). False acceptance: a wrong solution scored 0.5 or
more; true acceptance: a right one.

    python -m benchmarks.commit_first --n 20            # Qwen2.5-Coder-1.5B (fetched), 10 right and 10 wrong
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

from benchmarks._util import table
from judgegraph import Judge
from judgegraph.evals._harness import one_model
from judgegraph.settings import Settings
from judgegraph.tools.math.answers import committed_answer

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "processbench" / "gsm8k.json"


def solutions(n: int) -> list[tuple[str, str, bool]]:
    """(problem, solution, final answer right), n/2 right and n/2 wrong, each committing to a final answer."""
    rows = json.loads(DATA.read_text())
    out: dict[bool, list[tuple[str, str, bool]]] = {True: [], False: []}
    for row in rows:
        text = "\n\n".join(row["steps"])
        right = bool(row["final_answer_correct"])
        if committed_answer(text) is not None and len(out[right]) < n // 2:
            out[right].append((row["problem"], text, right))
    return out[True] + out[False]


async def measure(model: str, n: int) -> str:
    items = solutions(n)
    tmp = Path(tempfile.mkdtemp(prefix="judgegraph-commit-first-"))
    base = Settings(embedded_model=model, model_trusted=True, store_path=tmp / "runs.db")
    rows = []
    async with one_model(base) as settings:
        for name in ("evidence", "commit_first"):
            start = time.perf_counter()
            accepted = {True: 0, False: 0}
            invalid = 0
            async with Judge.load(name, settings=settings) as judge:
                for k, (problem, solution, right) in enumerate(items):
                    verdict = await judge.ajudge(
                        {"id": f"{name}-{k}", "mode": "pointwise", "prompt": problem, "candidates": [solution]}
                    )
                    invalid += not verdict.valid
                    accepted[right] += bool(verdict.valid and verdict.scores and verdict.scores[0] >= 0.5)
            took = time.perf_counter() - start
            half = len(items) // 2
            rows.append(
                [
                    name,
                    f"{accepted[False]}/{half} ({accepted[False] / half:.0%})",
                    f"{accepted[True]}/{half} ({accepted[True] / half:.0%})",
                    invalid,
                    f"{took / len(items):.1f}",
                ]
            )
    header = ["judge", "false acceptance (wrong answers scored >= 0.5)", "true acceptance", "invalid", "s a solution"]
    return table(header, rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    ns = parser.parse_args()
    print(asyncio.run(measure(ns.model, ns.n)))


if __name__ == "__main__":
    main()
