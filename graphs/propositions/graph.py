"""The proposition judge (after MARCH): proposer -> isolated checker -> per-claim aggregation.

Each claim is checked in its own `Send` task whose input type (`ClaimTask`) carries the claim and its
evidence only: the checker node cannot see the request or the response under test, by construction.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send
from pydantic import BaseModel

from judgegraph.agents import JudgeSpec
from judgegraph.graphs._context import JudgeContext
from judgegraph.graphs._protocol import GraphOptions, register_graph
from judgegraph.graphs._recorded_graph import RecordedGraph
from judgegraph.graphs._recorder import add_recorded_nodes
from judgegraph.graphs._runs import tool_context
from judgegraph.schema import CriterionResult, JudgeRequest, Verdict, sole_best
from judgegraph.tools import ClaimCheckInput, ClaimVerdict, check_claim, split_claims
from judgegraph.tools.check_propositions import gather_evidence, model_claims, model_judge
from judgegraph.tools.claims.propositions import Claim
from judgegraph.tools.claims.retrieval import Passage


class PropositionOptions(GraphOptions):
    """The proposition graph's own knobs."""

    proposer: Literal["rules", "model"] = "rules"
    """How answers are split into claims."""
    model_checker: bool = False
    """Ask the model about claims no deterministic check decides."""


PropositionContext = JudgeContext[PropositionOptions]
Ctx = Runtime[PropositionContext]


class ClaimTask(TypedDict):
    """The checker's whole input: which answer the claim is from (an index), the claim and its evidence."""

    candidate: int
    check: ClaimCheckInput


class CheckedClaim(BaseModel):
    candidate: int
    verdict: ClaimVerdict


class PropositionState(TypedDict, total=False):
    request: JudgeRequest
    tasks: list[ClaimTask]
    checked: Annotated[list[CheckedClaim], operator.add]
    verdict: Verdict


async def propose(state: PropositionState, runtime: Ctx) -> dict[str, Any]:
    """Split every answer into claims and gather each claim's evidence (documents, image text)."""
    ctx, request = runtime.context, state["request"]
    tctx = tool_context(ctx, request, "propose")
    tasks: list[ClaimTask] = []
    for i, candidate in enumerate(request.candidates):
        claims = await model_claims(tctx, candidate.content) if ctx.options.proposer == "model" else None
        for claim in claims or split_claims(candidate.content):
            tasks.append(
                {"candidate": i, "check": ClaimCheckInput(claim=claim, evidence=await gather_evidence(tctx, claim))}
            )
    return {"tasks": tasks}


def route_claims(state: PropositionState) -> list[Send] | Literal["aggregate"]:
    """One isolated check per claim, in parallel."""
    tasks = state.get("tasks", [])
    return [Send("check", task) for task in tasks] if tasks else "aggregate"


async def check(task: ClaimTask, runtime: Ctx) -> dict[str, Any]:
    """Check one claim against its evidence; this node's input holds nothing else."""
    ctx = runtime.context
    judge = None
    if ctx.options.model_checker:
        judge = model_judge(ctx.client, lambda turn: ctx.recorder.model_turn(turn, "check"))
    verdict = await check_claim(task["check"], judge)
    return {"checked": [CheckedClaim(candidate=task["candidate"], verdict=verdict)]}


async def aggregate(state: PropositionState, runtime: Ctx) -> dict[str, Any]:
    """Per answer: faithful (some claim supported, none contradicted) or not; the share of claims supported."""
    request = state["request"]
    if not request.documents and not request.images:
        verdict = Verdict.invalid("the proposition judge needs documents or images to check claims against")
        runtime.context.recorder.verdict(verdict, "aggregate")
        return {"verdict": verdict}
    n = len(request.candidates)
    per: dict[int, list[ClaimVerdict]] = {i: [] for i in range(n)}
    for c in state.get("checked", []):
        per[c.candidate].append(c.verdict)
    criteria, scores = [], []
    for i in range(n):
        found = per[i]
        supported = sum(v.verdict == "supported" for v in found)
        contradicted = sum(v.verdict == "contradicted" for v in found)
        score = 0.0 if contradicted or not found else supported / len(found)
        scores.append(score)
        detail = (
            f"{supported} supported, {contradicted} contradicted, {len(found) - supported - contradicted} not found"
        )
        criteria.append(
            CriterionResult(
                name="faithful_to_evidence",
                candidate=i,
                passed=contradicted == 0 and supported > 0,
                score=score,
                source="propositions",
                detail=detail,
            )
        )
        criteria += [
            CriterionResult(
                name=f"claim: {v.claim.text[:80]}",
                candidate=i,
                passed=v.verdict == "supported",
                source=v.method,
                detail=f"{v.verdict}: {v.span[:200]}",
            )
            for v in found
        ]
    verdict = Verdict.scored(
        scores,
        winner=sole_best(scores) if request.mode != "pointwise" else None,
        criteria=criteria,
        confidence=1.0,
        decided_by="evidence",
        consistent=True if request.mode == "pairwise" else None,
        rationale="; ".join(f"candidate {c.candidate}: {c.detail}" for c in criteria if c.source == "propositions"),
    )
    runtime.context.recorder.verdict(verdict, "aggregate")
    return {"verdict": verdict}


class PropositionGraph(RecordedGraph):
    """intake -> propose -> check (one per claim, parallel, isolated) -> aggregate."""

    def build(self, spec: JudgeSpec) -> StateGraph[Any, Any, Any, Any]:
        g = StateGraph(PropositionState, context_schema=JudgeContext)
        add_recorded_nodes(g, {fn.__name__: fn for fn in (propose, check, aggregate)})
        g.add_edge(START, "propose")
        g.add_conditional_edges("propose", route_claims, ["check", "aggregate"])
        g.add_edge("check", "aggregate")
        g.add_edge("aggregate", END)
        return g


register_graph(
    "propositions",
    PropositionGraph,
    options=PropositionOptions,
    checkpointed=(CheckedClaim, ClaimVerdict, ClaimCheckInput, Claim, Passage),
)
