"""The agentic judge (after ARM-Thinker and TIR-Judge): the model thinks, calls tools, reads their results and
rules; step and tool-call budgets end in an explicit forced verdict.

agent -> act (tools, in parallel) -> agent -> ... -> finalize, or -> force_verdict -> finalize.
Backends that parse tool calls (vLLM) get native `tools=`, with the verdict as one more function and
`tool_choice="required"` where the server takes it (then every turn is a call the strict schemas allow); others
(llama.cpp's default chat format) are asked for one JSON action per turn under a schema, so the same graph runs on
both.
"""

from __future__ import annotations

import json
import operator
from collections import Counter
from collections.abc import Collection
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from pydantic import Field

from judgegraph.agents import JudgeSpec
from judgegraph.backends import Sampling
from judgegraph.errors import VerdictParseError
from judgegraph.graphs._aggregate import decide_from_evidence, final_verdict
from judgegraph.graphs._builder import RecordedGraph
from judgegraph.graphs._context import JudgeContext
from judgegraph.graphs._nodes import combine_orders, run_recorded, sampling_of, with_images
from judgegraph.graphs._protocol import GraphOptions, register_graph
from judgegraph.graphs._recorder import add_recorded_nodes
from judgegraph.graphs._shown import as_shown, candidate_blocks, shown_order, unshuffle
from judgegraph.graphs._verdict_format import (
    LETTERS,
    ModelRuling,
    latex_kept,
    parse_verdict,
    verdict_format,
    verdict_schema,
)
from judgegraph.schema import Document, JudgeRequest, ModelTurn, ToolCall, ToolResult, Verdict
from judgegraph.tools import RunScope, tools
from judgegraph.tools.python import DEFAULT_CALLS as DEFAULT_PYTHON_CALLS


class AgenticOptions(GraphOptions):
    """The agentic graph's own knobs: its budgets."""

    max_steps: int = Field(default=6, ge=1)
    """Model turns before the verdict is forced."""
    max_tool_calls: int = Field(default=8, ge=0)
    """Tool calls before the verdict is forced."""
    program_max_tokens: int = Field(default=768, ge=1)
    """Tokens a turn may take where it may write a program (the `python` tool is offered): a program does not
    fit in a verdict's budget."""
    tool_call_limits: dict[str, int] = Field(default_factory=lambda: {"python": DEFAULT_PYTHON_CALLS})
    """Calls a judgment may make of a tool (over both candidate orders); past it a call gets a result that says
    so, and the tool is no longer offered. The `python` tool: 3 (TIR-Judge's budget)."""
    actions: Literal["auto", "json", "native"] = "auto"
    """How the model acts: `native` tool calls (the server parses them; narrowed, strict tool schemas), `json`
    actions decoded under one schema (every call valid by construction), or `auto`: native where the backend
    parses tool calls, else json."""


AgentContext = JudgeContext[AgenticOptions]
Ctx = Runtime[AgentContext]


class AgentState(TypedDict, total=False):
    request: JudgeRequest
    allowed: list[str]
    """Tools this request's evidence allows."""
    orders: list[str]
    """Candidate orders to judge (`AB` and `BA` for pairs): the loop runs once per order."""
    order_index: int
    rulings: dict[str, ModelRuling]
    """The ruling of each finished order, in the request's candidate indices."""
    problems: dict[str, str]
    more: bool
    """Whether another candidate order is still to be judged."""
    cache: dict[str, ToolResult]
    """Tool results by call (tool and request-index arguments): the second order reuses the first's."""
    messages: list[dict[str, Any]]
    """The current order's conversation, as sent to the model."""
    pending: list[ToolCall]
    """Tool calls the model just asked for."""
    called: dict[str, list[int]]
    """Tool -> the candidate positions it checked in this order's conversation (not offered again)."""
    stalled: bool
    """The model's last calls only repeated calls this conversation already answered: the verdict is next."""
    evidence: Annotated[list[ToolResult], operator.add]
    steps: int
    tool_calls: int
    ruling: ModelRuling | None
    problem: str | None
    forced: bool
    verdict: Verdict


def _verdict_fields(mode: str, n: int) -> str:
    if verdict_format(mode) == "pairwise":
        return '"winner": "A" | "B" | "tie", "confidence": 0.0-1.0, "rationale": "..."'
    letters = ", ".join(f'"{c}": 1-10' for c in LETTERS[:n])
    return f'"scores": {{{letters}}}, "confidence": 0.0-1.0, "rationale": "..."'


def _offered(
    allowed: list[str],
    request: JudgeRequest,
    scope: RunScope | None,
    called: dict[str, list[int]],
    *,
    described: bool,
    spent: Collection[str] = (),
) -> dict[str, dict[str, Any]]:
    """Each tool still worth calling in this order, with its argument schema narrowed to this request and to
    candidates it has not yet checked in this conversation (a repeat only returns the same result again), less
    the tools whose calls this judgment has spent."""
    offered = {}
    for name in allowed:
        if name in spent:
            continue
        done = called.get(name, [])
        schema = tools.get(name).argument_schema(request, scope, described=described, exclude_candidates=done)
        candidate = schema.get("properties", {}).get("candidate")
        if candidate is None or candidate["enum"]:  # a tool without a candidate argument is always offered
            offered[name] = schema
    return offered


def action_schema(
    allowed: list[str],
    request: JudgeRequest,
    scope: RunScope | None = None,
    called: dict[str, list[int]] | None = None,
    spent: Collection[str] = (),
) -> dict[str, Any]:
    """One JSON action per turn, constrained: one alternative per tool still offered (its own arguments,
    narrowed to this request), and one for the verdict. A schema-constrained decoder can then only produce a
    call the tool accepts, or a well-formed verdict."""
    verdict = verdict_schema(verdict_format(request.mode), len(request.candidates))
    alternatives: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {"action": {"const": "call"}, "tool": {"const": name}, "arguments": arguments},
            "required": ["action", "tool", "arguments"],
            "additionalProperties": False,
        }
        for name, arguments in _offered(allowed, request, scope, called or {}, described=False, spent=spent).items()
    ]
    alternatives.append(
        {
            "type": "object",
            "properties": {"action": {"const": "verdict"}, **verdict["properties"]},
            "required": ["action", *verdict["required"]],
            "additionalProperties": False,
        }
    )
    return alternatives[0] if len(alternatives) == 1 else {"anyOf": alternatives}


VERDICT_TOOL = "submit_verdict"
"""Native tool calls under `tool_choice="required"` give the verdict as a call of this function."""


def _verdict_function(request: JudgeRequest, *, strict: bool) -> dict[str, Any]:
    """The verdict as a function the model calls when it is ready to rule (its arguments: the verdict schema)."""
    schema = verdict_schema(verdict_format(request.mode), len(request.candidates))
    function = {
        "name": VERDICT_TOOL,
        "description": "Give your verdict, once the evidence you need is in.",
        "parameters": schema,
    }
    return {"type": "function", "function": {**function, "strict": True} if strict else function}


_VERDICT_CHOICE = {"type": "function", "function": {"name": VERDICT_TOOL}}


def _native_specs(ctx: AgentContext, request: JudgeRequest, allowed: list[str]) -> list[dict[str, Any]]:
    """The functions offered for the whole conversation: each allowed tool narrowed to this request, and the
    verdict. They do not change turn by turn: servers render them into the prompt, and a prompt whose start
    changes defeats the prefix cache and leaves no token-aligned trajectory to train on."""
    strict = ctx.client.profile.strict_tools if ctx.client is not None else False
    offered = _offered(allowed, request, ctx.scope, {}, described=True)
    specs = [tools.get(name).openai_spec(narrowed, strict=strict) for name, narrowed in offered.items()]
    return [*specs, _verdict_function(request, strict=strict)]


def _ruling(turn: ModelTurn, request: JudgeRequest) -> ModelRuling:
    """The ruling in a reply: the verdict function's arguments, else the reply's text."""
    call = next((c for c in turn.tool_calls if c.name == VERDICT_TOOL), None)
    text = json.dumps(call.arguments) if call is not None else turn.text
    return parse_verdict(text, verdict_format(request.mode), len(request.candidates))


def _native(ctx: AgentContext, allowed: list[str]) -> bool:
    """Whether this run's actions are native tool calls (else JSON actions under a schema)."""
    if ctx.client is None or not allowed:
        return False
    choice = ctx.options.actions
    return ctx.client.profile.native_tools if choice == "auto" else choice == "native"


def allowed_tools(spec: JudgeSpec, request: JudgeRequest) -> list[str]:
    """The judge's tools whose evidence this request carries (a tool without a plan: where it applies)."""
    return [name for name in spec.tools if tools.get(name).of_use(request)]


def _order(state: AgentState) -> str:
    return state.get("orders", ["AB"])[state.get("order_index", 0)]


def _opening(ctx: AgentContext, request: JudgeRequest, allowed: list[str], order: str) -> list[dict[str, Any]]:
    """The conversation's start for one candidate order: task, responses behind markers, tools, reply format."""
    native = _native(ctx, allowed)
    shown = shown_order(order, len(request.candidates))
    candidates = candidate_blocks(request, shown, ctx.nonce)
    task = ctx.spec.render(
        "agent_task",
        prompt=request.prompt,
        reference=request.reference or "",
        candidates=candidates,
        tools=allowed,
        documents=[_listed(d) for d in request.documents] if "retrieve" in allowed else [],
        json_actions=not native,
        verdict_fields=_verdict_fields(request.mode, len(candidates)),
    )
    system = {"role": "system", "content": ctx.spec.render("agent_system")}
    return [system, {"role": "user", "content": with_images(ctx, request, task)}]


def _listed(document: Document) -> str:
    """A document as the task lists it: the id `retrieve` takes, and its pages where known (a model that is not
    held to the action schema must still name an existing document and page)."""
    count = document.page_count
    return document.id if count is None else f"{document.id} ({count} page{'' if count == 1 else 's'})"


_FRESH: AgentState = {
    "steps": 0,
    "tool_calls": 0,
    "ruling": None,
    "problem": None,
    "pending": [],
    "called": {},
    "stalled": False,
}


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
        "messages": _opening(ctx, request, allowed, orders[0]),
        **_FRESH,
    }


async def close_order(state: AgentState, runtime: Ctx) -> AgentState:
    """Keep this order's ruling (in request indices); open the next order's conversation, if any."""
    ctx, request = runtime.context, state["request"]
    order = _order(state)
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
        update |= {"order_index": nxt, "messages": _opening(ctx, request, allowed, state["orders"][nxt]), **_FRESH}
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
    if _native(ctx, allowed):
        choice: str | dict[str, Any] = "required" if ctx.client.profile.tool_choice_required else "auto"
        if state.get("stalled") or not _offered(allowed, request, ctx.scope, called, described=False, spent=spent):
            choice = _VERDICT_CHOICE  # every tool has checked what it can, or the model only repeats itself
        specs = _native_specs(ctx, request, allowed)
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
            update["ruling"] = _ruling(turn, request)
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
    shown = shown_order(_order(state), len(request.candidates))
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
    fields = _verdict_fields(request.mode, n)
    messages = [*state["messages"], {"role": "user", "content": ctx.spec.render("force", verdict_fields=fields)}]
    problem = state.get("problem")
    allowed = state.get("allowed", [])
    for _ in range(ctx.spec.max_verdict_attempts):
        if _native(ctx, allowed):  # the same functions as before (a stable prompt), the verdict's named
            specs = _native_specs(ctx, request, allowed)
            turn = await ctx.client.chat(
                messages, tools=specs, tool_choice=_VERDICT_CHOICE, sampling=sampling_of(ctx.spec)
            )
        else:
            schema = verdict_schema(verdict_format(request.mode), n)
            turn = await ctx.client.chat(messages, json_schema=schema, sampling=sampling_of(ctx.spec))
        ctx.recorder.model_turn(turn, "force_verdict")
        if turn.error is not None:
            problem = f"the model call failed: {turn.error}"
            continue
        try:
            return {"forced": True, "ruling": _ruling(turn, request), "problem": None}
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


class AgenticGraph(RecordedGraph):
    """intake -> agent <-> act ... -> [force_verdict] -> close_order -> (next order: agent ...) -> finalize."""

    def build(self, spec: JudgeSpec) -> StateGraph[Any, Any, Any, Any]:
        g = StateGraph(AgentState, context_schema=JudgeContext)
        add_recorded_nodes(g, {fn.__name__: fn for fn in (intake, agent, act, force_verdict, close_order, finalize)})
        g.add_edge(START, "intake")
        g.add_edge("intake", "agent")
        assert isinstance(self.options, AgenticOptions)
        g.add_conditional_edges("agent", route_after_agent(self.options))
        g.add_conditional_edges("act", route_after_act(self.options))
        g.add_edge("force_verdict", "close_order")
        g.add_conditional_edges("close_order", route_after_close)
        g.add_edge("finalize", END)
        return g


register_graph("agentic", AgenticGraph, options=AgenticOptions, checkpointed=(ModelRuling,))
