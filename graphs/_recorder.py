"""The recorder hook: every node, model turn, tool call and result goes into the trajectory, in order."""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from langgraph.graph import StateGraph
from langgraph.types import Command
from pydantic_core import to_jsonable_python

from judgegraph.schema import (
    ErrorEvent,
    ModelTurn,
    NodeEvent,
    ToolCall,
    ToolCallEvent,
    ToolResult,
    ToolResultEvent,
    Trajectory,
    Verdict,
    VerdictEvent,
)
from judgegraph.schema._artifacts import images_to_refs
from judgegraph.tools import ArtifactSink

E = TypeVar("E", NodeEvent, ModelTurn, ToolCallEvent, ToolResultEvent, VerdictEvent, ErrorEvent)


class Recorder:
    """Appends typed events to one trajectory, numbering and timing them. Images sent to the model inline are
    stored once by content hash and referenced as `artifact:sha256:<hash>` in the recorded request."""

    def __init__(self, trajectory: Trajectory, artifacts: ArtifactSink | None = None) -> None:
        self.trajectory = trajectory
        self.artifacts = artifacts
        self._t0 = time.perf_counter()

    def add(self, event: E, node: str = "") -> E:
        event.seq = len(self.trajectory.events)
        event.t = time.perf_counter() - self._t0
        if node:
            event.node = node
        self.trajectory.events.append(event)
        return event

    def enter(self, node: str) -> None:
        self.trajectory.path.append(node)
        self.add(NodeEvent(phase="enter"), node)

    def leave(self, node: str, update: dict[str, Any] | None) -> None:
        self.add(NodeEvent(phase="exit", update=to_jsonable_python(update or {}, fallback=repr)), node)

    def fail(self, node: str, error: BaseException) -> None:
        self.add(NodeEvent(phase="error", error=f"{type(error).__name__}: {error}"), node)

    def model_turn(self, turn: ModelTurn, node: str) -> ModelTurn:
        if self.artifacts is not None:
            messages = [images_to_refs(m, self.artifacts.put_artifact) for m in turn.request.messages]
            turn.request = turn.request.model_copy(update={"messages": messages})
        return self.add(turn, node)

    def tool_call(self, call: ToolCall, node: str) -> None:
        self.add(ToolCallEvent(call=call), node)

    def tool_result(self, result: ToolResult, node: str) -> None:
        self.add(ToolResultEvent(result=result), node)

    def verdict(self, verdict: Verdict, node: str) -> None:
        self.add(VerdictEvent(verdict=verdict), node)

    def error(self, message: str, kind: str = "exception") -> None:
        self.add(ErrorEvent(message=message, kind=kind))


NodeFn = Callable[[Any, Any], Awaitable[Any]]
"""A node: (state, runtime) -> a state update, or a `Command` (an update and where to go next)."""


def recorded(name: str, fn: NodeFn) -> NodeFn:
    """Wrap a node so entering, leaving (with its state update, also from a `Command`) and raising are
    recorded."""

    @functools.wraps(fn)
    async def node(state: Any, runtime: Any) -> Any:
        recorder: Recorder = runtime.context.recorder
        recorder.enter(name)
        try:
            update = await fn(state, runtime)
        except Exception as e:
            recorder.fail(name, e)
            raise
        recorder.leave(name, update.update if isinstance(update, Command) else update)
        return update

    return node


def add_recorded_nodes(
    graph: StateGraph[Any, Any, Any, Any],
    nodes: Mapping[str, NodeFn],
    destinations: Mapping[str, tuple[str, ...]] | None = None,
) -> None:
    """Add each node to `graph` under its name, wrapped by `recorded`; `destinations` names where a node that
    routes by `Command` may go (for the drawing and the graph's checks)."""
    for name, fn in nodes.items():
        goes = (destinations or {}).get(name)
        # LangGraph's add_node overloads want the node's own state type; the wrapper takes any state.
        graph.add_node(name, recorded(name, fn), destinations=goes)  # type: ignore[call-overload]
