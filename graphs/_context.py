"""Run-scoped dependencies that ride in LangGraph's runtime context, never in state or globals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from judgegraph.agents import JudgeSpec
from judgegraph.backends import ChatModel
from judgegraph.graphs._protocol import GraphOptions
from judgegraph.graphs._recorder import Recorder
from judgegraph.tools import RecordedTools, RunScope, ToolServices

OptionsT = TypeVar("OptionsT", bound=GraphOptions)


@dataclass(frozen=True)
class JudgeContext(Generic[OptionsT]):
    """What every node may use while judging one request; `OptionsT` is its graph's options model, so an option read is
    checked (`JudgeContext[EvidenceOptions]`)."""

    spec: JudgeSpec
    recorder: Recorder
    client: ChatModel | None
    """None when the run needs no model (the evidence decided and the judge deliberates only when undecided)."""
    services: ToolServices
    """Sandboxes and other shared tool services (opened on first use)."""
    scope: RunScope
    """This run's images and observations."""
    nonce: str
    """Per-run random suffix of the response markers, so a response cannot close its own marker."""
    options: OptionsT
    """The graph's own options (its registered options model, validated from the spec)."""
    recorded: RecordedTools | None = None
    """Replay: recorded tool results answer the run's tool calls (None: tools run)."""


AnyContext = JudgeContext[Any]
"""What the helpers every graph shares take (running tools, attaching images): any graph's context."""
