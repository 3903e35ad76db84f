"""The tool registry: typed async tools, their OpenAI specs, and one call path that turns failures into results."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import functools
import hashlib
import inspect
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgegraph.errors import ToolFailure, UnknownComponentError, field_problems
from judgegraph.registry import Registry
from judgegraph.schema import CriterionResult, JudgeRequest, ModelTurn, ToolCall, ToolResult, reply_schema

if TYPE_CHECKING:
    from judgegraph.backends import ChatModel
    from judgegraph.tools._recorded import RecordedTools
    from judgegraph.tools._scope import RunScope
    from judgegraph.tools._services import ToolServices


@dataclass(frozen=True)
class ToolContext:
    """What a tool may read while it runs (run-scoped, never global)."""

    request: JudgeRequest
    services: ToolServices | None = None
    """Shared services (sandbox pool, retrieval, artifact store); None where a tool runs without them."""
    scope: RunScope | None = None
    """This run's images and observations (`original_image`, `observation_1`, ...)."""
    model: ChatModel | None = None
    """The judge's model, for tools that ask it (claim extraction); None when there is none."""
    on_model_turn: Callable[[ModelTurn], object] | None = None
    """Where a tool's own model turns go, so the trajectory records them."""
    recorded: RecordedTools | None = None
    """Replay: the recording answers each call instead of the tool (None: tools run)."""

    def candidate(self, index: int) -> str:
        """Candidate `index`'s content; a readable failure when the request has no such candidate."""
        n = len(self.request.candidates)
        if not 0 <= index < n:
            raise ToolFailure(f"candidate {index} does not exist; valid: 0..{n - 1}")
        return self.request.candidates[index].content


class ImageBlob(BaseModel):
    """An image a tool produced; stored by content hash, referenced from the result by that hash."""

    data: bytes
    media_type: str = "image/png"


class ToolOutput(BaseModel):
    """What a tool function returns: text for the model and a typed result for the record."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    text: str
    data: BaseModel | None = None
    images: list[ImageBlob] = Field(default_factory=list)


ToolFn = Callable[[Any, ToolContext], Awaitable[ToolOutput]]
M = TypeVar("M", bound=BaseModel)


def each_candidate(tool_name: str, request: JudgeRequest, reason: str) -> list[ToolCall]:
    """A plan that calls `tool_name` once per candidate (the `candidate` argument), saying why."""
    return [ToolCall(name=tool_name, arguments={"candidate": i}, reason=reason) for i in range(len(request.candidates))]


def result_data(result: ToolResult, model: type[M]) -> M | None:
    """A successful result's typed data (None for a failed call or one without data): what criteria read."""
    if not result.ok or result.data is None:
        return None
    return model.model_validate(result.data)


_Reading = TypeVar("_Reading", bound="CriterionResult | list[CriterionResult] | None")


def reads(model: type[M]) -> Callable[[Callable[[ToolResult, M], _Reading]], Callable[[ToolResult], _Reading | None]]:
    """A criterion written over a result's typed data: a failed call, or one without data, gives no criterion."""

    def wrap(read: Callable[[ToolResult, M], _Reading]) -> Callable[[ToolResult], _Reading | None]:
        @functools.wraps(read)
        def criterion(result: ToolResult) -> _Reading | None:
            data = result_data(result, model)
            return None if data is None else read(result, data)

        return criterion

    return wrap


def candidate_criterion(
    result: ToolResult, name: str, candidate: int, passed: bool, score: float, detail: str | None = None
) -> CriterionResult:
    """A tool's pass/fail reading of one candidate as deciding evidence, citing the call behind it."""
    return CriterionResult(
        name=name,
        candidate=candidate,
        passed=passed,
        score=score,
        source=result.name,
        evidence=[result.call_id],
        detail=result.text if detail is None else detail,
    )


Planner = Callable[[JudgeRequest], list[ToolCall]]
FollowUp = Callable[[JudgeRequest, list[ToolResult]], list[ToolCall]]
"""Schedules calls after the first evidence, reading what it found (differential testing where the
statement's examples did not decide)."""
Criterion = Callable[[ToolResult], CriterionResult | list[CriterionResult] | None]
Narrower = Callable[[dict[str, Any], JudgeRequest, "RunScope | None"], dict[str, Any]]
"""Tightens a tool's argument schema to what is valid for one request (its documents, the images in scope)."""


@dataclass(frozen=True)
class ToolDef:
    """A registered tool."""

    name: str
    description: str
    args_model: type[BaseModel]
    fn: ToolFn
    timeout_s: float = 30.0
    max_output_chars: int = 20_000
    plan: Planner | None = None
    """The deterministic rule that schedules this tool for a request (None: only the model calls it)."""
    criterion: Criterion | None = None
    """Turns a result into deciding evidence about one candidate, or several (None: the result only informs the
    model)."""
    narrow: Narrower | None = None
    """Tightens the argument schema per request (beyond the candidate indices every tool gets)."""
    follow_up: FollowUp | None = None
    """The rule that schedules this tool after the first evidence left the request undecided."""
    applies: Callable[[JudgeRequest], bool] | None = None
    """For a tool no plan schedules: whether it is of use on this request (an agent is offered it only then);
    None: always."""
    explore: Planner | None = None
    """Calls worth trying where no plan knows the right one (the regions of an image a detail may sit in):
    self-play tries each once and the reward keeps the runs where it paid off."""
    version: str = "1"
    metadata: dict[str, Any] = field(default_factory=dict)

    def of_use(self, request: JudgeRequest) -> bool:
        """Whether this tool has anything to do on `request`: its plan schedules a call, or, for a tool no plan
        schedules, it applies (always, without an `applies` rule)."""
        if self.plan is not None:
            return bool(self.plan(request))
        return self.applies is None or self.applies(request)

    def openai_spec(self, parameters: dict[str, Any] | None = None, *, strict: bool = False) -> dict[str, Any]:
        """The OpenAI function-calling spec the model sees: with `parameters` (an `argument_schema` narrowed
        to one request) in place of the general ones, which are shared (do not mutate them); `strict` asks the
        server to decode the call's arguments under them."""
        function: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "parameters": _parameters(self.args_model) if parameters is None else parameters,
        }
        if strict:
            function["strict"] = True
        return {"type": "function", "function": function}

    def argument_schema(
        self,
        request: JudgeRequest,
        scope: RunScope | None = None,
        *,
        described: bool = True,
        exclude_candidates: Collection[int] = (),
    ) -> dict[str, Any]:
        """The argument schema narrowed to what is valid for `request`: a `candidate` argument may name only the
        request's candidates (less `exclude_candidates`), and the tool's own `narrow` tightens the rest. Without
        `described`, titles and descriptions are dropped (a decoding constraint, not text for the model)."""
        schema = copy.deepcopy(_parameters(self.args_model)) if described else reply_schema(self.args_model)
        schema["additionalProperties"] = False
        props = schema.get("properties", {})
        if "candidate" in props:
            allowed = [i for i in range(len(request.candidates)) if i not in exclude_candidates]
            kept = {k: v for k, v in props["candidate"].items() if k in ("title", "description")}
            props["candidate"] = {**kept, "type": "integer", "enum": allowed}
        return self.narrow(schema, request, scope) if self.narrow is not None else schema


@functools.cache
def _parameters(args_model: type[BaseModel]) -> dict[str, Any]:
    """An argument model's JSON schema, computed once (pydantic builds it anew on every call, and every model
    turn of an agentic judge sends it)."""
    schema = args_model.model_json_schema()
    schema.pop("title", None)
    return schema


def _adapt_tool(name: str, found: object) -> ToolDef:
    """What a `judgegraph.tools` entry point names: a ToolDef, or the function `@tool` registered (importing
    its module registered it)."""
    made = found if isinstance(found, ToolDef) else tools.get(name) if name in tools else None
    if made is None or (not isinstance(found, ToolDef) and made.fn is not found):
        raise TypeError(f"the tools entry point {name!r} names {found!r}, not a tool registered as {name!r} with @tool")
    if made.name != name:
        raise ValueError(f"the entry point {name!r} names the tool {made.name!r}: give both one name")
    return made


tools: Registry[ToolDef] = Registry("tool", plugins="judgegraph.tools", adapt=_adapt_tool)


def tool(
    name: str,
    *,
    timeout_s: float = 30.0,
    max_output_chars: int = 20_000,
    plan: Planner | None = None,
    criterion: Criterion | None = None,
    narrow: Narrower | None = None,
    follow_up: FollowUp | None = None,
    applies: Callable[[JudgeRequest], bool] | None = None,
    explore: Planner | None = None,
    version: str = "1",
) -> Callable[[ToolFn], ToolFn]:
    """Register an async `fn(args: ArgsModel, ctx: ToolContext) -> ToolOutput` as a tool.

    The argument model comes from the first parameter's annotation and the model-facing description from
    the docstring; both are checked here, at import, not on the first call. A tool the model calls needs
    nothing else; a tool that decides without a model also takes `plan` and `criterion`
    (`examples/plugin` has one).

    Args:
        name: the name judges list it by and the model calls it by.
        timeout_s: a call past this fails (as a result the model reads, never an exception).
        max_output_chars: the text the model reads is cut to this.
        plan: `request -> [ToolCall]`: the calls an evidence-first judge makes before any model is asked
            (`each_candidate` makes one a candidate); `[]` where the tool has nothing to check on a request.
        criterion: `ToolResult -> CriterionResult | [CriterionResult] | None`: a result read as deciding
            evidence, pass or fail of a candidate (`result_data` gives the typed result back,
            `candidate_criterion` makes the criterion); None where it decides nothing. Judges aggregate these:
            where they decide, no model is asked.
        narrow: tightens the argument schema the model sees to what is valid on one request.
        follow_up: `(request, results) -> [ToolCall]`: calls to make after the first evidence, reading it.
        applies: for a tool without a plan, whether an agent is offered it on a request.
        explore: calls worth trying where no plan knows the right one (for training trajectories).
        version: recorded with every call; change it when the tool's behaviour changes.
    """

    def register(fn: ToolFn) -> ToolFn:
        if not inspect.iscoroutinefunction(fn):
            raise TypeError(f"tool {name!r} must be an async function")
        hints = get_type_hints(fn)
        params = list(inspect.signature(fn).parameters)
        args_model = hints.get(params[0]) if params else None
        if not (isinstance(args_model, type) and issubclass(args_model, BaseModel)):
            raise TypeError(f"tool {name!r}: the first parameter must be annotated with a pydantic model")
        doc = inspect.getdoc(fn)
        if not doc:
            raise TypeError(f"tool {name!r} needs a docstring: it is the description the model reads")
        tools.register(
            name,
            ToolDef(
                name=name,
                description=doc,
                args_model=args_model,
                fn=fn,
                timeout_s=timeout_s,
                max_output_chars=max_output_chars,
                plan=plan,
                criterion=criterion,
                narrow=narrow,
                follow_up=follow_up,
                applies=applies,
                explore=explore,
                version=version,
            ),
        )
        return fn

    return register


async def call_tool(call: ToolCall, ctx: ToolContext, *, allowed: frozenset[str] | None = None) -> ToolResult:
    """Run one tool call; every failure (unknown tool, bad arguments, timeout, exception) becomes a result."""
    start = time.perf_counter()

    def failed(kind: Any, message: str) -> ToolResult:
        return ToolResult(
            call_id=call.id,
            name=call.name,
            ok=False,
            error_kind=kind,
            error=message,
            text=f"error ({kind}): {message}",
            duration_s=time.perf_counter() - start,
        )

    if ctx.recorded is not None:  # replay: the recording answers, with the model turns the tool made
        recorded, turns = ctx.recorded.take_with_turns(call)
        if recorded is not None:
            if ctx.on_model_turn is not None:
                for turn in turns:
                    ctx.on_model_turn(turn.model_copy(update={"for_call": call.id}))
            return recorded
        if not ctx.recorded.live:
            return failed("execution", "replay: this call is not in the recording")
    if allowed is not None and call.name not in allowed:
        return failed("unknown_tool", f"no tool {call.name!r}; available: {', '.join(sorted(allowed)) or 'none'}")
    try:
        spec = tools.get(call.name)
    except UnknownComponentError as e:
        return failed("unknown_tool", str(e))
    try:
        args = spec.args_model.model_validate(call.arguments)
    except ValidationError as e:
        return failed("invalid_arguments", _validation_message(e))
    if ctx.on_model_turn is not None:  # the tool's own model turns name the call they were made for
        record = ctx.on_model_turn
        ctx = dataclasses.replace(ctx, on_model_turn=lambda turn: record(turn.model_copy(update={"for_call": call.id})))
    try:
        async with asyncio.timeout(spec.timeout_s):  # no task of its own, as `wait_for` makes on 3.11
            out = await spec.fn(args, ctx)
    except TimeoutError:
        return failed("timeout", f"{call.name} took longer than {spec.timeout_s:g}s")
    except ToolFailure as e:
        return failed("execution", str(e))
    except Exception as e:  # a tool's bug must not crash the judge; it is recorded and shown
        return failed("execution", f"{type(e).__name__}: {e}")
    text, truncated = out.text, False
    if len(text) > spec.max_output_chars:
        text, truncated = text[: spec.max_output_chars] + "\n[output truncated]", True
    images = [_store_image(ctx, blob) for blob in out.images]
    return ToolResult(
        call_id=call.id,
        name=call.name,
        ok=True,
        text=text,
        data=out.data.model_dump(mode="json") if out.data is not None else None,
        images=images,
        truncated=truncated,
        duration_s=time.perf_counter() - start,
    )


def _store_image(ctx: ToolContext, blob: ImageBlob) -> str:
    """Store an image once under its sha256 (in the run's artifact store when there is one)."""
    if ctx.services is not None:
        return ctx.services.artifacts.put_artifact(blob.data, blob.media_type)
    return hashlib.sha256(blob.data).hexdigest()


def _validation_message(e: ValidationError) -> str:
    return field_problems(e, whole="arguments")
