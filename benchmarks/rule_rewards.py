"""Rule-decided rewards: judgegraph's CPU per reward against a plain verifier, in one run, same answers.

Qwen2.5-Math's 100 MATH problems x 8 sampled solutions (`../shared/data/math/math_cot_100.jsonl`), each scored
against its reference answer, in the two shapes RL trainers score:
- one rollout at a time (GRPO: each completion gets a reward), by math-verify (`verify(parse(gold),
  parse(solution))`, what TRL and open-r1 call), by verl's rule-based scorer for MATH where verl's environment
  is built (`make trainers`), and by judgegraph's `evidence` judge, pointwise;
- chosen/rejected pairs (each correct rollout of a problem against each wrong one, both orders: 256 pairs), both
  candidates scored by math-verify, and one pairwise judgment by judgegraph.
judgegraph runs through `ajudge_many` at concurrency 32, each run recorded to a SQLite store, or to none, and
with no model reachable (a request that needed one would get an invalid verdict, counted as a disagreement).
CPU is this process's CPU time (all threads) per reward or pair, the median of three passes. Run:
`python -m benchmarks.run rule_rewards` (or `python -m benchmarks.rule_rewards --data DIR`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from benchmarks._util import table
from benchmarks.real_data import DATA
from judgegraph import tune_gc

Solution = tuple[str, str, str, bool]
"""(problem, reference answer, solution, label)."""
Pair = tuple[str, str, str, str]
"""(problem, reference answer, first solution, second solution): one right, one wrong (by the labels)."""

PASSES = 3
"""Each scorer's CPU is the median of this many passes over the same input (the machine's load moves it)."""
NO_MODEL = "http://127.0.0.1:9/v1"
"""Nothing listens here: a request that needed a model fails alone, and no embedded server starts."""


def _solutions(data: Path) -> list[Solution]:
    """(problem, reference answer, solution, label) for every sampled solution."""
    rows = [json.loads(line) for line in (data / "math" / "math_cot_100.jsonl").read_text().splitlines()]
    return [
        (row["question"], row["answer"], text, bool(row["score"][k]))
        for row in rows
        for k, text in enumerate(row["response"])
    ]


def _pairs(solutions: list[Solution]) -> list[tuple[Pair, tuple[bool, bool]]]:
    """Every labelled-correct rollout of a problem against every labelled-wrong one, in both orders, with the
    labels of the two."""
    by_problem: dict[tuple[str, str], list[Solution]] = {}
    for s in solutions:
        by_problem.setdefault((s[0], s[1]), []).append(s)
    pairs: list[tuple[Pair, tuple[bool, bool]]] = []
    for (question, gold), group in by_problem.items():
        for _, _, right, ok in group:
            for _, _, wrong, bad in group:
                if ok and not bad:
                    pairs += [
                        ((question, gold, right, wrong), (True, False)),
                        ((question, gold, wrong, right), (False, True)),
                    ]
    return pairs


def _math_verify(answers: list[tuple[str, str]]) -> tuple[float, list[bool]]:
    """math-verify on (gold, solution) pairs: its CPU (the median of `PASSES`) and its verdicts."""
    from math_verify import parse, verify

    verify(parse("$1$"), parse("1"))  # warm: its LaTeX grammar loads on first use
    cpu: list[float] = []
    for _ in range(PASSES):
        start = time.process_time()
        out = []
        for gold, text in answers:
            try:
                out.append(bool(verify(parse(f"${gold}$"), parse(text))))
            except Exception:
                out.append(False)
        cpu.append(time.process_time() - start)
    return statistics.median(cpu), out


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


def _verl(solutions: list[Solution]) -> tuple[float, list[bool]] | str:
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


async def _judgegraph(
    requests: list[dict[str, Any]], store: Path | Literal[False], scored: Callable[[list[float] | None], Any]
) -> tuple[float, list[Any]]:
    """The `evidence` judge over `requests`: its CPU (the median of `PASSES`, each starting with no comparison
    remembered) and `scored(verdict scores)` for each, in input order."""
    from judgegraph import Judge
    from judgegraph.tools.math.equivalence import forget_comparisons

    cpu: list[float] = []
    async with Judge.load("evidence", store=store, model_url=NO_MODEL) as judge:
        await judge.arun(requests[0])  # warm: imports, graph compile
        for _ in range(PASSES):
            forget_comparisons()
            start = time.process_time()
            out: dict[int, Any] = {}
            async for item in judge.ajudge_many(requests, concurrency=32):
                out[item.index] = scored(item.verdict.scores if item.verdict and item.verdict.valid else None)
            cpu.append(time.process_time() - start)
    return statistics.median(cpu), [out[k] for k in range(len(requests))]


async def _verl_per_rollout(solutions: list[Solution], store: Path) -> tuple[float, list[bool]]:
    """judgegraph's verl reward function called as verl's reward loop calls it: once per rollout, the whole batch
    at once (its calls for one problem's rollouts coalesced into a group by the default window); CPU as above."""
    from judgegraph import Judge
    from judgegraph.adapters import verl as verl_adapter
    from judgegraph.tools.math.equivalence import forget_comparisons

    problem: dict[str, int] = {}
    calls = [(text, gold, {"index": problem.setdefault(q, len(problem))}) for q, gold, text, _ in solutions]
    cpu: list[float] = []
    # the judge the adapter would load on first use, with this benchmark's store and no model
    async with Judge.load("evidence", store=store, model_url=NO_MODEL) as judge:
        verl_adapter._JUDGES["evidence"] = judge
        try:
            await verl_adapter.compute_score_async("lighteval/MATH", "1", "1", {"index": -1})  # warm
            for _ in range(PASSES):
                forget_comparisons()
                start = time.process_time()
                got = await asyncio.gather(
                    *(verl_adapter.compute_score_async("lighteval/MATH", x, gold, info) for x, gold, info in calls)
                )
                cpu.append(time.process_time() - start)
        finally:
            del verl_adapter._JUDGES["evidence"]
    assert all(r["group_size"] == 8 for r in got), "a problem's 8 calls were not one group"
    return statistics.median(cpu), [r["valid"] and r["score"] == 1.0 for r in got]


GROUP_SIZES = (1, 4, 8, 16)


def _groups(
    solutions: list[Solution], mv: list[bool], k: int
) -> tuple[list[dict[str, Any]], list[int], list[bool], list[bool]]:
    """Group requests of k rollouts of one problem (k = 16: its 8 twice), their sizes, and the labels and
    math-verify's answers in the same order as the groups' rollouts."""
    by_problem: dict[tuple[str, str], list[int]] = {}
    for i, (q, gold, _, _) in enumerate(solutions):
        by_problem.setdefault((q, gold), []).append(i)
    requests: list[dict[str, Any]] = []
    sizes: list[int] = []
    truth: list[bool] = []
    ref: list[bool] = []
    for (q, gold), members in by_problem.items():
        members = members * max(1, k // len(members))
        for start in range(0, len(members), k):
            chunk = members[start : start + k]
            requests.append(
                {
                    "id": f"g{len(requests)}",
                    "prompt": q,
                    "candidates": [solutions[i][2] for i in chunk],
                    "mode": "pointwise",
                    "reference": gold,
                }
            )
            sizes.append(len(chunk))
            truth += [solutions[i][3] for i in chunk]
            ref += [mv[i] for i in chunk]
    return requests, sizes, truth, ref


def _group_rewards(scores: list[float] | None) -> list[bool] | None:
    return [s == 1.0 for s in scores] if scores else None


def _rewards(scores: list[float] | None) -> bool:
    return bool(scores and scores[0] == 1.0)


def _pair_rewards(scores: list[float] | None) -> tuple[bool, bool] | None:
    return (scores[0] == 1.0, scores[1] == 1.0) if scores and len(scores) == 2 else None


async def bench(data: Path = DATA) -> str:
    solutions = _solutions(data)
    labels = [label for *_, label in solutions]
    n = len(solutions)
    pointwise: list[dict[str, Any]] = [
        {"id": f"s{k}", "prompt": q, "candidates": [text], "mode": "pointwise", "reference": gold}
        for k, (q, gold, text, _) in enumerate(solutions)
    ]
    labelled = _pairs(solutions)
    pairs = [pair for pair, _ in labelled]
    pair_labels = [both for _, both in labelled]
    pairwise: list[dict[str, Any]] = [
        {"id": f"p{k}", "prompt": q, "candidates": [a, b], "mode": "pairwise", "reference": gold}
        for k, (q, gold, a, b) in enumerate(pairs)
    ]
    # Python's default collector first, then tuned as `judgegraph judge`, `serve` and the workers run
    # (`judgegraph.tune_gc()`, which cannot be undone: so in that order), each judgegraph row against
    # math-verify under the same collector.
    default_mv_cpu, default_mv = _math_verify([(gold, text) for _, gold, text, _ in solutions])
    default_cpu, default = await _judgegraph(pointwise, False, _rewards)
    tune_gc()
    mv_cpu, mv = _math_verify([(gold, text) for _, gold, text, _ in solutions])
    with tempfile.TemporaryDirectory() as tmp:
        stored_cpu, stored = await _judgegraph(pointwise, Path(tmp) / "runs.db", _rewards)
    bare_cpu, bare = await _judgegraph(pointwise, False, _rewards)
    pair_mv_cpu, flat = _math_verify([(gold, text) for _, gold, a, b in pairs for text in (a, b)])
    pair_mv = list(zip(flat[::2], flat[1::2], strict=True))
    with tempfile.TemporaryDirectory() as tmp:
        pair_stored_cpu, pair_stored = await _judgegraph(pairwise, Path(tmp) / "runs.db", _pair_rewards)
    pair_bare_cpu, pair_bare = await _judgegraph(pairwise, False, _pair_rewards)

    def row(
        name: str, cpu: float, got: list[Any], base: float, truth: list[Any], ref: list[Any], k: int
    ) -> list[object]:
        agree = sum(a == b for a, b in zip(got, truth, strict=True))
        same = sum(a == b for a, b in zip(got, ref, strict=True))
        return [name, f"{1000 * cpu / k:.3g}", f"{cpu / base:.2g}", f"{agree}/{k}", f"{same}/{k}"]

    def one(name: str, cpu: float, got: list[bool], base: float = mv_cpu, ref: list[bool] = mv) -> list[object]:
        return row(name, cpu, got, base, labels, ref, n)

    def two(name: str, cpu: float, got: list[Any]) -> list[object]:
        return row(name, cpu, got, pair_mv_cpu, pair_labels, pair_mv, len(pairs))

    # Group judgments: a prompt's rollouts in one pointwise run (k = 16: each problem's 8 samples twice, as a
    # GRPO group of 16 often repeats answers), store on and off, CPU per solution against math-verify's.
    group_rows = []
    for k in GROUP_SIZES:
        requests, sizes, truth, ref = _groups(solutions, mv, k)
        for store in ("on", "off"):
            with tempfile.TemporaryDirectory() as tmp:
                where: Path | Literal[False] = Path(tmp) / "runs.db" if store == "on" else False
                cpu, got = await _judgegraph(requests, where, _group_rewards)
            flat = [x for g, size in zip(got, sizes, strict=True) for x in (g or [None] * size)]
            name = f"judgegraph evidence, groups of {k}, store {store}"
            group_rows.append(row(name, cpu, flat, mv_cpu * len(truth) / n, truth, ref, len(truth)))
    with tempfile.TemporaryDirectory() as tmp:
        per_rollout_cpu, per_rollout = await _verl_per_rollout(solutions, Path(tmp) / "runs.db")
    group_rows.append(
        one(
            "judgegraph verl reward, called per rollout, coalesced (groups of 8), store on",
            per_rollout_cpu,
            per_rollout,
        )
    )

    verl = _verl(solutions)
    rows = [one("math-verify", mv_cpu, mv)]
    if isinstance(verl, tuple):
        rows.append(one("verl `default_compute_score` (lighteval/MATH), its own process", *verl))
        about_verl = " verl's scorer runs in its own environment (`make trainers`), CPU of that process."
    else:
        about_verl = f" verl's rule-based scorer is not measured: {verl}."
    rows += [
        one("judgegraph evidence, store on", stored_cpu, stored),
        one("judgegraph evidence, no store", bare_cpu, bare),
        *group_rows,
        one("math-verify, default collector", default_mv_cpu, default_mv, default_mv_cpu, default_mv),
        one("judgegraph evidence, no store, default collector", default_cpu, default, default_mv_cpu, default_mv),
    ]
    pair_rows = [
        two("math-verify, both candidates", pair_mv_cpu, pair_mv),
        two("judgegraph evidence, pairwise, store on", pair_stored_cpu, pair_stored),
        two("judgegraph evidence, pairwise, no store", pair_bare_cpu, pair_bare),
    ]
    return (
        (
            f"{n} real MATH solutions (Qwen2.5-Math's 100 problems x 8 samples), each scored against its answer; CPU"
            f" per solution.{about_verl} A group judgment scores a problem's k rollouts in one run (k = 16: its"
            " 8 samples twice); its CPU per solution is against math-verify's on the same solutions. verl's reward"
            " loop calls a reward function once per rollout, a batch's calls at once: the row 'called per rollout'"
            " is judgegraph's verl reward function called so (800 calls at once), each problem's 8 calls judged as"
            " one group (the default window). The first rows"
            " run with the garbage collector tuned as judgegraph's CLI,"
            " server and workers tune it (`judgegraph.tune_gc()`); the last two with Python's default, each against"
            " math-verify under the same collector.\n\n"
        )
        + table(["scorer", "CPU ms per solution", "x math-verify", "agrees with labels", "same as math-verify"], rows)
        + (
            f"\n\nChosen/rejected pairs: {len(pairs)} (every labelled-correct rollout of a problem against every"
            " labelled-wrong one, both orders; the problems where the 8 samples hold both), tuned collector. A pair"
            " agrees when both candidates' rewards do.\n\n"
        )
        + table(["scorer", "CPU ms per pair", "x math-verify", "agrees with labels", "same as math-verify"], pair_rows)
        + "\n\n"
        + _WHERE_THE_TIME_GOES
    )


_WHERE_THE_TIME_GOES = """Where judgegraph's time goes (profiled 2026-12-03, tuned collector): a rule-decided run is \
one LangGraph super-step (the `evidence` node plans, runs and weighs the checks, gives the verdict and routes to \
the end by `Command`); LangGraph's own machinery for one invoke of one node costs about as much as math-verify's \
check on this machine (a graph of one no-op node: 1.1-1.4 ms; it was five super-steps, about 3 ms, until \
2026-12-02, and a conditional edge is a runnable of its own, about 0.3 ms more). The reference check: about \
0.35 ms a solution (extraction and judgegraph's own comparison on the event loop; sympy and math-verify, which \
132 of the 800 need, in a worker thread; comparisons settled recently are remembered, as k rollouts of one prompt \
often state the same answer). The run's own validation, recording and asyncio tasks: about 0.5 ms. The store: \
the trajectory's events as JSON rows, written by a group-commit thread, about 0.5 ms more. A pair is one \
judgment of both candidates, so the graph's cost is paid once for two checks: that is why pairs cost less than \
two rollouts. verl's MATH scorer takes about 0.005 ms a solution: it compares normalised strings of the last \
`\\boxed{}` with no parser. Ratios move with the machine's load: compare within one run."""


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    print(asyncio.run(bench(parser.parse_args().data)))
