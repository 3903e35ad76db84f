"""What every judge graph shares: spec checks, tool services, and running with recording. A room's graph
subclasses `RecordedGraph` and only wires its `StateGraph` in `build`."""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import StateGraph

from judgegraph.agents import JudgeSpec, checked_tools
from judgegraph.backends import ChatModel
from judgegraph.graphs._context import JudgeContext
from judgegraph.graphs._protocol import GraphOptions, RunEnd
from judgegraph.graphs._recorder import Recorder
from judgegraph.schema import Trajectory, Verdict
from judgegraph.settings import Settings
from judgegraph.tools import ArtifactSink, RecordedTools, RunScope, ToolServices


class RecordedGraph:
    """What every judge graph shares: spec checks, tool services, and running with recording.

    Subclasses only wire their graph in `build`.
    """

    def __init__(
        self,
        spec: JudgeSpec,
        options: GraphOptions,
        settings: Settings | None = None,
        checkpointer: Any = None,
        artifacts: ArtifactSink | None = None,
    ) -> None:
        checked_tools(spec)  # a spec built in code, not loaded from a folder or a plugin
        self.spec = spec
        self.options = options
        self.checkpointer = checkpointer
        settings = settings or Settings()
        self.budget_s = settings.budget_s
        self.services = ToolServices(
            sandbox=settings.sandbox,
            sandbox_pool_size=settings.sandbox_pool_size,
            artifacts=artifacts,
            derived_samples=settings.derived_samples,
            derived_repairs=settings.derived_repairs,
        )
        self._graph = self.build(spec)
        self._uncheckpointed = self._graph.compile(name=spec.name)
        """For replays, which leave no checkpoints."""
        self.compiled = (
            self._graph.compile(checkpointer=checkpointer, name=spec.name) if checkpointer else self._uncheckpointed
        )

    def attach_checkpointer(self, checkpointer: Any) -> None:
        """Recompile with a checkpointer (opened by the judge, which owns its connection)."""
        self.checkpointer = checkpointer
        self.compiled = self._graph.compile(checkpointer=checkpointer, name=self.spec.name)

    def build(self, spec: JudgeSpec) -> StateGraph[Any, Any, Any, Any]:
        raise NotImplementedError

    async def arun(
        self, trajectory: Trajectory, client: ChatModel | None, *, recorded: RecordedTools | None = None
    ) -> RunEnd:
        """Judge the trajectory's request, recording into it, and say how the run ended (`runtime/_finish.py`
        finishes the trajectory from that). A crash is recorded and returned, for the caller to raise once the
        run is stored; a run cut at the budget (`Settings.budget_s`) ends with an invalid verdict that says so.
        With `recorded` (replay), the recording answers tool calls, and the run leaves no checkpoints."""
        recorder = Recorder(trajectory, self.services.artifacts)
        if not trajectory.versions.nonce:
            trajectory.versions.nonce = secrets.token_hex(4)
        # The label is the answer key: the judge's state never holds it.
        request = trajectory.request.model_copy(update={"label": None})
        ctx = JudgeContext(
            spec=self.spec,
            recorder=recorder,
            client=client,
            services=self.services,
            scope=RunScope(request),
            nonce=trajectory.versions.nonce,
            options=self.options,
            recorded=recorded,
        )
        checkpointed = self.checkpointer is not None and recorded is None
        config: RunnableConfig | None = {"configurable": {"thread_id": trajectory.id}} if checkpointed else None
        graph = self.compiled if checkpointed else self._uncheckpointed
        start = time.perf_counter()
        budget = asyncio.timeout(self.budget_s)
        try:
            async with budget:
                final = await graph.ainvoke({"request": request}, config=config, context=ctx)
        except BaseException as e:
            if isinstance(e, TimeoutError) and budget.expired():  # our deadline, not a node's own timeout
                why = f"the judgment ran past its budget of {self.budget_s:g} s"
                recorder.error(why, kind="budget")
                return RunEnd(Verdict.invalid(why), "incomplete", time.perf_counter() - start)
            recorder.error(f"{type(e).__name__}: {e}", kind="crash" if isinstance(e, Exception) else "cancelled")
            why = f"the judge run failed: {type(e).__name__}: {e}"
            return RunEnd(Verdict.invalid(why), "incomplete", time.perf_counter() - start, error=e)
        return RunEnd(final["verdict"], "complete", time.perf_counter() - start)

    async def aclose(self) -> None:
        await self.services.aclose()
