"""`Judge`: the Python entry point. Loads a judge by name, owns its model endpoint and store, runs requests."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Coroutine, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel

from judgegraph._version import __version__
from judgegraph.agents import JudgeSpec, resolve_judge
from judgegraph.backends import ChatModel, ModelEndpoint
from judgegraph.errors import InvalidInputError
from judgegraph.graphs import JudgeGraph, build_graph, checkpointed_types
from judgegraph.runtime._finish import finish
from judgegraph.runtime._replay import ReplayReport, replay
from judgegraph.runtime._reward import RewardConfig
from judgegraph.schema._request import JudgeRequest
from judgegraph.schema._trajectory import ToolCall, ToolResult, Trajectory, Versions
from judgegraph.schema._verdict import Verdict
from judgegraph.settings import Settings
from judgegraph.store import TrajectoryStore
from judgegraph.tools import ToolContext, call_tool
from judgegraph.tools._mcp import register_mcp_tools
from judgegraph.tools._prompts import tool_prompt_hashes

if TYPE_CHECKING:
    from judgegraph.tools import ArtifactSink

T = TypeVar("T")


async def open_checkpointer(store_path: Path) -> Any:
    """LangGraph's async SQLite checkpointer in a file beside the trajectory store, restricted to our types."""
    import aiosqlite
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = store_path.with_name(store_path.stem + ".checkpoints.db")
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = await aiosqlite.connect(path)
    serde = JsonPlusSerializer(allowed_msgpack_modules=checkpointed_types())
    saver = AsyncSqliteSaver(conn, serde=serde)
    await saver.setup()
    return saver


class BatchItem(BaseModel):
    """One result of `ajudge_many`."""

    index: int
    """Position of the request in the input."""
    verdict: Verdict | None = None
    trajectory_id: str | None = None
    error: str | None = None
    """Why this request failed (its verdict is then None)."""


class _LoopThread:
    """One background event loop for the sync façade, so clients and servers outlive each call."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="judgegraph-loop", daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        self.loop.close()


class Judge:
    """A judge ready to run: its spec, compiled graph, model endpoint and trajectory store.

    Use it as `async with Judge.load("evidence") as judge: verdict = await judge.ajudge(request)`, or
    synchronously with `judge.judge(request)` and `judge.close()`.
    """

    def __init__(
        self,
        spec: Any,
        graph: JudgeGraph,
        *,
        settings: Settings,
        store: TrajectoryStore | None,
        reward: RewardConfig | None = None,
        client: ChatModel | None = None,
    ) -> None:
        self.spec = spec
        self.reward = reward or RewardConfig()
        self._graph = graph
        self.settings = settings
        self.store = store
        self._endpoint = ModelEndpoint(settings, client)
        self._open_lock = asyncio.Lock()
        self._opened = False
        self._loop_thread: _LoopThread | None = None
        self._loop_lock = threading.Lock()  # the sync façade may be called from several threads at once
        self._checkpoints: Any = None
        # The spec's hashes, once: every run records them, and hashing the spec costs as much as a rule check.
        self._judge_version: str = spec.version
        # the judge's prompts, and those of the tools it may use that ask the model (`<tool>/<role>`)
        self._prompt_hashes: dict[str, str] = spec.prompt_hashes() | tool_prompt_hashes(spec.tools)

    @classmethod
    def load(
        cls,
        name: str | Path | JudgeSpec = "evidence",
        *,
        settings: Settings | None = None,
        store: TrajectoryStore | str | Path | Literal[False] | None = None,
        checkpointer: Any = None,
        reward: RewardConfig | None = None,
        artifacts: ArtifactSink | None = None,
        client: ChatModel | None = None,
        **overrides: Any,
    ) -> Judge:
        """Load a registered judge and compile its graph (a bad spec fails here, not on the first request).

        Args:
            name: the judge's registered name (`judgegraph judges` lists them), a judge folder (judge.toml and
                its prompts), or a spec (a registered one varied, e.g. sampled at a temperature for self-play).
            settings: where to run; default from `JUDGEGRAPH_*` environment variables, then `overrides`.
            store: a store or a path; None uses `settings.store_path`; False records nothing to disk.
            checkpointer: a LangGraph checkpointer to compile the graph with (none by default).
            reward: how each labelled run is rewarded (stored with the run); TIR-Judge's rule by default.
            artifacts: where images that tools produce go when there is no store (default: kept in memory).
            client: the model to judge with, instead of the endpoint the settings name (a teacher that plays
                a deterministic plan, a test double).
            **overrides: `Settings` fields, e.g. `model_url="http://127.0.0.1:8000/v1"`.
        """
        spec = name if isinstance(name, JudgeSpec) else resolve_judge(name)
        settings = settings.model_copy(update=overrides) if settings else Settings.from_env(**overrides)
        if sources := [*spec.mcp_servers, *settings.mcp_servers]:  # their tools join the judge's, listed now
            added = [n for n in register_mcp_tools(sources) if n not in spec.tools]
            spec = spec.model_copy(update={"tools": [*spec.tools, *added]})
        if store is None:
            store = TrajectoryStore(settings.store_path)
        elif isinstance(store, str | Path):
            store = TrajectoryStore(store)
        store = store or None
        if store is not None:  # what sits beside the store (checkpoints) follows the store actually used
            settings = settings.model_copy(update={"store_path": store.path})
        # Images tools produce are stored by content hash beside the trajectories that refer to them.
        sink = store if store is not None else artifacts
        graph = build_graph(spec, settings=settings, checkpointer=checkpointer, artifacts=sink)
        return cls(spec, graph, settings=settings, store=store, reward=reward, client=client)

    @property
    def name(self) -> str:
        return str(self.spec.name)

    @property
    def graph(self) -> Any:
        """The compiled LangGraph graph."""
        return self._graph.compiled

    @property
    def model(self) -> ChatModel:
        """The model this judge's runs are given (connected, the embedded server started, on first use)."""
        return self._endpoint.lazy

    # ------------------------------------------------------------ lifecycle

    async def open(self) -> None:
        """Get ready to judge. Idempotent. The model is connected (the embedded server started) only when a run
        first asks it something: rule-decided requests never start one."""
        async with self._open_lock:
            if not self._opened:
                if self.settings.checkpoints != "off":
                    self._checkpoints = await open_checkpointer(self.settings.store_path)
                    self._graph.attach_checkpointer(self._checkpoints)
                self._opened = True

    async def aclose(self) -> None:
        """Close the model connection, stop the embedded server and the sandboxes, and close the store."""
        await self._graph.aclose()
        await self._endpoint.close()
        if self._checkpoints is not None:
            await self._checkpoints.conn.close()
            self._checkpoints = None
        self._opened = False
        if self.store is not None:
            self.store.close()
            self.store = None

    async def __aenter__(self) -> Judge:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # ------------------------------------------------------------ judging

    def _versions(self) -> Versions:
        """What judges this run; the backend and model are those of the connected model (filled in at the end
        of a run that connected it; empty for a run that never asked a model)."""
        client = self._endpoint.opened
        return Versions(
            judgegraph=__version__,
            judge=self._judge_version,
            prompts=dict(self._prompt_hashes),
            tools=list(self.spec.tools),
            backend=client.profile.name if client is not None else "",
            model=client.model if client is not None else "",
        )

    async def new_trajectory(self, request: JudgeRequest | Mapping[str, object]) -> Trajectory:
        """An empty trajectory of `request` by this judge, for `arun(..., trajectory=)`."""
        if not isinstance(request, JudgeRequest):
            request = JudgeRequest.model_validate(request)
        await self.open()
        return Trajectory(judge=self.name, request=request, label=request.label, versions=self._versions())

    async def arun(
        self, request: JudgeRequest | Mapping[str, object], *, trajectory: Trajectory | None = None
    ) -> Trajectory:
        """Judge one request and return its whole trajectory (also written to the store).

        Args:
            trajectory: record into this one (from `new_trajectory(request)`) rather than a new one, so the
                caller holds the run even when it crashes (it is then `incomplete`, and the error re-raised).
        """
        trajectory = trajectory or await self.new_trajectory(request)
        if self.store is not None:
            await self.store.astart_run(trajectory)
        end = await self._graph.arun(trajectory, self._endpoint.lazy)
        await finish(trajectory, end, store=self.store, client=self._endpoint.opened, reward=self.reward)
        if self._checkpoints is not None and self.settings.checkpoints == "incomplete" and end.status == "complete":
            # A completed run is fully in the trajectory store: its step-by-step state copies are not needed.
            await self._checkpoints.adelete_thread(trajectory.id)
        return trajectory

    async def ajudge_many(
        self, requests: Iterable[JudgeRequest | Mapping[str, object]], concurrency: int = 8
    ) -> AsyncIterator[BatchItem]:
        """Judge many requests, `concurrency` at a time, yielding each result as it finishes (not in order).

        A request that fails (bad input, a crash) yields a `BatchItem` with `error` set; the batch goes on.

        Example:
            async for item in judge.ajudge_many(requests, concurrency=32):
                print(item.index, item.verdict.winner if item.verdict else item.error)
        """
        await self.open()
        sem = asyncio.Semaphore(concurrency)

        async def one(index: int, request: JudgeRequest | Mapping[str, object]) -> BatchItem:
            async with sem:
                try:
                    t = await self.arun(request)
                except Exception as e:  # recorded as incomplete by arun where it got that far
                    return BatchItem(index=index, error=f"{type(e).__name__}: {e}")
            return BatchItem(index=index, verdict=t.verdict, trajectory_id=t.id)

        tasks = [asyncio.ensure_future(one(i, r)) for i, r in enumerate(requests)]
        try:
            for done in asyncio.as_completed(tasks):
                yield await done
        finally:
            for task in tasks:
                task.cancel()

    async def acall_tool(self, request: JudgeRequest, call: ToolCall) -> ToolResult:
        """Run one of the registered tools on `request`, outside any judgment, with this judge's services (its
        sandboxes, retrieval) and model, under the tool's own limits (`judgegraph mcp` serves tools this way).
        Every failure is a result; nothing is recorded."""
        await self.open()
        context = ToolContext(request=request, services=self._graph.services, model=self._endpoint.lazy)
        return await call_tool(call, context)

    async def ajudge(self, request: JudgeRequest | Mapping[str, object]) -> Verdict:
        """Judge one request; returns the verdict (the trajectory is in the store)."""
        trajectory = await self.arun(request)
        assert trajectory.verdict is not None
        return trajectory.verdict

    async def areplay(
        self,
        original: Trajectory,
        *,
        overrides: dict[int, ToolResult] | None = None,
        from_step: int | None = None,
        record: bool = False,
    ) -> ReplayReport:
        """Run `original`'s request again from its recording (no model, no tools) and compare.

        Args:
            original: a recorded trajectory of this judge.
            overrides: event seq -> a tool result to use instead of the recorded one (counterfactual replay).
            from_step: replay only what was recorded before this event seq; from there on the judge's model
                and tools run live (a counterfactual from step K).
            record: also write the replay to the store, as a new trajectory.
        """
        if original.judge != self.name:
            raise InvalidInputError(f"trajectory {original.id} was judged by {original.judge!r}, not {self.name!r}")
        live = None
        if from_step is not None:
            await self.open()
            live = self._endpoint.lazy
        store = self.store if record else None
        return await replay(self._graph, self._judge_version, original, overrides, from_step, live, store)

    # ------------------------------------------------------------ sync façade

    def _sync(self, coro: Coroutine[Any, Any, T]) -> T:
        with self._loop_lock:
            if self._loop_thread is None:
                self._loop_thread = _LoopThread()
            loop_thread = self._loop_thread
        return loop_thread.run(coro)

    def run(self, request: JudgeRequest | Mapping[str, object]) -> Trajectory:
        """Synchronous `arun`."""
        return self._sync(self.arun(request))

    def judge(self, request: JudgeRequest | Mapping[str, object]) -> Verdict:
        """Synchronous `ajudge`."""
        return self._sync(self.ajudge(request))

    def close(self) -> None:
        """Synchronous `aclose`."""
        if self._loop_thread is not None:
            self._loop_thread.run(self.aclose())
            self._loop_thread.stop()
            self._loop_thread = None
        else:
            asyncio.run(self.aclose())
