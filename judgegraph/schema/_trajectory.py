"""The lossless record of one judge run: typed events in order, the verdict and the versions behind it."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from judgegraph.schema._request import SCHEMA_VERSION, JudgeRequest, Label
from judgegraph.schema._verdict import Verdict

ToolErrorKind = Literal["invalid_arguments", "unknown_tool", "timeout", "execution", "output_too_large", "limit"]
RunStatus = Literal["running", "complete", "incomplete"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


def new_id(prefix: str) -> str:
    """A short unique id such as `run_1f3a…`."""
    return f"{prefix}_{uuid.uuid4().hex[:20]}"


class ToolCall(_Model):
    """A request to run one tool."""

    id: str = Field(default_factory=lambda: new_id("call"))
    """Unique id; the result carries it back."""
    name: str
    """The tool's registered name (the name the model sees)."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """Arguments as JSON, validated against the tool's argument model when it runs."""
    source: Literal["plan", "model"] = "plan"
    """Who asked for it: the deterministic evidence plan, or the model."""
    reason: str = ""
    """Why it was called (for plans: the rule that chose it)."""


class ToolResult(_Model):
    """What a tool returned; failures are results too, so the judge can read them."""

    call_id: str
    """The id of the call this answers."""
    name: str
    """The tool's name."""
    ok: bool
    """False when the tool failed; `error_kind` and `error` say how."""
    text: str = ""
    """What the model reads."""
    data: dict[str, Any] | None = None
    """The typed result, as JSON."""
    images: list[str] = Field(default_factory=list)
    """Content hashes of images the tool produced."""
    error_kind: ToolErrorKind | None = None
    """The class of failure, when it failed."""
    error: str | None = None
    """The failure message, when it failed."""
    truncated: bool = False
    """True when `text` was cut to the tool's output cap."""
    duration_s: float = 0.0
    """Wall time of the call."""


class ModelRequest(_Model):
    """The exact request sent to the model endpoint."""

    messages: list[dict[str, Any]]
    """Chat messages as sent (OpenAI wire format)."""
    tools: list[dict[str, Any]] = Field(default_factory=list)
    """Tool specs as sent."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Everything else sent: model, sampling parameters, response_format, tool_choice, extra body fields."""


class Usage(_Model):
    """Token counts the endpoint reported."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


class _Event(_Model):
    seq: int = 0
    """Position in the run (set by the recorder)."""
    t: float = 0.0
    """Seconds since the run started (set by the recorder)."""
    node: str = ""
    """The graph node the event happened in."""


class NodeEvent(_Event):
    """A graph node was entered or left."""

    event: Literal["node"] = "node"
    phase: Literal["enter", "exit", "error"]
    """Entered, left normally, or left by an exception."""
    update: dict[str, Any] = Field(default_factory=dict)
    """On exit: the state keys the node wrote, as JSON."""
    error: str | None = None
    """On error: the exception."""


class ModelTurn(_Event):
    """One call to the model: the exact request and everything the endpoint returned."""

    event: Literal["model_turn"] = "model_turn"
    id: str = Field(default_factory=lambda: new_id("turn"))
    request: ModelRequest
    """The request as sent."""
    text: str | None = None
    """The response text."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    """Tool calls in the response (arguments parsed where they were valid JSON)."""
    raw_tool_calls: list[dict[str, Any]] = Field(default_factory=list)
    """Tool calls exactly as returned, for calls whose arguments were malformed too."""
    finish_reason: str | None = None
    prompt_token_ids: list[int] | None = None
    """Prompt token ids, where the backend returns them."""
    completion_token_ids: list[int] | None = None
    """Completion token ids, where the backend returns them."""
    logprobs: list[dict[str, Any]] | None = None
    """Per-token logprobs (OpenAI `logprobs.content` entries), where the backend returns them."""
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    """Wall time of the call, retries included."""
    attempts: int = 1
    """HTTP attempts it took (transient errors are retried)."""
    backend: str = ""
    """The backend profile (`vllm`, `llama_cpp`, `generic`)."""
    model: str = ""
    """The model id the endpoint reported."""
    endpoint: str | None = None
    """The base URL that answered (several endpoints can serve one judge)."""
    error: str | None = None
    """Set when the call failed after its retries."""
    for_call: str | None = None
    """The tool call this turn was made for, where a tool asked the model (claims to check, programs for a
    derived reference): replay answers the call from the record and gives its turns back with it."""


class ToolCallEvent(_Event):
    """A tool was called."""

    event: Literal["tool_call"] = "tool_call"
    call: ToolCall


class ToolResultEvent(_Event):
    """A tool returned."""

    event: Literal["tool_result"] = "tool_result"
    result: ToolResult


class VerdictEvent(_Event):
    """The judge ruled."""

    event: Literal["verdict"] = "verdict"
    verdict: Verdict


class ErrorEvent(_Event):
    """Something failed that is not a tool or model result (a node raised, the run was cut short)."""

    event: Literal["error"] = "error"
    message: str
    kind: str = "exception"


Event = Annotated[
    NodeEvent | ModelTurn | ToolCallEvent | ToolResultEvent | VerdictEvent | ErrorEvent,
    Field(discriminator="event"),
]


class Versions(_Model):
    """Everything whose change could change a verdict."""

    judgegraph: str = ""
    judge: str = ""
    """Hash of the judge spec and its prompts."""
    prompts: dict[str, str] = Field(default_factory=dict)
    """Prompt name -> content hash."""
    tools: list[str] = Field(default_factory=list)
    """Tools the judge may use."""
    backend: str = ""
    model: str = ""
    nonce: str = ""
    """The run's response-marker suffix (it is part of every prompt, so replay needs it)."""


class Trajectory(_Model):
    """One judge run, recorded losslessly."""

    schema_version: int = SCHEMA_VERSION
    id: str = Field(default_factory=lambda: new_id("run"))
    """The trajectory id."""
    judge: str
    """The judge's registered name."""
    request: JudgeRequest
    events: list[Event] = Field(default_factory=list)
    """Everything that happened, in order."""
    path: list[str] = Field(default_factory=list)
    """Graph nodes in the order they ran."""
    verdict: Verdict | None = None
    label: Label | None = None
    reward: float | None = None
    """The judge's own reward for this run (for training the judge), when computed."""
    status: RunStatus = "running"
    """`running` while in progress (or if the process died), `complete`, or `incomplete` when it was cut short."""
    versions: Versions = Field(default_factory=Versions)
    started_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    ended_at: datetime | None = None
    duration_s: float | None = None

    @property
    def correct(self) -> bool | None:
        """Whether the verdict agrees with the label (None without a label or a valid verdict)."""
        from judgegraph.schema._outcome import verdict_correct

        return verdict_correct(self.verdict, self.label)

    def model_turns(self) -> list[ModelTurn]:
        """The model turns, in order."""
        return [e for e in self.events if isinstance(e, ModelTurn)]

    def tool_results(self) -> list[ToolResult]:
        """The tool results, in order."""
        return [e.result for e in self.events if isinstance(e, ToolResultEvent)]
