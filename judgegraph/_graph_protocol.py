"""The contract between the core (`Judge`) and the graph layer, which registers builders here."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from judgegraph._trajectory import Trajectory
from judgegraph.registry import Registry

if TYPE_CHECKING:
    from judgegraph.backends import ChatModel


class JudgeGraph(Protocol):
    """A compiled judge: a LangGraph graph plus the way to run it with recording."""

    @property
    def compiled(self) -> Any:
        """The compiled LangGraph graph (for drawing and inspection)."""

    async def arun(self, trajectory: Trajectory, client: ChatModel | None) -> Trajectory:
        """Judge `trajectory.request`, recording every event into `trajectory`; returns it, finished."""

    def attach_checkpointer(self, checkpointer: Any) -> None:
        """Checkpoint every step of later runs (thread id = trajectory id)."""

    async def aclose(self) -> None:
        """Release what the graph's tools hold (sandboxes)."""


GraphBuilder = Callable[..., JudgeGraph]
"""`builder(spec, settings=None, checkpointer=None, artifacts=None) -> JudgeGraph`."""

graph_builders: Registry[GraphBuilder] = Registry("graph builder")
