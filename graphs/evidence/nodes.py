"""The evidence-first judge's first and last nodes: gather the deterministic evidence and weigh it, and give the
recorded verdict. Each reads state and the run context and returns a partial update (or routes by `Command`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from langgraph.graph import END
from langgraph.types import Command

from judgegraph.agents import Skill
from judgegraph.agents import select_skill as choose_skill
from judgegraph.graphs._aggregate import decide_from_evidence, final_verdict
from judgegraph.graphs._runs import combine_orders, run_recorded
from judgegraph.graphs._strategies import CriterionPolicy
from judgegraph.graphs.evidence.options import Ctx, EvidenceContext, EvidenceOptions
from judgegraph.graphs.evidence.state import JudgeState
from judgegraph.graphs.evidence.steps import steps_verdict
from judgegraph.schema import JudgeRequest, ToolCall, ToolResult, Verdict
from judgegraph.tools import tools


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
