"""The evidence-first judge's nodes. Each reads state and the run context and returns a partial update."""

from __future__ import annotations

import asyncio
import base64
import re
from collections.abc import Awaitable, Callable
from statistics import fmean
from typing import Literal

from langgraph.graph import END
from langgraph.runtime import Runtime
from langgraph.types import Command

from judgegraph.agents import JudgeSpec, Skill, skills
from judgegraph.agents import select_skill as choose_skill
from judgegraph.backends import Sampling
from judgegraph.errors import VerdictParseError
from judgegraph.graphs._aggregate import decide_from_evidence, evidence_criteria, final_verdict, silence_criteria
from judgegraph.graphs._commit_first import OWN_ANSWER, own_answer_of, ruling_against, scored_against
from judgegraph.graphs._context import AnyContext, JudgeContext
from judgegraph.graphs._protocol import GraphOptions
from judgegraph.graphs._shown import as_shown, candidate_blocks, shown_order, unshuffle
from judgegraph.graphs._state import JudgeState
from judgegraph.graphs._steps import split_steps, steps_verdict
from judgegraph.graphs._strategies import CriterionPolicy
from judgegraph.graphs._verdict_format import (
    RATIONALE_CHARS,
    ModelRuling,
    parse_verdict,
    verdict_format,
    verdict_schema,
)
from judgegraph.schema import JudgeRequest, ToolCall, ToolResult, Verdict
from judgegraph.tools import ToolContext, ToolFailure, call_tool, request_image_names, tools


class EvidenceOptions(GraphOptions):
    """The evidence-first and skill graphs' own knobs."""

    deliberate: Literal["undecided", "always"] = "undecided"
    """Ask the model only where no deterministic evidence decides, or always (evidence still wins)."""
    tournament: Literal["knockout", "round_robin", "none"] = "knockout"
    """Best-of-N: pairwise knockout, round-robin win rate, or one scoring call over all candidates. Candidates
    that fail a deterministic check are out before the tournament; one that alone passes them all wins outright."""
    commit_first: bool = False
    """Where the model rules, it first writes its own answer to the task without seeing any response (the
    `own_answer` prompt); responses that commit to a final answer are then scored by whether theirs is equivalent
    to it, not by the model's reading of them (published: false acceptance 1.2% against 71.9%). A response that
    commits to no final answer, or a task the model gives no answer to, is read as without it. The
    `commit_first` judge turns it on."""


EvidenceContext = JudgeContext[EvidenceOptions]
Ctx = Runtime[EvidenceContext]


def evidence(selects_skill: bool) -> Callable[[JudgeState, Ctx], Awaitable[Command[str]]]:
    """The first node of the evidence-first and skill graphs: gather the deterministic evidence and weigh it, in
    one super-step (each costs LangGraph's machinery about as much as a reference check: BENCHMARKS.md,
    rule_rewards), so a run that a check decides is one node."""

    async def evidence(state: JudgeState, runtime: Ctx) -> Command[str]:
        """Skill judges first pick the skill from the evidence the request carries (deterministic rules). Each
        allowed tool that has a plan schedules the calls this request's evidence needs (under a skill, its
        resources, cheapest first); they run in parallel, each call and result recorded. While the evidence does
        not decide, tools with a follow-up rule schedule calls that read what it found (differential testing
        after the statement's examples, a derived oracle on the inputs where candidates disagree). Then: does the
        evidence decide on its own? Where it settles the run (the judge asks the model only where evidence does not
        decide, and the mode is not `steps`, which the model scores), the verdict is given here and the run
        ends; else the model is asked (best-of-N by tournament). The node routes by `Command`: a conditional edge
        is a runnable of its own, which costs a rule-decided run a quarter of its graph time. Pairwise requests
        are judged in both candidate orders by default."""
        ctx, request = runtime.context, state["request"]
        both = request.mode == "pairwise" and ctx.spec.both_orders
        skill = choose_skill(request) if selects_skill else None
        planned: list[ToolCall] = []
        names = [r.tool for r in skill.ordered_resources()] if skill else ctx.spec.tools
        for name in names:
            plan = tools.get(name).plan
            if plan is not None:
                planned.extend(plan(request))
        allowed = frozenset(ctx.spec.tools)
        results = await run_recorded(ctx, request, planned, "evidence", allowed) if planned else []
        update: dict[str, object] = {"orders": ["AB", "BA"] if both else ["AB"]}
        if skill is not None:
            update["skill"] = skill.name
        decided = weigh(request, skill, results)
        followed: set[str] = set()
        while decided is None:  # follow-ups read what the evidence so far found, each tool once
            follow = [
                c
                for name in names
                if name not in followed and (f := tools.get(name).follow_up) is not None
                for c in f(request, results)
            ]
            if not follow:
                break
            followed |= {c.name for c in follow}
            planned = planned + follow
            results = results + await run_recorded(ctx, request, follow, "evidence", allowed)
            decided = weigh(request, skill, results)
        update |= {"planned": planned, "evidence": results, "evidence_verdict": decided}
        if decided is not None and ctx.options.deliberate != "always" and request.mode != "steps":
            update["verdict"] = conclude({**state, **update}, ctx, "evidence")  # type: ignore[typeddict-item]
        return Command(update=update, goto=_after_evidence(request, update, ctx.options))

    return evidence


EVIDENCE_NEXT = ("deliberate", "tournament", END)
"""Where the `evidence` node may go."""


def _after_evidence(request: JudgeRequest, update: dict[str, object], options: EvidenceOptions) -> str:
    """The end where the evidence gave the verdict; else the model: a tournament for best-of-N over more than two
    candidates (unless the options turn it off), else deliberation."""
    if update.get("verdict") is not None:
        return END
    if request.mode == "best_of_n" and options.tournament != "none" and len(request.candidates) > 2:
        return "tournament"
    return "deliberate"


def _skill(state: JudgeState) -> Skill | None:
    name = state.get("skill")
    return skills.get(name) if name else None


def sampling_of(spec: JudgeSpec) -> Sampling:
    """The spec's sampling, as the model client takes it."""
    s = spec.sampling
    return Sampling(temperature=s.temperature, max_tokens=s.max_tokens, seed=s.seed, logprobs=s.logprobs)


def tool_context(jc: AnyContext, request: JudgeRequest, node: str) -> ToolContext:
    """What a tool sees during a run: the request, shared services, the run's images, the model (recorded)."""
    return ToolContext(
        request=request,
        services=jc.services,
        scope=jc.scope,
        model=jc.client,
        on_model_turn=lambda turn: jc.recorder.model_turn(turn, node),
        recorded=jc.recorded,
    )


async def run_recorded(
    jc: AnyContext, request: JudgeRequest, calls: list[ToolCall], node: str, allowed: frozenset[str] | None = None
) -> list[ToolResult]:
    """Run tool calls in parallel, each call and each result recorded (calls first, in order)."""
    for call in calls:
        jc.recorder.tool_call(call, node)
    tctx = tool_context(jc, request, node)
    if len(calls) == 1:  # one call needs no task of its own
        results = [await call_tool(calls[0], tctx, allowed=allowed)]
    else:
        results = await asyncio.gather(*(call_tool(c, tctx, allowed=allowed) for c in calls))
    for result in results:
        jc.recorder.tool_result(result, node)
    return list(results)


def weigh(request: JudgeRequest, skill: Skill | None, evidence: list[ToolResult]) -> Verdict | None:
    """The verdict the deterministic evidence supports on its own (under a skill, its deciding resources and its
    aggregation), or None where it does not decide."""
    if skill is None:
        return decide_from_evidence(request, evidence)
    deciding = {r.tool for r in skill.resources if r.decides}
    policies = {
        r.tool: CriterionPolicy(weight=r.weight, essential=r.essential, gate=r.gate, reliability=r.reliability)
        for r in skill.resources
    }
    return decide_from_evidence(request, [e for e in evidence if e.name in deciding], skill.aggregation, policies)


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


def with_images(ctx: AnyContext, request: JudgeRequest, text: str) -> str | list[dict[str, object]]:
    """The user message with the request's images attached, where the backend takes images; else the text alone
    (text-only models read images through `zoom_image`'s OCR instead)."""
    if not request.images or ctx.client is None or not ctx.client.profile.images:
        return text
    parts: list[dict[str, object]] = [{"type": "text", "text": text}]
    for name in request_image_names(request):
        try:
            data = ctx.scope.image(name).data
        except ToolFailure as e:
            parts.append({"type": "text", "text": f"({name} could not be attached: {e})"})
            continue
        url = f"data:{media_type(data)};base64,{base64.b64encode(data).decode()}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def media_type(data: bytes) -> str:
    for magic, kind in (
        (b"\x89PNG", "image/png"),
        (b"\xff\xd8", "image/jpeg"),
        (b"GIF8", "image/gif"),
        (b"BM", "image/bmp"),
    ):
        if data.startswith(magic):
            return kind
    return "image/webp" if data[8:12] == b"WEBP" else "application/octet-stream"


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


def combine_orders(rulings: dict[str, ModelRuling], orders: list[str]) -> tuple[ModelRuling | None, bool | None]:
    """One ruling from the orders judged, and whether they agreed (None when only one order was judged).

    Orders that disagree make a tie, never a silent pick of either.
    """
    got = [rulings[o] for o in orders if o in rulings]
    if not got:
        return None, None
    if len(got) == 1:
        return got[0], None
    first, second = got
    if first.winner == second.winner:
        confidence = None
        if first.confidence is not None and second.confidence is not None:
            confidence = (first.confidence + second.confidence) / 2
        return first.model_copy(update={"confidence": confidence}), True
    rationale = f"the two candidate orders disagree ({first.rationale} | {second.rationale})"
    return ModelRuling(winner=None, confidence=0.0, rationale=rationale[:400]), False


def conclude(state: JudgeState, ctx: EvidenceContext, node: str) -> Verdict:
    """The verdict, recorded: deciding evidence wins; else the model's ruling; else an invalid verdict that
    says why."""
    request = state["request"]
    evidence = state.get("evidence", [])
    orders = state.get("orders", ["AB"])
    ruling, consistent = combine_orders(state.get("rulings", {}), orders)
    if request.mode == "steps" and ruling is not None:
        verdict = steps_verdict(request, ruling, evidence)
    else:
        consistent = state.get("tournament_consistent", consistent)
        no_ruling = f"no usable verdict after {state.get('attempts', 0)} model attempt(s)"
        decided, problems = state.get("evidence_verdict"), state.get("problems", {})
        verdict = final_verdict(request, decided, ruling, consistent, evidence, no_ruling, problems)
    ctx.recorder.verdict(verdict, node)
    return verdict


async def finalize(state: JudgeState, runtime: Ctx) -> dict[str, object]:
    """The verdict after the model was asked (see `conclude`)."""
    return {"verdict": conclude(state, runtime.context, "finalize")}
