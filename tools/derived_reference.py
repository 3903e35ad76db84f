"""`derived_reference`: math without a reference. Where the candidates' final answers differ and no reference was
given, the judge's model solves the problem by program k times (self-consistency, after TIR-Judge); the programs
run in the sandbox and the answer most of them print is a derived reference, with its vote share.

A derived reference is evidence marked `derived`, never ground truth: a candidate whose answer differs from a
majority-derived answer fails it (deciding against), one that matches it is supported, not proven (the
criterion is not conclusive). Without a majority it informs only. It is derived once per prompt (the evidence
cache) and shared by both candidate orders, every candidate, and every later request with the same prompt.
"""

from __future__ import annotations

import asyncio
import hashlib
import re

from pydantic import BaseModel, Field

from judgegraph.errors import ToolFailure
from judgegraph.schema import CriterionResult, JudgeRequest, ToolCall, ToolResult
from judgegraph.tools._answers import committed_answer, equivalent, normalize
from judgegraph.tools._base import ToolContext, ToolOutput, candidate_criterion, each_candidate, result_data, tool
from judgegraph.tools._languages import languages
from judgegraph.tools.python import PythonResult, run_program
from judgegraph.tools.run_code import contains_code

MAJORITY = 0.5
"""A derived answer decides only when more than this share of the programs printed it."""
SYSTEM = (
    "You solve math problems by writing a Python 3 program (standard library only: fractions, math, itertools). "
    "Compute the answer exactly; do not guess. The program's last printed line must be the final answer alone: "
    "a number, a fraction like 3/4, or an expression."
)
USER = "Problem:\n{problem}\n\nReply with the program in one ```python block."


class DerivedReferenceArgs(BaseModel):
    """Arguments of `derived_reference`."""

    candidate: int = Field(ge=0, description="Index of the candidate (0-based) whose final answer to compare.")


class Derivation(BaseModel):
    """The reference the judge derived for a prompt."""

    provenance: str = "derived"
    answer: str | None
    """The answer most programs printed (None: no program printed one)."""
    votes: int
    samples: int
    share: float
    """votes / samples."""
    answers: list[str | None]
    """Each program's answer, in order (None: it printed nothing or failed)."""
    programs: list[PythonResult]


class DerivedReferenceResult(BaseModel):
    """What `derived_reference` found for one candidate."""

    candidate: int
    extracted: str | None
    derived: Derivation
    matches: bool
    decisive: bool
    """Whether the derived answer had a majority (else the comparison informs only)."""


def plan_derived_reference(request: JudgeRequest) -> list[ToolCall]:
    """No reference, no tests, more than one candidate, each stating a final answer (not code), and not all the
    same answer: derive a reference and compare every candidate with it."""
    if request.has_evidence("reference") or request.tests or len(request.candidates) < 2:
        return []
    if any(contains_code(request, c.content) for c in request.candidates):
        return []
    answers = [committed_answer(c.content) for c in request.candidates]
    if any(a is None for a in answers):
        return []
    first = answers[0]
    assert first is not None
    if all(a is not None and equivalent(a, first).equivalent for a in answers[1:]):
        return []
    return each_candidate("derived_reference", request, "no reference was given and the final answers differ")


def derived_reference_criterion(result: ToolResult) -> CriterionResult | None:
    """Against a majority-derived answer: a different answer decides against; the same supports, never proves."""
    data = result_data(result, DerivedReferenceResult)
    if data is None or not data.decisive:
        return None
    score = data.derived.share if data.matches else 0.0
    criterion = candidate_criterion(result, "matches_derived_reference", data.candidate, data.matches, score)
    return criterion if not data.matches else criterion.model_copy(update={"conclusive": False})


def _answer_of(run: PythonResult) -> str | None:
    if run.timed_out or run.oom_killed or run.exit_code not in (0, None):
        return None
    lines = [line.strip() for line in run.stdout.splitlines() if line.strip()]
    if not lines:
        return None
    last = re.sub(r"^(?:final answer|answer)\s*[:=]\s*", "", lines[-1], flags=re.IGNORECASE)
    return last[:200] or None


def _vote(answers: list[str | None]) -> tuple[str | None, int]:
    """The answer most programs agree on (equivalent forms count together), and its votes."""
    groups: list[tuple[str, int]] = []
    for a in answers:
        if a is None:
            continue
        for k, (rep, n) in enumerate(groups):
            if equivalent(a, rep).equivalent:
                groups[k] = (rep, n + 1)
                break
        else:
            groups.append((a, 1))
    if not groups:
        return None, 0
    return max(groups, key=lambda g: g[1])


async def _derive(ctx: ToolContext, samples: int) -> Derivation:
    assert ctx.model is not None and ctx.services is not None
    from judgegraph.backends import Sampling

    await ctx.model.connect()
    pool = await ctx.services.sandbox()
    messages = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": USER.format(problem=ctx.request.prompt)},
    ]

    async def one(i: int) -> PythonResult | None:
        sampling = Sampling(temperature=0.0 if samples == 1 else 0.7, max_tokens=700, seed=i)
        turn = await ctx.model.chat(messages, sampling=sampling)  # type: ignore[union-attr]
        if ctx.on_model_turn is not None:
            ctx.on_model_turn(turn)
        if turn.error is not None or not turn.text:
            return None
        return await run_program(pool, languages.get("python").extract(turn.text, None) or turn.text)

    runs = await asyncio.gather(*(one(i) for i in range(samples)))
    answers = [_answer_of(r) if r is not None else None for r in runs]
    answer, votes = _vote(answers)
    return Derivation(
        answer=answer,
        votes=votes,
        samples=samples,
        share=votes / samples,
        answers=answers,
        programs=[r for r in runs if r is not None],
    )


def _summary(r: DerivedReferenceResult) -> str:
    d = r.derived
    if d.answer is None:
        return f"no derived reference: none of the {d.samples} programs printed an answer"
    head = f"derived reference (not ground truth): {d.answer!r}, printed by {d.votes} of {d.samples} programs"
    if not r.decisive:
        head += " (no majority: it informs only)"
    said = "states no final answer" if r.extracted is None else f"states {r.extracted!r}"
    verdict = "which matches it" if r.matches else "which differs from it"
    return f"{head}\ncandidate {r.candidate} {said}, {verdict}"


@tool("derived_reference", timeout_s=240.0, plan=plan_derived_reference, criterion=derived_reference_criterion)
async def derived_reference(args: DerivedReferenceArgs, ctx: ToolContext) -> ToolOutput:
    """Derive a reference answer by writing and running programs that solve the problem (several times, by vote),
    then compare one candidate's final answer with it. The derived answer is evidence, not ground truth."""
    if ctx.model is None:
        raise ToolFailure("deriving a reference needs the judge's model, and this judge has none")
    if ctx.services is None:
        raise ToolFailure("no sandbox is available to this judge")
    text = ctx.candidate(args.candidate)
    samples = ctx.services.derived_samples
    key = "derived_reference:" + hashlib.sha256(f"{samples}\0{ctx.request.prompt}".encode()).hexdigest()
    derivation = await ctx.services.once(key, lambda: _derive(ctx, samples))
    extracted = committed_answer(text)
    matches = bool(derivation.answer is not None and extracted is not None and _same(extracted, derivation.answer))
    result = DerivedReferenceResult(
        candidate=args.candidate,
        extracted=extracted,
        derived=derivation,
        matches=matches,
        decisive=derivation.answer is not None and derivation.share > MAJORITY,
    )
    return ToolOutput(text=_summary(result), data=result)


def _same(answer: str, derived: str) -> bool:
    return equivalent(answer, derived).equivalent or normalize(answer) == normalize(derived)
