"""The contract between the runtime (`Judge`) and the graphs: the `JudgeGraph` protocol, and the registry of
graph kinds, where a graph declares everything that is its own (builder, options, checkpointed types)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from judgegraph.errors import ConfigError
from judgegraph.registry import Registry
from judgegraph.schema import (
    Candidate,
    CriterionResult,
    Document,
    JudgeRequest,
    Label,
    RubricCriterion,
    ToolCall,
    ToolResult,
    Trajectory,
    Verdict,
)

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph

    from judgegraph.agents import JudgeSpec
    from judgegraph.backends import ChatModel
    from judgegraph.tools import RecordedTools, ToolServices


@dataclass(frozen=True)
class RunEnd:
    """How a graph's run ended: its verdict (an invalid one that says why, where the run was cut or crashed),
    whether it completed, how long it took, and the crash or cancellation to raise once the trajectory is
    finished and stored."""

    verdict: Verdict
    status: Literal["complete", "incomplete"]
    duration_s: float
    error: BaseException | None = None


class JudgeGraph(Protocol):
    """A compiled judge: a LangGraph graph plus the way to run it with recording."""

    services: ToolServices
    """What its tools share (sandboxes, retrieval, MCP connections), for as long as the graph lives."""

    @property
    def compiled(self) -> CompiledStateGraph[Any, Any, Any, Any]:
        """The compiled LangGraph graph (for drawing and inspection; each graph kind has its own state)."""

    async def arun(
        self, trajectory: Trajectory, client: ChatModel | None, *, recorded: RecordedTools | None = None
    ) -> RunEnd:
        """Judge `trajectory.request`, recording every event into `trajectory`, and say how the run ended (the
        runtime finishes the trajectory from it, in one place). A crash or cancellation is recorded and returned
        in `RunEnd.error`, never raised. With `recorded` (replay), the recording answers every tool call it
        holds."""

    def attach_checkpointer(self, checkpointer: object) -> None:
        """Checkpoint every step of later runs (thread id = trajectory id)."""

    async def aclose(self) -> None:
        """Release what the graph's tools hold (sandboxes)."""


class GraphOptions(BaseModel):
    """Base of every graph's options model (a graph with no knobs of its own registers it as is): unknown keys
    are errors, and each field's docstring is its description."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


GraphBuilder = Callable[..., JudgeGraph]
"""`builder(spec, options, settings=None, checkpointer=None, artifacts=None) -> JudgeGraph`."""


@dataclass(frozen=True)
class GraphKind:
    """Everything a graph declares where it is registered (and nowhere else)."""

    build: GraphBuilder
    options: type[GraphOptions] = GraphOptions
    """The graph's own knobs, validated from a judge spec's `[options]` table when the judge loads."""
    checkpointed: tuple[type, ...] = ()
    """Types its state holds besides the core ones, allowed back out of a checkpoint."""


CORE_CHECKPOINTED: tuple[type, ...] = (
    JudgeRequest,
    Candidate,
    Document,
    Label,
    RubricCriterion,
    ToolCall,
    ToolResult,
    Verdict,
    CriterionResult,
)
"""The schema types every judge's state may hold."""

graph_kinds: Registry[GraphKind] = Registry("graph")


def register_graph(
    name: str, build: GraphBuilder, *, options: type[GraphOptions] = GraphOptions, checkpointed: tuple[type, ...] = ()
) -> None:
    """Register a graph kind: the only place a new judge graph is added."""
    graph_kinds.register(name, GraphKind(build=build, options=options, checkpointed=checkpointed))


def graph_options(spec: JudgeSpec) -> GraphOptions:
    """The spec's `[options]`, validated by its graph's options model (a bad option fails at load)."""
    kind = graph_kinds.get(spec.graph)
    try:
        return kind.options.model_validate(spec.options)
    except ValidationError as e:
        raise ConfigError(f"judge {spec.name!r}: invalid options for graph {spec.graph!r}:\n{e}") from e


def build_graph(spec: JudgeSpec, **kwargs: object) -> JudgeGraph:
    """Compile `spec`'s graph (`settings`, `checkpointer`, `artifacts` as the builder takes them)."""
    return graph_kinds.get(spec.graph).build(spec, graph_options(spec), **kwargs)


def checkpointed_types() -> list[tuple[str, str]]:
    """(module, name) of every type a checkpoint may hold; nothing else is deserialized from one."""
    kinds = [graph_kinds.get(n) for n in graph_kinds]
    types = {*CORE_CHECKPOINTED, *(t for k in kinds for t in k.checkpointed)}
    return sorted((t.__module__, t.__qualname__) for t in types)
