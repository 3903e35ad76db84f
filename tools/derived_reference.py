"""`derived_reference`: math without a reference. Where the candidates' final answers differ and no reference was
given, the judge's model solves the problem by program k times (self-consistency, after TIR-Judge); the programs
run in the sandbox and the answer most of them print is a derived reference, with its vote share.

A derived reference is evidence marked `derived`, never ground truth, read two ways:
- against a majority (more than half the programs print one answer): a candidate whose answer differs fails it
  (deciding against);
- by dual agreement (after CodeT: the candidates' answers are hypotheses, the programs independent samples): a
  candidate whose answer no program reproduced, where another candidate's answer was reproduced by at least one,
  fails. A small model's programs rarely agree with each other, but an answer one of them reproduces is far more
  often the right one than the wrong one (EVALS.md, math-noref). A majority that no candidate states (two or
  more answered) says they are all wrong and orders none of them: they are read this way too.
A program that fails or prints nothing goes back to the model once with its error (self-debugging).
A candidate that passes is supported, not proven (the criterion is not conclusive); where neither reading
applies the result informs only. The programs run once per prompt (the evidence cache), shared by both candidate
orders, every candidate, and every later request with the same prompt.
"""

from __future__ import annotations

import asyncio
import hashlib
import re

from pydantic import BaseModel, Field

from judgegraph.errors import ToolFailure
from judgegraph.schema import CriterionResult, JudgeRequest, ToolCall, ToolResult
from judgegraph.tools._base import ToolContext, ToolOutput, candidate_criterion, each_candidate, reads, tool
from judgegraph.tools._prompts import tool_prompt
from judgegraph.tools.code.language import languages
from judgegraph.tools.code.python_runs import PythonResult, run_program
from judgegraph.tools.math.answers import committed_answer
from judgegraph.tools.math.choices import as_choice, choice_options, same_answer
from judgegraph.tools.math.unsettled import math_to_settle

MAJORITY = 0.5
"""A derived answer decides only when more than this share of the programs printed it."""


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
    repaired: int = 0
    """How many of the programs are a repair: the model's rewrite of one that failed or printed nothing."""


class DerivedReferenceResult(BaseModel):
    """What `derived_reference` found for one candidate."""

    candidate: int
    extracted: str | None
    derived: Derivation
    matches: bool
    decisive: bool
    """Whether the derived answer had a majority that decides: one some candidate states, or any where a single
    candidate answered. A majority no candidate states orders none of them: they are read by dual agreement."""
    support: int = 0
    """How many programs printed this candidate's answer."""
    rival_support: int = 0
    """The most programs that printed another candidate's (different) answer."""

    @property
    def outvoted(self) -> bool:
        """No program reproduced this candidate's answer, and at least one reproduced another's."""
        return self.support == 0 and self.rival_support > 0


def plan_derived_reference(request: JudgeRequest) -> list[ToolCall]:
    """More than one candidate and math to settle: derive a reference and compare every candidate with it."""
    if len(request.candidates) < 2 or not math_to_settle(request):
        return []
    return each_candidate("derived_reference", request, "no reference was given and the final answers differ")


@reads(DerivedReferenceResult)
def derived_reference_criterion(result: ToolResult, data: DerivedReferenceResult) -> CriterionResult | None:
    """Against a majority-derived answer, a different answer decides against; by dual agreement, an answer no
    program reproduced (where another candidate's was) decides against. A pass supports, never proves."""
    if data.decisive:
        passed, score = data.matches, data.derived.share if data.matches else 0.0
    elif data.outvoted or data.support > 0:  # an outvoted answer scores 0, whatever support it had
        passed = not data.outvoted
        score = data.support / max(1, data.derived.samples) if passed else 0.0
    else:
        return None
    criterion = candidate_criterion(result, "matches_derived_reference", data.candidate, passed, score)
    return criterion if not passed else criterion.model_copy(update={"conclusive": False})


_MAPPING = re.compile(r"^\{\s*[A-Za-z_]\w*\s*:\s*([^,{}:]+?)\s*\}$")


def _one_solution(printed: str) -> str:
    """sympy's `solve` prints its solutions as a list (`[3]`, `[(1, 2)]`; with dict=True, `[{x: 3}]`): a list of
    one solution is read as that solution, a mapping of one unknown as its value. Several stay as printed."""
    if printed.startswith("[") and printed.endswith("]"):
        depth = 0
        for i, ch in enumerate(printed):
            depth += ch in "([{"
            depth -= ch in ")]}"
            if (depth == 0 and i < len(printed) - 1) or (depth == 1 and ch == ","):
                break  # the first bracket closes early, or a second solution
        else:
            printed = printed[1:-1].strip()
    found = _MAPPING.match(printed)
    return found.group(1) if found else printed


def _answer_of(run: PythonResult) -> str | None:
    if run.timed_out or run.oom_killed or run.exit_code not in (0, None):
        return None
    lines = [line.strip() for line in run.stdout.splitlines() if line.strip()]
    if not lines:
        return None
    last = re.sub(r"^(?:final answer|answer)\s*[:=]\s*", "", lines[-1], flags=re.IGNORECASE)
    return _one_solution(last)[:200] or None


def _vote(answers: list[str | None], options: dict[str, str] | None = None) -> tuple[str | None, int]:
    """The answer most programs agree on (equivalent forms, or the same option, count together), and its votes."""
    groups: list[tuple[str, int]] = []
    for a in answers:
        if a is None:
            continue
        for k, (rep, n) in enumerate(groups):
            if same_answer(a, rep, options):
                groups[k] = (rep, n + 1)
                break
        else:
            groups.append((a, 1))
    if not groups:
        return None, 0
    return max(groups, key=lambda g: g[1])


async def _derive(ctx: ToolContext, samples: int, repairs: int, options: dict[str, str]) -> Derivation:
    """k programs for the problem, run; one that fails or prints nothing goes back to the model with what went
    wrong, up to `repairs` times (self-debugging: most failures are a misspelled name or a syntax slip)."""
    assert ctx.model is not None and ctx.services is not None
    from judgegraph.backends import Sampling

    await ctx.model.connect()
    pool = await ctx.services.sandbox()
    messages = [
        # plain arithmetic, not sympy (which the sandbox has): told sympy is there, the 1.5B model wrote 76% of its
        # MATH programs with it (5% before) and fewer pairs were judged right (EVALS.md, math-noref)
        {"role": "system", "content": tool_prompt("derived_reference", "system")},
        {"role": "user", "content": tool_prompt("derived_reference", "user", problem=ctx.request.prompt)},
    ]

    async def one(i: int) -> tuple[PythonResult | None, bool]:
        """The i-th program's last run, and whether it was a repair."""
        sampling = Sampling(temperature=0.0 if samples == 1 else 0.7, max_tokens=700, seed=i)
        conversation = list(messages)
        run: PythonResult | None = None
        for attempt in range(1 + repairs):
            turn = await ctx.model.chat(conversation, sampling=sampling)  # type: ignore[union-attr]
            if ctx.on_model_turn is not None:
                ctx.on_model_turn(turn)
            if turn.error is not None or not turn.text:
                break
            run = await run_program(pool, languages.get("python").extract(turn.text, None) or turn.text)
            what = _what_went_wrong(run)
            if what is None or attempt == repairs:
                return run, attempt > 0
            conversation += [
                {"role": "assistant", "content": turn.text},
                {"role": "user", "content": tool_prompt("derived_reference", "repair", what=what)},
            ]
        return run, False

    found = await asyncio.gather(*(one(i) for i in range(samples)))
    runs = [r for r, _ in found]
    answers = [_answer_of(r) if r is not None else None for r in runs]
    answer, votes = _vote(answers, options)
    return Derivation(
        answer=answer,
        votes=votes,
        samples=samples,
        share=votes / samples,
        answers=answers,
        programs=[r for r in runs if r is not None],
        repaired=sum(repaired for _, repaired in found),
    )


def _what_went_wrong(run: PythonResult) -> str | None:
    """What to tell the model about a program worth repairing (None: it printed an answer, or it ran out of time
    or memory, which a rewrite of the same idea rarely fixes)."""
    if run.timed_out or run.oom_killed:
        return None
    if run.exit_code not in (0, None):
        return "failed:\n" + (run.error or f"exit code {run.exit_code}")
    if _answer_of(run) is None:
        return "printed nothing. Its last printed line must be the final answer."
    return None


def _summary(r: DerivedReferenceResult) -> str:
    d = r.derived
    if d.answer is None:
        return f"no derived reference: none of the {d.samples} programs printed an answer"
    head = f"derived reference (not ground truth): {d.answer!r}, printed by {d.votes} of {d.samples} programs"
    if d.share <= MAJORITY:
        head += " (no majority)"
    elif not r.decisive:
        head += " (a majority no candidate states: read by which answers a program reproduced)"
    if d.repaired:
        head += f"; {d.repaired} of them rewritten once after failing"
    said = "states no final answer" if r.extracted is None else f"states {r.extracted!r}"
    verdict = "which matches it" if r.matches else "which differs from it"
    agreement = f"{r.support} of {d.samples} programs printed this candidate's answer"
    if r.rival_support:
        agreement += f", up to {r.rival_support} another candidate's"
    return f"{head}\ncandidate {r.candidate} {said}, {verdict}; {agreement}"


@tool("derived_reference", timeout_s=600.0, plan=plan_derived_reference, criterion=derived_reference_criterion)
async def derived_reference(args: DerivedReferenceArgs, ctx: ToolContext) -> ToolOutput:
    """Derive a reference answer by writing and running programs that solve the problem (several times, by vote),
    then compare one candidate's final answer with it. The derived answer is evidence, not ground truth."""
    if ctx.model is None:
        raise ToolFailure("deriving a reference needs the judge's model, and this judge has none")
    if ctx.services is None:
        raise ToolFailure("no sandbox is available to this judge")
    ctx.candidate(args.candidate)  # an index with no candidate fails here, before any model call
    samples, repairs = ctx.services.derived_samples, ctx.services.derived_repairs
    key = "derived_reference:" + hashlib.sha256(f"{samples}\0{repairs}\0{ctx.request.prompt}".encode()).hexdigest()
    options = choice_options(ctx.request.prompt)
    derivation = await ctx.services.once(key, lambda: _derive(ctx, samples, repairs, options))
    stated = [as_choice(committed_answer(c.content), options) for c in ctx.request.candidates]
    others = [a for i, a in enumerate(stated) if i != args.candidate]
    result = compare(args.candidate, stated[args.candidate], derivation, others, options)
    return ToolOutput(text=_summary(result), data=result)


def compare(
    candidate: int,
    extracted: str | None,
    derivation: Derivation,
    others: list[str | None],
    options: dict[str, str] | None = None,
) -> DerivedReferenceResult:
    """One candidate's answer against the derivation: the majority reading and its support against the other
    candidates' (different) answers. Where the statement lists `options`, answers are compared as the option
    they name (a program printing 24 reproduces a candidate's `C` when option C is 24)."""
    rivals = [a for a in others if a is not None and not (extracted is not None and same_answer(a, extracted, options))]
    stated = [a for a in (extracted, *others) if a is not None]
    answer = derivation.answer
    # a majority decides where some candidate states it, or where only one answered (it then fails or matches)
    decisive = (
        answer is not None
        and derivation.share > MAJORITY
        and (len(stated) < 2 or any(same_answer(a, answer, options) for a in stated))
    )
    return DerivedReferenceResult(
        candidate=candidate,
        extracted=extracted,
        derived=derivation,
        matches=bool(answer is not None and extracted is not None and same_answer(extracted, answer, options)),
        decisive=decisive,
        support=_support(extracted, derivation, options),
        rival_support=max((_support(a, derivation, options) for a in rivals), default=0),
    )


def _support(answer: str | None, derivation: Derivation, options: dict[str, str] | None = None) -> int:
    """How many of the programs printed `answer`."""
    if answer is None:
        return 0
    return sum(1 for a in derivation.answers if a is not None and same_answer(answer, a, options))
