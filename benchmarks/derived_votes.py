"""Math without a reference (issue #21): how often the answers a model's programs print separate a right final
answer from a wrong one, and how often wrongly, under each reading of the votes and each number of programs.

On every `math-noref` pair (real MATH and GSM8K solutions: one right final answer, one wrong), the judge's
`derived_reference` tool runs as the evidence judge runs it (the model writes k programs for the problem, they
run in the sandbox, each candidate is compared). From the same programs (each its own seed): the first 3, the
first half, the second half (another draw of as many programs: how much one draw's luck moves the figures), and
all k. Each reading is scored per pair: decided rightly (the wrong candidate fails, the right one does not),
decided wrongly, or undecided.

- majority: only an answer more than half the programs print decides (the tool before dual agreement);
- dual agreement (the tool now): as majority, and a candidate whose answer no program reproduced, where a program
  reproduced the other's, fails.

Run: `python -m benchmarks.derived_votes [--model qwen2.5-coder-1.5b] [--pairs 34] [--samples 5] [--repairs 1]
[--threads N]`
(the embedded model on this machine's CPU; minutes a pair).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter

from benchmarks._util import table
from judgegraph.backends import EmbeddedServer, ModelClient
from judgegraph.evals import build_set
from judgegraph.schema import JudgeRequest, ToolCall, ToolResult
from judgegraph.tools import DerivedReferenceResult, ToolContext, ToolServices, call_tool
from judgegraph.tools.derived_reference import Derivation, _vote, compare, derived_reference_criterion


async def _pair(ctx: ToolContext) -> list[DerivedReferenceResult]:
    results: list[ToolResult] = [
        await call_tool(ToolCall(name="derived_reference", arguments={"candidate": i}), ctx) for i in range(2)
    ]
    out = []
    for r in results:
        if not r.ok or r.data is None:
            raise RuntimeError(f"derived_reference failed: {r.error}")
        out.append(DerivedReferenceResult.model_validate(r.data))
    return out


def _outcome(request: JudgeRequest, passes: list[bool | None]) -> str:
    label = request.label
    assert label is not None and label.winner is not None
    right, wrong = passes[label.winner], passes[1 - label.winner]
    if wrong is False and right is not False:
        return "rightly"
    if right is False and wrong is not False:
        return "wrongly"
    return "undecided"


async def run(model: str, pairs: int, samples: int = 5, repairs: int = 1, threads: int | None = None) -> str:
    requests = await build_set("math-noref", pairs)
    server = EmbeddedServer(model=model, n_threads=threads)
    url = await server.start()
    client = ModelClient(url, timeout_s=900.0)
    services = ToolServices(sandbox="auto", derived_samples=samples, derived_repairs=repairs)
    half = samples // 2
    draws = {f"k = {min(3, samples)}, the first": (0, min(3, samples)), f"k = {samples}": (0, samples)}
    if samples >= 6:  # two halves of at least 3
        draws |= {f"k = {half}, the first half": (0, half), f"k = {half}, the second half": (half, 2 * half)}
    counts: dict[str, Counter[str]] = {}
    seconds: list[float] = []
    try:
        for request in requests:
            ctx = ToolContext(request=request, services=services, model=client)
            start = time.perf_counter()
            found = await _pair(ctx)
            seconds.append(time.perf_counter() - start)
            print(request.id, f"{seconds[-1]:.0f} s", found[0].derived.answers, file=sys.stderr)
            for draw, (start, stop) in draws.items():
                shortened = [_some(r, found, start, stop) for r in found]
                for dual in (False, True):
                    name = f"{draw}, " + ("dual agreement (the tool)" if dual else "majority only")
                    passes = [_passes(r, dual) for r in shortened]
                    counts.setdefault(name, Counter())[_outcome(request, passes)] += 1
    finally:
        await services.aclose()
        await client.close()
        await server.stop()
    rows = [[name, len(requests), c["rightly"], c["wrongly"], c["undecided"]] for name, c in counts.items()]
    footer = f"\n\n{model}: {sum(seconds) / max(1, len(seconds)):.0f} s a prompt for {samples} programs"
    footer += f" ({repairs} repair(s) of a failing one)"
    return table(["reading", "pairs", "decided rightly", "decided wrongly", "undecided"], rows) + footer


def _passes(result: DerivedReferenceResult, dual: bool) -> bool | None:
    """Whether the candidate passes under a reading (None: it decides nothing about it)."""
    if not dual:
        return result.matches if result.decisive else None
    criterion = derived_reference_criterion(
        ToolResult(call_id="c", name="derived_reference", ok=True, text="", data=result.model_dump())
    )
    return None if criterion is None else bool(criterion.passed)


def _some(
    result: DerivedReferenceResult, pair: list[DerivedReferenceResult], start: int, stop: int
) -> DerivedReferenceResult:
    """The result had the tool written only programs `start` to `stop` (the same seeds)."""
    answers = result.derived.answers[start:stop]
    answer, votes = _vote(answers)
    k = stop - start
    derivation = Derivation(answer=answer, votes=votes, samples=k, share=votes / k, answers=answers, programs=[])
    others = [o.extracted for o in pair if o.candidate != result.candidate]
    return compare(result.candidate, result.extracted, derivation, others)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--pairs", type=int, default=34)
    parser.add_argument("--samples", type=int, default=5, help="programs a prompt (k)")
    parser.add_argument("--repairs", type=int, default=1, help="repairs of a program that fails")
    parser.add_argument("--threads", type=int, default=None, help="the model server's threads")
    args = parser.parse_args()
    print(asyncio.run(run(args.model, args.pairs, args.samples, args.repairs, args.threads)))
