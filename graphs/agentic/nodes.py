"""The agentic judge's nodes: intake, the model's turn, the tool calls it asked for, the forced verdict where a
budget runs out, closing one candidate order, and the verdict; and the routes between them."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection
from typing import Any, Literal

from judgegraph.backends import Sampling
from judgegraph.errors import VerdictParseError
from judgegraph.graphs._aggregate import decide_from_evidence, final_verdict
from judgegraph.graphs._runs import combine_orders, run_recorded, sampling_of
from judgegraph.graphs._shown import as_shown, shown_order, unshuffle
from judgegraph.graphs._verdict_format import (
    latex_kept,
    parse_verdict,
    verdict_format,
    verdict_schema,
)
from judgegraph.graphs.agentic.turns import (
    FRESH,
    VERDICT_CHOICE,
    VERDICT_TOOL,
    AgentContext,
    AgenticOptions,
    AgentState,
    Ctx,
    action_schema,
    allowed_tools,
    current_order,
    native_specs,
    offered_tools,
    opening_messages,
    ruling_of,
    uses_native,
    verdict_fields,
)
from judgegraph.schema import ToolCall, ToolResult


async def intake(state: AgentState, runtime: Ctx) -> AgentState:
    """Open the first order's conversation; pairs are judged in both orders by default."""
    ctx, request = runtime.context, state["request"]
    if ctx.client is not None:
        await ctx.client.connect()  # the conversation is shaped by the backend's profile (native tool calls)
    allowed = allowed_tools(ctx.spec, request)
    orders = ["AB", "BA"] if request.mode == "pairwise" and ctx.spec.both_orders else ["AB"]
    return {
        "allowed": allowed,
        "orders": orders,
        "order_index": 0,
        "rulings": {},
        "problems": {},
        "cache": {},
        "messages": opening_messages(ctx, request, allowed, orders[0]),
        **FRESH,
    }


async def close_order(state: AgentState, runtime: Ctx) -> AgentState:
    """Keep this order's ruling (in request indices); open the next order's conversation, if any."""
    ctx, request = runtime.context, state["request"]
    order = current_order(state)
    rulings, problems = dict(state.get("rulings", {})), dict(state.get("problems", {}))
    if state.get("ruling") is not None:
        rulings[order] = unshuffle(state["ruling"], shown_order(order, len(request.candidates)))  # type: ignore[arg-type]
    else:
        problems[order] = state.get("problem") or "no verdict"
    nxt = state.get("order_index", 0) + 1
    more = nxt < len(state.get("orders", ["AB"]))
    update: AgentState = {"rulings": rulings, "problems": problems, "more": more}
    if more:
        allowed = state.get("allowed", [])
        update |= {
            "order_index": nxt,
            "messages": opening_messages(ctx, request, allowed, state["orders"][nxt]),
            **FRESH,
        }
    return update


def route_after_close(state: AgentState) -> Literal["agent", "finalize"]:
    """The next candidate order, or the verdict."""
    return "agent" if state.get("more") else "finalize"


async def agent(state: AgentState, runtime: Ctx) -> AgentState:
    """One model turn: tool calls to run, a verdict, or an unusable reply (fed back next turn)."""
    ctx, request = runtime.context, state["request"]
    steps = state.get("steps", 0) + 1
    if ctx.client is None:
        return {"steps": ctx.options.max_steps, "problem": "no model endpoint is configured", "pending": []}
    messages = list(state["messages"])
    if state.get("problem"):
        messages.append({"role": "user", "content": ctx.spec.render("retry", problem=state["problem"])})
    allowed, called = state.get("allowed", []), state.get("called", {})
    spent = _spent(state, ctx.options)
    n = len(request.candidates)
    if uses_native(ctx, allowed):
        choice: str | dict[str, Any] = "required" if ctx.client.profile.tool_choice_required else "auto"
        if state.get("stalled") or not offered_tools(allowed, request, ctx.scope, called, described=False, spent=spent):
            choice = VERDICT_CHOICE  # every tool has checked what it can, or the model only repeats itself
        specs = native_specs(ctx, request, allowed)
        sampling = _turn_sampling(ctx, allowed, spent)
        turn = await ctx.client.chat(messages, tools=specs, tool_choice=choice, sampling=sampling)
    else:
        schema = action_schema(allowed, request, ctx.scope, called, spent)
        sampling = _turn_sampling(ctx, allowed, spent)
        turn = await ctx.client.chat(messages, json_schema=schema, schema_name="action", sampling=sampling)
    ctx.recorder.model_turn(turn, "agent")
    if turn.error is not None:
        return {"steps": steps, "messages": messages, "pending": [], "problem": f"the model call failed: {turn.error}"}
    said: dict[str, Any] = {"role": "assistant", "content": turn.text or ""}
    if turn.raw_tool_calls:
        said["tool_calls"] = turn.raw_tool_calls
    update: AgentState = {"steps": steps, "messages": [*messages, said], "pending": [], "problem": None}
    if any(c.name == VERDICT_TOOL for c in turn.tool_calls):  # the verdict ends this order; calls beside it don't run
        try:
            update["ruling"] = ruling_of(turn, request)
        except VerdictParseError as e:
            update["problem"] = str(e)
        return update
    if turn.tool_calls or turn.raw_tool_calls:
        if len(turn.tool_calls) < len(turn.raw_tool_calls):
            update["problem"] = "a tool call's arguments were not valid JSON"
        update["pending"] = turn.tool_calls
        return update
    try:
        # strict=False: a tab or newline left raw inside a string (a program's indentation, as llama.cpp's JSON
        # grammar lets a model write it) is still the action the model meant
        action = json.loads(latex_kept(turn.text or ""), strict=False)
    except json.JSONDecodeError:
        action = None
    if isinstance(action, dict) and action.get("action") == "call":
        name = str(action.get("tool", ""))
        arguments = action.get("arguments") if isinstance(action.get("arguments"), dict) else {}
        update["pending"] = [ToolCall(name=name, arguments=arguments, source="model", reason="the model asked")]
        return update
    try:
        update["ruling"] = parse_verdict(turn.text, verdict_format(request.mode), n)
    except VerdictParseError as e:
        update["problem"] = str(e)
    return update


def _position(call: ToolCall) -> int | None:
    """The candidate position a call names (the model's view of the order), if it names one."""
    value = call.arguments.get("candidate")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _to_request_indices(call: ToolCall, shown: list[int]) -> ToolCall:
    """The model names candidates by the position it sees; tools take the request's indices."""
    position = _position(call)
    if position is not None and 0 <= position < len(shown):
        return call.model_copy(update={"arguments": {**call.arguments, "candidate": shown[position]}})
    return call


async def act(state: AgentState, runtime: Ctx) -> AgentState:
    """Run the requested tool calls in parallel (within the tool-call budget), reusing any result an earlier
    order already has, and show the model the results."""
    ctx, request = runtime.context, state["request"]
    shown = shown_order(current_order(state), len(request.candidates))
    room = max(0, ctx.options.max_tool_calls - state.get("tool_calls", 0))
    asked, refused = _within_limits(state.get("pending", [])[:room], state, ctx.options)
    called = {tool: list(positions) for tool, positions in state.get("called", {}).items()}
    stalled = bool(asked) and all(_position(c) in called.get(c.name, []) for c in asked)
    for c in asked:
        if (position := _position(c)) is not None:
            called.setdefault(c.name, []).append(position)
    calls = [_to_request_indices(c, shown) for c in asked]
    cache = dict(state.get("cache", {}))
    keys = [f"{c.name}:{json.dumps(c.arguments, sort_keys=True)}" for c in calls]
    fresh = [(c, k) for c, k in zip(calls, keys, strict=True) if k not in cache]
    allowed = frozenset(state.get("allowed", []))
    ran = await run_recorded(ctx, request, [c for c, _ in fresh], "act", allowed)
    for (_, key), result in zip(fresh, ran, strict=True):
        cache[key] = result
    for call, result in refused:  # recorded like any call: the trajectory holds every call the model made
        ctx.recorder.tool_call(call, "act")
        ctx.recorder.tool_result(result, "act")
        key = f"refused:{call.id}"
        calls.append(call)
        keys.append(key)
        cache[key] = result
    messages = list(state["messages"])
    # A result answers a native call as a tool message; a call the model wrote as a JSON action (which a model
    # may do even where native calls are offered) as a user message: a tool message needs the assistant's call
    # id, and an id made up here would match no call (servers refuse it) and differ on every replay.
    native = {c.get("id") for m in messages[-1:] if m.get("role") == "assistant" for c in m.get("tool_calls") or []}
    for call, key in zip(calls, keys, strict=True):
        text = as_shown(cache[key].text, shown)
        if call.id in native:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
        else:
            args = json.dumps(call.arguments)
            messages.append({"role": "user", "content": f"Result of {call.name}({args}):\n{text}"})
    return {
        "evidence": list(ran),
        "messages": messages,
        "cache": cache,
        "called": called,
        "stalled": stalled,
        "pending": [],
        "tool_calls": state.get("tool_calls", 0) + len(calls),
    }


WRITES_PROGRAMS = frozenset({"python"})
"""Tools whose arguments are programs the model writes: a turn that may call one gets `program_max_tokens`."""


def _turn_sampling(ctx: AgentContext, allowed: list[str], spent: Collection[str]) -> Sampling:
    """The spec's sampling, with room for a program where the turn may write one (an action cut at the spec's
    `max_tokens` is no action: the untrained 1.5B model's programs were, at 200)."""
    sampling = sampling_of(ctx.spec)
    if any(name in WRITES_PROGRAMS and name not in spent for name in allowed):
        longest = max(sampling.max_tokens, ctx.options.program_max_tokens)
        return sampling.model_copy(update={"max_tokens": longest})
    return sampling


def _spent(state: AgentState, options: AgenticOptions) -> set[str]:
    """Tools whose calls this judgment has used up (`tool_call_limits`, counted over both orders)."""
    used = Counter(r.name for r in state.get("evidence", []) if r.error_kind != "limit")
    return {name for name, limit in options.tool_call_limits.items() if used[name] >= limit}


def _within_limits(
    asked: list[ToolCall], state: AgentState, options: AgenticOptions
) -> tuple[list[ToolCall], list[tuple[ToolCall, ToolResult]]]:
    """The calls to run, and those refused with a result that says why: past their tool's limit per judgment."""
    used = Counter(r.name for r in state.get("evidence", []) if r.error_kind != "limit")
    run, refused = [], []
    for call in asked:
        limit = options.tool_call_limits.get(call.name)
        if limit is not None and used[call.name] >= limit:
            why = f"{call.name} may be called {limit} times a judgment, and all were used"
            result = ToolResult(
                call_id=call.id, name=call.name, ok=False, error_kind="limit", error=why, text=f"error (limit): {why}"
            )
            refused.append((call, result))
            continue
        used[call.name] += 1
        run.append(call)
    return run, refused


async def force_verdict(state: AgentState, runtime: Ctx) -> AgentState:
    """The budget is spent: demand the verdict, schema-constrained, with no tools (retried as configured)."""
    ctx, request = runtime.context, state["request"]
    if ctx.client is None:
        return {"forced": True, "problem": state.get("problem") or "no model endpoint is configured"}
    n = len(request.candidates)
    fields = verdict_fields(request.mode, n)
    messages = [*state["messages"], {"role": "user", "content": ctx.spec.render("force", verdict_fields=fields)}]
    problem = state.get("problem")
    allowed = state.get("allowed", [])
    for _ in range(ctx.spec.max_verdict_attempts):
        if uses_native(ctx, allowed):  # the same functions as before (a stable prompt), the verdict's named
            specs = native_specs(ctx, request, allowed)
            turn = await ctx.client.chat(
                messages, tools=specs, tool_choice=VERDICT_CHOICE, sampling=sampling_of(ctx.spec)
            )
        else:
            schema = verdict_schema(verdict_format(request.mode), n)
            turn = await ctx.client.chat(messages, json_schema=schema, sampling=sampling_of(ctx.spec))
        ctx.recorder.model_turn(turn, "force_verdict")
        if turn.error is not None:
            problem = f"the model call failed: {turn.error}"
            continue
        try:
            return {"forced": True, "ruling": ruling_of(turn, request), "problem": None}
        except VerdictParseError as e:
            problem = str(e)
            messages = [
                *messages,
                {"role": "assistant", "content": turn.text or ""},
                {"role": "user", "content": ctx.spec.render("retry", problem=problem)},
            ]
    return {"forced": True, "problem": problem}


async def finalize(state: AgentState, runtime: Ctx) -> AgentState:
    """Deciding evidence the model gathered wins; else the orders' rulings combined (disagreement is a tie);
    else an invalid verdict with the reason."""
    request, evidence = state["request"], state.get("evidence", [])
    ruling, consistent = combine_orders(state.get("rulings", {}), state.get("orders", ["AB"]))
    decided = decide_from_evidence(request, evidence)
    problems = state.get("problems", {})
    verdict = final_verdict(request, decided, ruling, consistent, evidence, "no usable verdict", problems)
    runtime.context.recorder.verdict(verdict, "finalize")
    return {"verdict": verdict}


def route_after_agent(options: AgenticOptions) -> Any:
    def after_agent(state: AgentState) -> Literal["act", "agent", "force_verdict", "close_order"]:
        """Rule, run tools, try again after an unusable reply, or force the verdict when the budget is spent."""
        if state.get("ruling") is not None:
            return "close_order"
        if state.get("steps", 0) >= options.max_steps:
            return "force_verdict"
        if state.get("pending"):
            return "act" if state.get("tool_calls", 0) < options.max_tool_calls else "force_verdict"
        return "agent"

    return after_agent


def route_after_act(options: AgenticOptions) -> Any:
    def after_act(state: AgentState) -> Literal["agent", "force_verdict"]:
        """Back to the model, unless a budget is spent."""
        spent = state.get("tool_calls", 0) >= options.max_tool_calls or state.get("steps", 0) >= options.max_steps
        return "force_verdict" if spent else "agent"

    return after_act
