"""What the agentic judge's model is offered and told each turn: its options and state, the actions it may take
(tool calls, and the verdict as one more action, native or as one JSON schema) and the opening conversation."""

from __future__ import annotations

import json
import operator
from collections.abc import Collection
from typing import Annotated, Any, Literal, TypedDict

from langgraph.runtime import Runtime
from pydantic import Field

from judgegraph.agents import JudgeSpec
from judgegraph.graphs._context import JudgeContext
from judgegraph.graphs._protocol import GraphOptions
from judgegraph.graphs._runs import with_images
from judgegraph.graphs._shown import candidate_blocks, shown_order
from judgegraph.graphs._verdict_format import (
    LETTERS,
    ModelRuling,
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


def verdict_fields(mode: str, n: int) -> str:
    if verdict_format(mode) == "pairwise":
        return '"winner": "A" | "B" | "tie", "confidence": 0.0-1.0, "rationale": "..."'
    letters = ", ".join(f'"{c}": 1-10' for c in LETTERS[:n])
    return f'"scores": {{{letters}}}, "confidence": 0.0-1.0, "rationale": "..."'


def offered_tools(
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
        for name, arguments in offered_tools(
            allowed, request, scope, called or {}, described=False, spent=spent
        ).items()
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


VERDICT_CHOICE = {"type": "function", "function": {"name": VERDICT_TOOL}}


def native_specs(ctx: AgentContext, request: JudgeRequest, allowed: list[str]) -> list[dict[str, Any]]:
    """The functions offered for the whole conversation: each allowed tool narrowed to this request, and the
    verdict. They do not change turn by turn: servers render them into the prompt, and a prompt whose start
    changes defeats the prefix cache and leaves no token-aligned trajectory to train on."""
    strict = ctx.client.profile.strict_tools if ctx.client is not None else False
    offered = offered_tools(allowed, request, ctx.scope, {}, described=True)
    specs = [tools.get(name).openai_spec(narrowed, strict=strict) for name, narrowed in offered.items()]
    return [*specs, _verdict_function(request, strict=strict)]


def ruling_of(turn: ModelTurn, request: JudgeRequest) -> ModelRuling:
    """The ruling in a reply: the verdict function's arguments, else the reply's text."""
    call = next((c for c in turn.tool_calls if c.name == VERDICT_TOOL), None)
    text = json.dumps(call.arguments) if call is not None else turn.text
    return parse_verdict(text, verdict_format(request.mode), len(request.candidates))


def uses_native(ctx: AgentContext, allowed: list[str]) -> bool:
    """Whether this run's actions are native tool calls (else JSON actions under a schema)."""
    if ctx.client is None or not allowed:
        return False
    choice = ctx.options.actions
    return ctx.client.profile.native_tools if choice == "auto" else choice == "native"


def allowed_tools(spec: JudgeSpec, request: JudgeRequest) -> list[str]:
    """The judge's tools whose evidence this request carries (a tool without a plan: where it applies)."""
    return [name for name in spec.tools if tools.get(name).of_use(request)]


def current_order(state: AgentState) -> str:
    return state.get("orders", ["AB"])[state.get("order_index", 0)]


def opening_messages(ctx: AgentContext, request: JudgeRequest, allowed: list[str], order: str) -> list[dict[str, Any]]:
    """The conversation's start for one candidate order: task, responses behind markers, tools, reply format."""
    native = uses_native(ctx, allowed)
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
        verdict_fields=verdict_fields(request.mode, len(candidates)),
    )
    system = {"role": "system", "content": ctx.spec.render("agent_system")}
    return [system, {"role": "user", "content": with_images(ctx, request, task)}]


def _listed(document: Document) -> str:
    """A document as the task lists it: the id `retrieve` takes, and its pages where known (a model that is not
    held to the action schema must still name an existing document and page)."""
    count = document.page_count
    return document.id if count is None else f"{document.id} ({count} page{'' if count == 1 else 's'})"


FRESH: AgentState = {
    "steps": 0,
    "tool_calls": 0,
    "ruling": None,
    "problem": None,
    "pending": [],
    "called": {},
    "stalled": False,
}
