"""Run-scoped dependencies that ride in LangGraph's runtime context, never in state or globals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judgegraph.agents import JudgeSpec
from judgegraph.backends import ChatModel
from judgegraph.graphs._recorder import Recorder
from judgegraph.tools import RecordedTools, RunScope, ToolServices


@dataclass(frozen=True)
class JudgeContext:
    """What every node may use while judging one request."""

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
    options: Any = None
    """The graph's own options (its registered options model, validated from the spec)."""
    recorded: RecordedTools | None = None
    """Replay: recorded tool results answer the run's tool calls (None: tools run)."""
