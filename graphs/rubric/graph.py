"""The rubric judge (after OpenRS): constraints as hard gates; an adaptive rubric written from where two
responses differ (under a versioned constitution); each criterion compared on its own, in both orders, in
parallel; the comparisons aggregated outside the model (weighted criterion votes)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send
from pydantic import BaseModel, ConfigDict, Field

from judgegraph.agents import JudgeSpec
from judgegraph.backends import Sampling
from judgegraph.errors import VerdictParseError
from judgegraph.graphs._aggregate import evidence_criteria, silence_criteria
from judgegraph.graphs._context import JudgeContext
from judgegraph.graphs._protocol import GraphOptions, register_graph
from judgegraph.graphs._recorded_graph import RecordedGraph
from judgegraph.graphs._recorder import add_recorded_nodes
from judgegraph.graphs._runs import run_recorded, sampling_of
from judgegraph.graphs._shown import candidate_blocks
from judgegraph.graphs._verdict_format import parse_verdict, verdict_schema
from judgegraph.schema import CriterionResult, JudgeRequest, ToolCall, ToolResult, Verdict, reply_schema, sole_best


class RubricOptions(GraphOptions):
    """The rubric graph's own knobs."""

    rubric_writer_sees_reference: bool = True
    """Whether the rubric writer is shown the reference answer (a projection of its input)."""
    max_criteria: int = Field(default=4, ge=1)
    """Criteria in an adaptive rubric."""


RubricContext = JudgeContext[RubricOptions]
Ctx = Runtime[RubricContext]
CONSTITUTION_FALLBACK = [
    ("correctness", "Which response is right about the task's facts and results?", 3.0),
    ("instructions", "Which response does what was asked, as asked?", 2.0),
    ("helpfulness", "Which response answers the question completely and usefully?", 1.0),
]


class RubricItem(BaseModel):
    name: str = Field(max_length=80)
    description: str = Field(default="", max_length=300)
    weight: float = Field(default=1.0, ge=0, le=3)
    source: Literal["request", "adaptive", "constitution"] = "adaptive"


class Comparison(BaseModel):
    criterion: str
    order: str
    winner: int | None = None
    """Request candidate index; None for a tie."""
    problem: str | None = None


class CompareTask(TypedDict):
    request: JudgeRequest
    criterion: RubricItem
    order: str


class RubricState(TypedDict, total=False):
    request: JudgeRequest
    gates: list[ToolResult]
    criteria: list[RubricItem]
    comparisons: Annotated[list[Comparison], operator.add]
    verdict: Verdict


class WrittenCriterion(BaseModel):
    """One criterion as the rubric writer must state it (tighter than a request's own rubric)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=60)
    description: str = Field(max_length=200)
    weight: int = Field(ge=1, le=3)


class WrittenRubric(BaseModel):
    """The rubric writer's reply: both the schema it is decoded under and the parser of what it said."""

    model_config = ConfigDict(extra="forbid")

    criteria: list[WrittenCriterion] = Field(max_length=6)


RUBRIC_SCHEMA = reply_schema(WrittenRubric)


async def gate(state: RubricState, runtime: Ctx) -> dict[str, Any]:
    """Programmatic constraints are hard guardrails: check every candidate against them first."""
    request, ctx = state["request"], runtime.context
    if request.mode != "pairwise" or not request.constraints:
        return {"gates": []}
    calls = [
        ToolCall(name="verify_constraints", arguments={"candidate": i}, reason="constraints are hard gates")
        for i in range(len(request.candidates))
    ]
    return {"gates": await run_recorded(ctx, request, calls, "gate")}


async def write_rubric(state: RubricState, runtime: Ctx) -> dict[str, Any]:
    """The request's own rubric, or an adaptive one the model writes from the two responses (and the constitution)."""
    request, ctx = state["request"], runtime.context
    if request.rubric:
        given = [
            RubricItem(name=c.name, description=c.description, weight=min(3.0, c.weight), source="request")
            for c in request.rubric
        ]
        return {"criteria": given}
    fallback = [RubricItem(name=n, description=d, weight=w, source="constitution") for n, d, w in CONSTITUTION_FALLBACK]
    if ctx.client is None or request.mode != "pairwise":
        return {"criteria": fallback}
    # Projection: the writer sees the reference only if the judge allows it.
    reference = (request.reference or "") if ctx.options.rubric_writer_sees_reference else ""
    prompt = ctx.spec.render(
        "write_rubric",
        constitution=ctx.spec.render("constitution"),
        prompt=request.prompt,
        reference=reference,
        candidates=candidate_blocks(request, [0, 1], ctx.nonce),
        max_criteria=ctx.options.max_criteria,
    )
    s = ctx.spec.sampling
    turn = await ctx.client.chat(
        [{"role": "user", "content": prompt}],
        json_schema=RUBRIC_SCHEMA,
        schema_name="rubric",
        sampling=Sampling(temperature=s.temperature, max_tokens=400, seed=s.seed),
    )
    ctx.recorder.model_turn(turn, "write_rubric")
    try:
        written = WrittenRubric.model_validate_json(turn.text or "").criteria
    except ValueError:  # pydantic's ValidationError included: an unusable rubric falls back to the constitution
        written = []
    criteria = [
        RubricItem(name=c.name.strip(), description=c.description, weight=c.weight) for c in written if c.name.strip()
    ]
    seen: set[str] = set()
    unique = [c for c in criteria if not (c.name.lower() in seen or seen.add(c.name.lower()))]  # type: ignore[func-returns-value]
    return {"criteria": unique[: ctx.options.max_criteria] or fallback}


def route_comparisons(state: RubricState) -> list[Send] | Literal["aggregate"]:
    """Every criterion, in both candidate orders, compared in parallel."""
    if state["request"].mode != "pairwise":
        return "aggregate"
    return [
        Send("compare", {"request": state["request"], "criterion": c, "order": order})
        for c in state.get("criteria", [])
        for order in ("AB", "BA")
    ]


async def compare(task: CompareTask, runtime: Ctx) -> dict[str, Any]:
    """Compare the two responses on one criterion (the model sees that criterion only)."""
    ctx, request, criterion, order = runtime.context, task["request"], task["criterion"], task["order"]
    shown = [1, 0] if order == "BA" else [0, 1]
    if ctx.client is None:
        return {"comparisons": [Comparison(criterion=criterion.name, order=order, problem="no model endpoint")]}
    prompt = ctx.spec.render(
        "compare",
        prompt=request.prompt,
        candidates=candidate_blocks(request, shown, ctx.nonce),
        criterion=criterion.name,
        description=criterion.description,
    )
    turn = await ctx.client.chat(
        [{"role": "system", "content": ctx.spec.render("system")}, {"role": "user", "content": prompt}],
        json_schema=verdict_schema("pairwise", 2),
        sampling=sampling_of(ctx.spec),
    )
    ctx.recorder.model_turn(turn, "compare")
    try:
        ruling = parse_verdict(turn.text, "pairwise", 2)
    except VerdictParseError as e:
        return {"comparisons": [Comparison(criterion=criterion.name, order=order, problem=str(e))]}
    winner = None if ruling.winner is None else shown[ruling.winner]
    return {"comparisons": [Comparison(criterion=criterion.name, order=order, winner=winner)]}


def _votes(state: RubricState) -> tuple[list[CriterionResult], list[float], bool, list[str]]:
    """Each criterion's weighted vote where its two orders agree: (its results per candidate, the votes, whether
    every criterion's orders agreed, the problems of those that could not be compared)."""
    criteria: list[CriterionResult] = []
    votes, consistent, problems = [0.0, 0.0], True, []
    by_name = {c.name: c for c in state.get("criteria", [])}
    for name, item in by_name.items():
        pair = {c.order: c for c in state.get("comparisons", []) if c.criterion == name}
        if any(c.problem for c in pair.values()) or len(pair) < 2:
            problems += [c.problem or "missing" for c in pair.values() if c.problem]
            continue
        agreed = pair["AB"].winner == pair["BA"].winner
        consistent &= agreed
        winner = pair["AB"].winner if agreed else None
        if winner is not None:
            votes[winner] += item.weight
        for i in (0, 1):
            criteria.append(
                CriterionResult(
                    name=f"rubric: {name}",
                    candidate=i,
                    passed=None if winner is None else winner == i,
                    score=0.5 if winner is None else float(winner == i),
                    source=f"rubric/{item.source}",
                    detail=item.description if agreed else f"{item.description} (the orders disagree)",
                )
            )
    return criteria, votes, consistent, problems


async def aggregate(state: RubricState, runtime: Ctx) -> dict[str, Any]:
    """Outside the model: gates first; then each criterion votes (weighted) when its two orders agree."""
    request = state["request"]
    if request.mode != "pairwise":
        verdict = Verdict.invalid(f"the rubric judge compares pairs; got mode {request.mode!r}")
        runtime.context.recorder.verdict(verdict, "aggregate")
        return {"verdict": verdict}
    gate_criteria = evidence_criteria(state.get("gates", []))
    # A response that commits to nothing (a "master key" such as ":" or "Let's solve this step by step.") passes no
    # rubric, however the model rules.
    gate_criteria += silence_criteria(request)
    through = [i for i in (0, 1) if all(c.passed for c in gate_criteria if c.candidate == i)]
    voted, votes, consistent, problems = _votes(state)
    criteria: list[CriterionResult] = [*gate_criteria, *voted]
    if len(through) == 1:
        verdict = Verdict.scored(
            [float(i in through) for i in (0, 1)],
            winner=through[0],
            criteria=criteria,
            confidence=1.0,
            consistent=True,
            decided_by="evidence",
            rationale=f"only candidate {through[0]} passes every gate (the constraints; saying something)",
        )
    elif not any(c.source.startswith("rubric/") for c in criteria):
        verdict = Verdict.invalid(f"no criterion could be compared: {'; '.join(problems) or 'no criteria'}")
    else:
        total = sum(votes)
        scores = [v / total for v in votes] if total else [0.5, 0.5]
        verdict = Verdict.scored(
            scores,
            winner=sole_best(votes),
            criteria=criteria,
            consistent=consistent,
            decided_by="model",
            rationale=f"weighted criterion votes {votes}",
        )
    runtime.context.recorder.verdict(verdict, "aggregate")
    return {"verdict": verdict}


class RubricGraph(RecordedGraph):
    """gate -> write_rubric -> compare (criterion x order, parallel) -> aggregate."""

    def build(self, spec: JudgeSpec) -> StateGraph[Any, Any, Any, Any]:
        g = StateGraph(RubricState, context_schema=JudgeContext)
        add_recorded_nodes(g, {fn.__name__: fn for fn in (gate, write_rubric, compare, aggregate)})
        g.add_edge(START, "gate")
        g.add_edge("gate", "write_rubric")
        g.add_conditional_edges("write_rubric", route_comparisons, ["compare", "aggregate"])
        g.add_edge("compare", "aggregate")
        g.add_edge("aggregate", END)
        return g


register_graph("rubric", RubricGraph, options=RubricOptions, checkpointed=(RubricItem, Comparison))
