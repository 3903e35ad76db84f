"""The evidence-first judge's nodes. Each reads state and the run context and returns a partial update."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from judgegraph.backends import Sampling
from judgegraph.graphs._aggregate import decide_from_evidence, verdict_from_ruling
from judgegraph.graphs._context import JudgeContext
from judgegraph.graphs._state import JudgeState, ToolTaskState
from judgegraph.graphs._verdict_format import (
    LETTERS,
    VerdictParseError,
    parse_verdict,
    verdict_format,
    verdict_schema,
)
from judgegraph.tools import ToolContext, call_tool, tools
from judgegraph.types import JudgeRequest, ToolCall, ToolResult, Verdict

Ctx = Runtime[JudgeContext]


async def intake(state: JudgeState, runtime: Ctx) -> dict[str, Any]:
    """Start the run: nothing learned yet."""
    return {"attempts": 0, "problem": None, "ruling": None, "evidence_verdict": None}


async def plan_evidence(state: JudgeState, runtime: Ctx) -> dict[str, Any]:
    """Deterministic rules: each allowed tool that has a plan schedules the calls this request's evidence needs."""
    planned: list[ToolCall] = []
    for name in runtime.context.spec.tools:
        plan = tools.get(name).plan
        if plan is not None:
            planned.extend(plan(state["request"]))
    return {"planned": planned}


async def run_tool(state: ToolTaskState, runtime: Ctx) -> dict[str, Any]:
    """Run one planned tool call (fanned out with `Send`, so calls run in parallel)."""
    recorder = runtime.context.recorder
    call = state["call"]
    recorder.tool_call(call, "run_tool")
    jc = runtime.context
    ctx = ToolContext(
        request=state["request"],
        services=jc.services,
        scope=jc.scope,
        model=jc.client,
        on_model_turn=lambda turn: jc.recorder.model_turn(turn, "run_tool"),
    )
    result = await call_tool(call, ctx, allowed=frozenset(jc.spec.tools))
    recorder.tool_result(result, "run_tool")
    return {"evidence": [result]}


async def weigh_evidence(state: JudgeState, runtime: Ctx) -> dict[str, Any]:
    """Does the deterministic evidence decide the verdict on its own?"""
    return {"evidence_verdict": decide_from_evidence(state["request"], state.get("evidence", []))}


def _evidence_lines(evidence: list[ToolResult]) -> list[str]:
    return [f"{r.name}: {r.text}" for r in evidence]


def _prompt_messages(state: JudgeState, ctx: JudgeContext) -> list[dict[str, Any]]:
    request: JudgeRequest = state["request"]
    spec = ctx.spec
    fmt = verdict_format(request.mode)
    candidates = [
        {"letter": LETTERS[i], "tag": f"response_{LETTERS[i]}_{ctx.nonce}", "content": c.content}
        for i, c in enumerate(request.candidates)
    ]
    user = spec.render(
        fmt,
        prompt=request.prompt,
        reference=request.reference or "",
        candidates=candidates,
        evidence=_evidence_lines(state.get("evidence", [])),
    )
    return [{"role": "system", "content": spec.render("system")}, {"role": "user", "content": user}]


async def deliberate(state: JudgeState, runtime: Ctx) -> dict[str, Any]:
    """Ask the model for a verdict in the constrained JSON format; parse it defensively."""
    ctx = runtime.context
    attempts = state.get("attempts", 0) + 1
    if ctx.client is None:
        return {"attempts": ctx.spec.max_verdict_attempts, "problem": "no model endpoint is configured"}
    request = state["request"]
    fmt = verdict_format(request.mode)
    messages = _prompt_messages(state, ctx)
    last = _last_reply(ctx)
    if state.get("problem") and last is not None:
        messages += [
            {"role": "assistant", "content": last},
            {"role": "user", "content": ctx.spec.render("retry", problem=state["problem"])},
        ]
    s = ctx.spec.sampling
    turn = await ctx.client.chat(
        messages,
        json_schema=verdict_schema(fmt, len(request.candidates)),
        sampling=Sampling(temperature=s.temperature, max_tokens=s.max_tokens, seed=s.seed),
    )
    ctx.recorder.model_turn(turn, "deliberate")
    if turn.error is not None:
        return {"attempts": attempts, "problem": f"the model call failed: {turn.error}"}
    try:
        ruling = parse_verdict(turn.text, fmt, len(request.candidates))
    except VerdictParseError as e:
        problem = str(e) + (" (the reply was cut off at max_tokens)" if turn.finish_reason == "length" else "")
        return {"attempts": attempts, "problem": problem}
    return {"attempts": attempts, "ruling": ruling, "problem": None}


def _last_reply(ctx: JudgeContext) -> str | None:
    turns = ctx.recorder.trajectory.model_turns()
    return turns[-1].text if turns and turns[-1].text else None


async def finalize(state: JudgeState, runtime: Ctx) -> dict[str, Any]:
    """Deciding evidence wins; else the model's ruling; else an invalid verdict that says why."""
    request = state["request"]
    evidence = state.get("evidence", [])
    if state.get("evidence_verdict") is not None:
        verdict = state["evidence_verdict"]
        ruling = state.get("ruling")
        if ruling is not None:  # deliberate="always": keep the model's view beside the deciding evidence
            model_view = verdict_from_ruling(request, ruling, [])
            verdict = verdict.model_copy(update={"criteria": verdict.criteria + model_view.criteria})
    elif state.get("ruling") is not None:
        verdict = verdict_from_ruling(request, state["ruling"], evidence)
    else:
        attempts = state.get("attempts", 0)
        verdict = Verdict.invalid(f"no usable verdict after {attempts} model attempt(s): {state.get('problem')}")
    runtime.context.recorder.verdict(verdict, "finalize")
    return {"verdict": verdict}
