"""Training data from judgegraph's own runs, into a store that `judgegraph export` reads.

Teacher runs: the evidence judge judges each training request; the teacher (`_teacher.py`) then plays its plan
and verdict through the agentic judge's own graph, so each run is an agentic-judge trajectory, rewarded like
any other (`judge_reward`: right, wrong or invalid against the label). Only training-split requests are read
(`evals._splits`); evaluation ids never are."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import BaseModel

from judgegraph.agents import judges
from judgegraph.errors import UsageError
from judgegraph.evals._harness import load_suite
from judgegraph.evals._splits import split_of
from judgegraph.runtime import Judge
from judgegraph.schema import JudgeRequest, Trajectory
from judgegraph.settings import Settings
from judgegraph.store import TrajectoryStore
from judgegraph.training._teacher import Lesson, TeacherModel

VERIFIABLE = [
    "code",
    "math",
    "instructions",
    "documents",
    "library",
    "injection",
    "images",
    "leetcode-noref",
]
"""The bundled sets whose requests carry evidence a tool can check or the judge can make (the teacher plays the
evidence judge's calls): code with tests, and code that carries only its statement. One statement-only set
(LeetCode problems) teaches what `code-noref` (HumanEval docstrings) would: run the statement's examples, then
rule; both together put the recipe over its hour on 2 cores (`--sets` adds it back)."""


class Collected(BaseModel):
    """What a collection run recorded."""

    requests: int
    teacher_runs: int
    correct: int
    """Teacher runs whose verdict agrees with the label (the ones SFT keeps)."""
    store: Path


async def training_requests(suites: list[str], per_suite: int) -> list[JudgeRequest]:
    """The first `per_suite` training-split requests of each bundled set."""
    out = []
    for suite in suites:
        out += await load_suite(suite, limit=per_suite, file=None, split="train")
    leaked = [r.id for r in out if split_of(r.id) != "train"]
    if leaked:  # load_suite guarantees it; training must never read evaluation ids, so check again here
        raise UsageError(f"evaluation ids in the training data: {leaked}")
    return out


async def collect_teacher_runs(
    suites: list[str], per_suite: int, settings: Settings, store: Path, *, concurrency: int = 4
) -> Collected:
    """Judge the training requests with the evidence judge, then record the teacher's agentic runs of them."""
    requests = await training_requests(suites, per_suite)
    limit = asyncio.Semaphore(concurrency)
    async with Judge.load("evidence", settings=settings, store=store) as evidence:

        async def lesson(request: JudgeRequest) -> Lesson:
            async with limit:
                return Lesson.of(await evidence.arun(request))

        lessons = await asyncio.gather(*(lesson(r) for r in requests))
        # The teacher makes the evidence judge's calls; a tool among them that asks the model (an oracle's
        # reference programs) asks the model the evidence judge asked.
        teacher = TeacherModel(lessons, list(judges.get("agentic").tools), fallback=evidence.model)
        async with Judge.load("agentic", settings=settings, store=store, client=teacher) as agentic:

            async def play(request: JudgeRequest) -> bool:
                async with limit:
                    return bool((await agentic.arun(request)).correct)

            correct = await asyncio.gather(*(play(r) for r in requests))
    return Collected(requests=len(requests), teacher_runs=len(requests), correct=sum(correct), store=store)


def stored_runs(store: Path, judge: str = "agentic") -> list[Trajectory]:
    """The store's complete runs of `judge` (none when the store does not exist yet)."""
    if not store.exists():
        return []
    st = TrajectoryStore(store)
    try:
        return [st.get(r.id) for r in st.list_runs(judge=judge, limit=1_000_000) if r.status == "complete"]
    finally:
        st.close()
