"""The evidence-first judge's model nodes, where the evidence did not decide: `deliberate` (a verdict in each
candidate order, or a score per rollout of a group, each judged alone; commit-first where the judge asks for it)
and `tournament` (best-of-N by pairwise comparisons)."""

from __future__ import annotations

import asyncio
import re
from statistics import fmean

from langgraph.types import Command

from judgegraph.agents import Skill, skills
from judgegraph.errors import VerdictParseError
from judgegraph.graphs._aggregate import evidence_criteria, silence_criteria
from judgegraph.graphs._runs import combine_orders, sampling_of, with_images
from judgegraph.graphs._shown import as_shown, candidate_blocks, shown_order, unshuffle
from judgegraph.graphs._verdict_format import (
    RATIONALE_CHARS,
    ModelRuling,
    parse_verdict,
    verdict_format,
    verdict_schema,
)
from judgegraph.graphs.evidence.commit_first import OWN_ANSWER, own_answer_of, ruling_against, scored_against
from judgegraph.graphs.evidence.options import Ctx, EvidenceContext
from judgegraph.graphs.evidence.state import JudgeState
from judgegraph.graphs.evidence.steps import split_steps
from judgegraph.schema import JudgeRequest


def _skill(state: JudgeState) -> Skill | None:
    name = state.get("skill")
    return skills.get(name) if name else None


def _prompt_messages(state: JudgeState, ctx: EvidenceContext, order: str) -> list[dict[str, object]]:
    request: JudgeRequest = state["request"]
    spec = ctx.spec
    fmt = verdict_format(request.mode)
    shown = shown_order(order, len(request.candidates))
    candidates = candidate_blocks(request, shown, ctx.nonce)
    if fmt == "steps":
        user = spec.render(
            "steps",
            prompt=request.prompt,
            reference=request.reference or "",
            nonce=ctx.nonce,
            steps=split_steps(request.candidates[0].content),
            evidence=[f"{r.name}: {as_shown(r.text, shown)}" for r in state.get("evidence", [])],
        )
        return [{"role": "system", "content": spec.render("system")}, {"role": "user", "content": user}]
    user = spec.render(
        fmt,
        prompt=request.prompt,
        reference=request.reference or "",
        candidates=candidates,
        evidence=[f"{r.name}: {as_shown(r.text, shown)}" for r in state.get("evidence", [])],
        guidance=skill.guidance if (skill := _skill(state)) else "",
    )
    return [
        {"role": "system", "content": spec.render("system")},
        {"role": "user", "content": with_images(ctx, request, user)},
    ]


async def _ask(
    state: JudgeState, ctx: EvidenceContext, order: str
) -> tuple[str, ModelRuling | None, str | None, str | None]:
    """One model call for one candidate order: (order, ruling, problem, raw reply)."""
    request = state["request"]
    assert ctx.client is not None
    await ctx.client.connect()  # the prompt takes images where the backend does (its profile says)
    fmt = verdict_format(request.mode)
    messages = _prompt_messages(state, ctx, order)
    problem, last = state.get("problems", {}).get(order), state.get("replies", {}).get(order)
    if problem and last is not None:
        messages += [
            {"role": "assistant", "content": last},
            {"role": "user", "content": ctx.spec.render("retry", problem=problem)},
        ]
    arity = len(split_steps(request.candidates[0].content)) if fmt == "steps" else len(request.candidates)
    turn = await ctx.client.chat(
        messages,
        json_schema=verdict_schema(fmt, arity),
        sampling=sampling_of(ctx.spec),
    )
    ctx.recorder.model_turn(turn, "deliberate")
    if turn.error is not None:
        return order, None, f"the model call failed: {turn.error}", None
    try:
        ruling = parse_verdict(turn.text, fmt, arity)
    except VerdictParseError as e:
        cut = " (the reply was cut off at max_tokens)" if turn.finish_reason == "length" else ""
        return order, None, str(e) + cut, turn.text
    return order, unshuffle(ruling, shown_order(order, len(request.candidates))), None, turn.text


def commit_first(ctx: EvidenceContext, request: JudgeRequest) -> bool:
    """Whether this run deliberates commit-first (the judge's option; never for a steps judgment)."""
    return ctx.options.commit_first and request.mode != "steps"


async def _own_answer(state: JudgeState, ctx: EvidenceContext) -> str | None:
    """Commit-first: the model's own final answer to the task, asked before any response is shown to it (once a
    run: a retry keeps it). The turn is recorded, so a replay asks for it again."""
    if "own_answer" in state:
        return state["own_answer"]
    request = state["request"]
    assert ctx.client is not None
    text = ctx.spec.render("own_answer", prompt=request.prompt)
    turn = await ctx.client.chat([{"role": "user", "content": with_images(ctx, request, text)}], sampling=OWN_ANSWER)
    ctx.recorder.model_turn(turn, "deliberate")
    return None if turn.error is not None or not turn.text else own_answer_of(turn.text)


_MENTIONS = re.compile(r"\bcandidate (\d+)\b")


def _alone(state: JudgeState, i: int) -> JudgeState:
    """A group's response i as a judgment of its own (a pointwise request of that one response), with the
    evidence about it alone, named as a request of one names it: what judging that rollout by itself would show."""
    request = state["request"]
    one = request.model_copy(update={"candidates": [request.candidates[i]]})
    evidence = []
    for result in state.get("evidence", []):
        named = {int(m) for m in _MENTIONS.findall(result.text)}
        if named <= {i}:  # about this response, or about none in particular (shared)
            text = _MENTIONS.sub(lambda m: "candidate 0" if int(m.group(1)) == i else m.group(0), result.text)
            evidence.append(result.model_copy(update={"text": text}))
    key = f"#{i}"
    return {
        "request": one,
        "evidence": evidence,
        "skill": state.get("skill"),
        "problems": {"AB": p} if (p := state.get("problems", {}).get(key)) else {},
        "replies": {"AB": r} if (r := state.get("replies", {}).get(key)) is not None else {},
    }


def judged_alone(request: JudgeRequest) -> bool:
    """Whether the model scores each response of this request in a call of its own: a pointwise request of more
    than one response is a group (a prompt's rollouts), and each rollout is scored as if it were judged alone,
    never against its siblings. The calls share everything before the response, so a server's prefix cache serves
    it once."""
    return request.mode == "pointwise" and len(request.candidates) > 1


async def _deliberate_alone(state: JudgeState, ctx: EvidenceContext, attempts: int) -> Command[str]:
    """`deliberate` for a group: a call per response still missing its score (concurrently; the server gets them
    together), then one ruling of every response's score."""
    n = len(state["request"].candidates)
    keys = [f"#{i}" for i in range(n)]
    rulings, replies = dict(state.get("rulings", {})), dict(state.get("replies", {}))
    problems: dict[str, str] = {}
    silent = {c.candidate for c in silence_criteria(state["request"])}
    for i in silent:  # 0 by evidence (`overruled`): no model sees a response that commits to nothing
        rulings.setdefault(keys[i], ModelRuling(scores=[0.0], rationale="the response commits to nothing"))
    own = await _own_answer(state, ctx) if commit_first(ctx, state["request"]) else None
    if own is not None:  # each response with a final answer, against the model's own
        for i in range(n):
            if keys[i] not in rulings and (score := scored_against(state["request"], i, own)) is not None:
                why = f"commit-first: its final answer {'matches' if score else 'differs from'} mine, {own!r}"
                rulings[keys[i]] = ModelRuling(scores=[score], rationale=why)
    todo = [i for i in range(n) if keys[i] not in rulings]
    answers = await asyncio.gather(*(_ask(_alone(state, i), ctx, "AB") for i in todo))
    for i, (_, ruling, problem, reply) in zip(todo, answers, strict=True):
        if ruling is not None:
            rulings[keys[i]] = ruling
        if problem is not None:
            problems[keys[i]] = problem
        if reply is not None:
            replies[keys[i]] = reply
    scored = [(p, p.scores[0]) for k in keys if (p := rulings.get(k)) is not None and p.scores]
    if len(scored) == n:
        confidences = [p.confidence for p, _ in scored if p.confidence is not None]
        rationale = " | ".join(f"{i}: {p.rationale}" for i, (p, _) in enumerate(scored))
        rulings["AB"] = ModelRuling(
            scores=[score for _, score in scored],
            confidence=fmean(confidences) if len(confidences) == n else None,
            rationale=rationale[:RATIONALE_CHARS],
        )
    again = "AB" not in rulings and attempts < ctx.spec.max_verdict_attempts
    update = {"attempts": attempts, "rulings": rulings, "problems": problems, "replies": replies}
    if commit_first(ctx, state["request"]):
        update["own_answer"] = own
    return Command(update=update, goto="deliberate" if again else "finalize")


DELIBERATE_NEXT = ("deliberate", "finalize")
"""Where the `deliberate` node may go: again (a retry), or on to the verdict."""


async def deliberate(state: JudgeState, runtime: Ctx) -> Command[str]:
    """Ask the model for a verdict in each candidate order still missing one (concurrently); parse defensively.
    An order whose reply was unusable is asked again while the attempt budget lasts; then on to `finalize`
    (forced). Routed by `Command`, as `evidence` is."""
    ctx = runtime.context
    attempts = state.get("attempts", 0) + 1
    if ctx.client is None:
        update = {"attempts": ctx.spec.max_verdict_attempts, "problems": {"AB": "no model endpoint is configured"}}
        return Command(update=update, goto="finalize")
    if judged_alone(state["request"]):
        return await _deliberate_alone(state, ctx, attempts)
    rulings = dict(state.get("rulings", {}))
    asked: dict[str, object] = {}
    if commit_first(ctx, state["request"]) and "own_answer" not in state:
        own = await _own_answer(state, ctx)
        ruled = ruling_against(state["request"], own) if own is not None else None
        asked = {"own_answer": own}
        if ruled is not None:  # every order gets the same ruling: it does not depend on the order shown
            orders = state.get("orders", ["AB"])
            return Command(
                update={"attempts": attempts, "rulings": dict.fromkeys(orders, ruled), **asked}, goto="finalize"
            )
    missing = [o for o in state.get("orders", ["AB"]) if o not in rulings]
    answers = await asyncio.gather(*(_ask(state, ctx, order) for order in missing))
    problems, replies = {}, dict(state.get("replies", {}))
    for order, ruling, problem, reply in answers:
        if ruling is not None:
            rulings[order] = ruling
        if problem is not None:
            problems[order] = problem
        if reply is not None:
            replies[order] = reply
    missing = [o for o in state.get("orders", ["AB"]) if o not in rulings]
    again = bool(missing) and attempts < ctx.spec.max_verdict_attempts
    update = {"attempts": attempts, "rulings": rulings, "problems": problems, "replies": replies, **asked}
    return Command(update=update, goto="deliberate" if again else "finalize")


async def _compare_pair(state: JudgeState, ctx: EvidenceContext, a: int, b: int) -> tuple[int | None, bool]:
    """The model's pairwise preference between candidates a and b, asked in both orders: (winner, agreed)."""
    request = state["request"]
    pair = request.model_copy(update={"mode": "pairwise", "candidates": [request.candidates[a], request.candidates[b]]})
    sub: JudgeState = {"request": pair, "evidence": [], "problems": {}, "replies": {}}
    answers = await asyncio.gather(_ask(sub, ctx, "AB"), _ask(sub, ctx, "BA"))
    ruling, agreed = combine_orders({o: r for o, r, _, _ in answers if r is not None}, ["AB", "BA"])
    if ruling is None or ruling.winner is None:
        return None, bool(agreed)
    return (a, b)[ruling.winner], bool(agreed)


async def tournament(state: JudgeState, runtime: Ctx) -> dict[str, object]:
    """Best-of-N by pairwise comparisons among the candidates no deterministic check ruled out.

    Knockout: winners advance (a bye for an odd one out; a split decision goes to the better evidence score,
    then the earlier candidate, and is reported as inconsistent). Round-robin: every pair; the win rate
    (a split counts half) is the score. Every comparison asks both candidate orders.
    """
    ctx, request = runtime.context, state["request"]
    n = len(request.candidates)
    criteria = evidence_criteria(state.get("evidence", []))
    evidence_score = {i: fmean([c.score or 0.0 for c in criteria if c.candidate == i] or [0.0]) for i in range(n)}
    passing = [i for i in range(n) if all(c.passed for c in criteria if c.candidate == i)]
    contenders = passing if criteria and passing else list(range(n))
    consistent = True
    scores = [0.0] * n
    if ctx.options.tournament == "round_robin":
        wins = dict.fromkeys(contenders, 0.0)
        pairs = [(a, b) for k, a in enumerate(contenders) for b in contenders[k + 1 :]]
        results = await asyncio.gather(*(_compare_pair(state, ctx, a, b) for a, b in pairs))
        for (a, b), (winner, agreed) in zip(pairs, results, strict=True):
            consistent &= agreed
            if winner is None:
                wins[a] += 0.5
                wins[b] += 0.5
            else:
                wins[winner] += 1
        for i, w in wins.items():
            scores[i] = w / max(1, len(contenders) - 1)
        rationale = f"round-robin win rates among {contenders}"
    else:
        round_, survived = list(contenders), dict.fromkeys(contenders, 0)
        while len(round_) > 1:
            pairs = list(zip(round_[::2], round_[1::2], strict=False))
            results = await asyncio.gather(*(_compare_pair(state, ctx, a, b) for a, b in pairs))
            advancing = []
            for (a, b), (winner, agreed) in zip(pairs, results, strict=True):
                consistent &= agreed
                if winner is None:  # a split decision: the better evidence, then the earlier candidate
                    winner = a if evidence_score[a] >= evidence_score[b] else b
                advancing.append(winner)
            if len(round_) % 2:
                advancing.append(round_[-1])  # a bye
            for i in advancing:
                survived[i] += 1
            round_ = advancing
        rounds = max(survived.values()) or 1
        for i, s in survived.items():
            scores[i] = s / rounds
        rationale = f"knockout among {contenders}: candidate {round_[0]} won"
    ruling = ModelRuling(scores=scores, confidence=None, rationale=rationale)
    return {"rulings": {"AB": ruling}, "orders": ["AB"], "tournament_consistent": consistent}
