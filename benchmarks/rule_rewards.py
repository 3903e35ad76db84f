"""Rule-decided rewards: judgegraph's CPU per reward against a plain verifier, in one run, same answers.

Qwen2.5-Math's 100 MATH problems x 8 sampled solutions (`../shared/data/math/math_cot_100.jsonl`), each scored
against its reference answer, as an RL trainer scores rollouts: by math-verify (`verify(parse(gold),
parse(solution))`, what TRL and open-r1 call), by verl's rule-based scorer for MATH where verl's environment is
built (`make trainers`), and by judgegraph's `evidence` judge (pointwise, through
`ajudge_many` at concurrency 32, each run recorded to a SQLite store, or to none). CPU is this process's CPU
time (all threads) per solution. Run: `python -m benchmarks.run rule_rewards`
(or `python -m benchmarks.rule_rewards --data DIR`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._util import table
from benchmarks.real_data import DATA
from judgegraph import tune_gc


def _solutions(data: Path) -> list[tuple[str, str, str, bool]]:
    """(problem, reference answer, solution, label) for every sampled solution."""
    rows = [json.loads(line) for line in (data / "math" / "math_cot_100.jsonl").read_text().splitlines()]
    return [
        (row["question"], row["answer"], text, bool(row["score"][k]))
        for row in rows
        for k, text in enumerate(row["response"])
    ]


def _math_verify(solutions: list[tuple[str, str, str, bool]]) -> tuple[float, list[bool]]:
    from math_verify import parse, verify

    verify(parse("$1$"), parse("1"))  # warm: its LaTeX grammar loads on first use
    start = time.process_time()
    out = []
    for _, gold, text, _ in solutions:
        try:
            out.append(bool(verify(parse(f"${gold}$"), parse(text))))
        except Exception:
            out.append(False)
    return time.process_time() - start, out


# verl's rule-based MATH scorer, run where verl installs: its own environment (`make trainers`).
_VERL_SCORER = """
import json, sys, time
from verl.utils.reward_score import default_compute_score
pairs = json.load(sys.stdin)
default_compute_score("lighteval/MATH", "1", "1")  # warm: its imports
start = time.process_time()
out = [default_compute_score("lighteval/MATH", text, gold) == 1.0 for gold, text in pairs]
print(json.dumps({"cpu": time.process_time() - start, "out": out}))
"""


def _verl(solutions: list[tuple[str, str, str, bool]]) -> tuple[float, list[bool]] | str:
    """verl's scorer for MATH (`default_compute_score("lighteval/MATH", ...)`), or why it could not run."""
    root = Path(__file__).resolve().parent.parent
    python = Path(os.environ.get("JUDGEGRAPH_TRAINERS_VENV", root / ".venv-trainers")) / "bin" / "python"
    if not python.exists():
        return f"verl's environment is not built ({python}; `make trainers` builds it)"
    done = subprocess.run(
        [str(python), "-c", _VERL_SCORER],
        input=json.dumps([[gold, text] for _, gold, text, _ in solutions]),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        return f"verl's scorer failed: {done.stderr.strip().splitlines()[-1:]}"
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return float(result["cpu"]), [bool(x) for x in result["out"]]


async def _judgegraph(solutions: list[tuple[str, str, str, bool]], store: Path | bool) -> tuple[float, list[bool]]:
    from judgegraph import Judge
    from judgegraph.tools._answers import forget_comparisons

    requests: list[dict[str, Any]] = [
        {"id": f"s{k}", "prompt": q, "candidates": [text], "mode": "pointwise", "reference": gold}
        for k, (q, gold, text, _) in enumerate(solutions)
    ]
    async with Judge.load("evidence", store=store) as judge:
        await judge.arun(requests[0])  # warm: imports, graph compile
        forget_comparisons()  # each pass starts with no comparison remembered
        start = time.process_time()
        scores: dict[int, bool] = {}
        async for item in judge.ajudge_many(requests, concurrency=32):
            scores[item.index] = bool(item.verdict and item.verdict.scores and item.verdict.scores[0] == 1.0)
        cpu = time.process_time() - start
    return cpu, [scores[k] for k in range(len(requests))]


async def bench(data: Path = DATA) -> str:
    solutions = _solutions(data)
    labels = [label for *_, label in solutions]
    n = len(solutions)
    # Python's default collector first, then tuned as `judgegraph judge`, `serve` and the workers run
    # (`judgegraph.tune_gc()`, which cannot be undone: so in that order), each judgegraph row against
    # math-verify under the same collector.
    default_mv_cpu, default_mv = _math_verify(solutions)
    default_cpu, default = await _judgegraph(solutions, False)
    tune_gc()
    mv_cpu, mv = _math_verify(solutions)
    with tempfile.TemporaryDirectory() as tmp:
        stored_cpu, stored = await _judgegraph(solutions, Path(tmp) / "runs.db")
    bare_cpu, bare = await _judgegraph(solutions, False)

    def row(name: str, cpu: float, got: list[bool], base: float = mv_cpu) -> list[object]:
        agree = sum(a == b for a, b in zip(got, labels, strict=True))
        same = sum(a == b for a, b in zip(got, mv, strict=True))
        return [name, 1000 * cpu / n, cpu / base, f"{agree}/{n}", f"{same}/{n}"]

    verl = _verl(solutions)
    rows = [row("math-verify", mv_cpu, mv)]
    if isinstance(verl, tuple):
        rows.append(row("verl `default_compute_score` (lighteval/MATH), its own process", *verl))
        about_verl = " verl's scorer runs in its own environment (`make trainers`), CPU of that process."
    else:
        about_verl = f" verl's rule-based scorer is not measured: {verl}."
    rows += [
        row("judgegraph evidence, store on", stored_cpu, stored),
        row("judgegraph evidence, no store", bare_cpu, bare),
        row("math-verify, default collector", default_mv_cpu, default_mv, default_mv_cpu),
        row("judgegraph evidence, no store, default collector", default_cpu, default, default_mv_cpu),
    ]
    return (
        (
            f"{n} real MATH solutions (Qwen2.5-Math's 100 problems x 8 samples), each scored against its answer; CPU"
            f" per solution.{about_verl} The first rows run with the garbage collector tuned as judgegraph's CLI,"
            " server and workers tune it (`judgegraph.tune_gc()`); the last two with Python's default, each against"
            " math-verify under the same collector.\n\n"
        )
        + table(["scorer", "CPU ms per solution", "x math-verify", "agrees with labels", "same as math-verify"], rows)
        + "\n\n"
        + _WHERE_THE_TIME_GOES
    )


_WHERE_THE_TIME_GOES = """Where judgegraph's time goes (profiled 2026-12-02, tuned collector, no store): \
the reference check itself \
about 0.5 ms warm, 1 ms on first sight of an answer (extraction and judgegraph's own comparison on the event loop; \
sympy and math-verify, which 132 of the 800 need, in a worker thread); LangGraph's machinery for the two \
super-steps a rule-decided run takes (gather_evidence, weigh_evidence) about 0.75 ms (a graph of two no-op nodes \
costs that much: it was five super-steps, about 2 ms, until 2026-12-02); the rest is the run's own asyncio tasks, \
the request's validation and the recording, each a few microseconds, about 1 ms together at 32 in flight. The \
store adds the trajectory's events as JSON rows, written by a group-commit thread. verl's MATH scorer takes about \
0.005 ms a solution: it compares normalised strings of the last `\\boxed{}` with no parser. Ratios move with the \
machine's load: compare within one run."""


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    print(asyncio.run(bench(parser.parse_args().data)))
