"""Scale-out on Ray: judge actors spread over a cluster; the driver records every result and trajectory.

Each actor holds one `Judge` (its model connection, compiled graph and sandbox pool) and records nothing to
disk: it sends each finished run back (trajectory and the images it refers to), and the driver writes them into
its one store. A crashed run comes back too, marked incomplete. Ray restarts a dead actor and retries its calls;
recording on the driver makes a retry safe (nothing was written for the lost attempt).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import math
import re
import time
from collections.abc import Mapping
from types import TracebackType
from typing import Any, Literal

from pydantic import BaseModel

from judgegraph.agents import JudgeSpec
from judgegraph.errors import JudgegraphError, PrerequisiteError, RemoteRunError, UsageError
from judgegraph.runtime._judge import Judge
from judgegraph.schema._request import JudgeRequest
from judgegraph.schema._trajectory import Trajectory
from judgegraph.settings import Settings
from judgegraph.store import TrajectoryStore

_DIGEST = re.compile(r"[0-9a-f]{64}")


class ShippedArtifact(BaseModel):
    digest: str
    media_type: str
    data: bytes


class WorkerResult(BaseModel):
    """What an actor sends back for one run."""

    trajectory_json: str
    artifacts: list[ShippedArtifact] = []
    error: str | None = None


class ShippingArtifacts:
    """An actor's `ArtifactSink`: holds images only while a run that may refer to them is in flight.

    An image is kept while it was last stored after the start of some run still in flight (storing it again
    refreshes it); each finished run takes the images its trajectory refers to.
    """

    def __init__(self) -> None:
        self._items: dict[str, tuple[bytes, str, float]] = {}
        self._starts: dict[int, float] = {}
        self._next = 0

    def put_artifact(self, data: bytes, media_type: str) -> str:
        digest = hashlib.sha256(data).hexdigest()
        self._items[digest] = (data, media_type, time.monotonic())
        return digest

    def get_artifact(self, digest: str) -> tuple[bytes, str] | None:
        item = self._items.get(digest)
        return (item[0], item[1]) if item else None

    def begin(self) -> int:
        self._next += 1
        self._starts[self._next] = time.monotonic()
        return self._next

    def end(self, token: int, trajectory_json: str) -> list[ShippedArtifact]:
        """The images `trajectory_json` refers to; forgets those no run in flight can still need."""
        shipped = [
            ShippedArtifact(digest=d, media_type=self._items[d][1], data=self._items[d][0])
            for d in sorted(set(_DIGEST.findall(trajectory_json)))
            if d in self._items
        ]
        del self._starts[token]
        oldest = min(self._starts.values(), default=math.inf)
        self._items = {d: item for d, item in self._items.items() if item[2] >= oldest}
        return shipped

    @property
    def held(self) -> int:
        """Images held now."""
        return len(self._items)


class JudgeWorker:
    """The body of a Ray actor: one judge, no store. Methods run concurrently on the actor's event loop."""

    def __init__(self, judge: str | JudgeSpec, settings_json: str) -> None:
        # Durability is the driver's: no checkpoint file on the worker's disk.
        settings = Settings.model_validate_json(settings_json).model_copy(update={"checkpoints": "off"})
        self.artifacts = ShippingArtifacts()
        self.judge = Judge.load(judge, settings=settings, store=False, artifacts=self.artifacts)

    async def ready(self) -> str:
        """Open the judge (connect to the model, or start the embedded one); returns the node's address."""
        import ray

        await self.judge.open()
        return str(ray.util.get_node_ip_address())

    async def run(self, request_json: str) -> WorkerResult:
        trajectory = await self.judge.new_trajectory(JudgeRequest.model_validate_json(request_json))
        token = self.artifacts.begin()
        error = None
        try:
            await self.judge.arun(trajectory.request, trajectory=trajectory)
        except Exception as e:  # recorded in the trajectory as incomplete; the driver fails this line
            error = f"{type(e).__name__}: {e}"
        finally:
            text = trajectory.model_dump_json()
            artifacts = self.artifacts.end(token, text)
        return WorkerResult(trajectory_json=text, artifacts=artifacts, error=error)

    async def close(self) -> None:
        await self.judge.aclose()


async def record_result(store: TrajectoryStore | None, result: WorkerResult) -> Trajectory:
    """A worker's finished run, recorded in the driver's store (its images first); a run that crashed on the worker
    is recorded too (incomplete) and raised as a `RemoteRunError`."""
    trajectory = Trajectory.model_validate_json(result.trajectory_json)
    if store is not None:
        for a in result.artifacts:
            store.put_artifact(a.data, a.media_type)
        await store.astart_run(trajectory)  # the store's writer thread keeps start before finish
        await asyncio.shield(store.afinish_run(trajectory))
    if result.error is not None:
        raise RemoteRunError(result.error)
    return trajectory


class SpreadJudge:
    """What a judge spread over workers shares (`RayJudge`'s actors, `ProcessJudge`'s processes), used like a
    `Judge`: each request goes to the least-busy worker, and its run is recorded in the driver's store."""

    store: TrajectoryStore | None
    _in_flight: list[int]
    """Requests in flight on each worker."""

    @property
    def _open_workers(self) -> int:
        """How many workers take requests: 0 unless the judge is open."""
        raise NotImplementedError

    async def _run_on(self, worker: int, request_json: str) -> WorkerResult:
        """Judge one request (a `JudgeRequest`'s JSON) on worker `worker`."""
        raise NotImplementedError

    async def arun(self, request: JudgeRequest | Mapping[str, object]) -> Trajectory:
        """Judge one request on the least-busy worker; record its trajectory in the driver's store."""
        if not isinstance(request, JudgeRequest):
            request = JudgeRequest.model_validate(request)
        if not self._open_workers:
            name = type(self).__name__
            raise UsageError(f"{name} is not open: use `async with {name}(...)`")
        i = min(range(self._open_workers), key=self._in_flight.__getitem__)
        self._in_flight[i] += 1
        try:
            result = await self._run_on(i, request.model_dump_json())
        finally:
            self._in_flight[i] -= 1
        return await record_result(self.store, result)


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise PrerequisiteError("Ray is not installed: pip install 'judgegraph[ray]'") from None
    return ray


class RayJudge(SpreadJudge):
    """A judge spread over Ray actors, used like a `Judge`: `async with RayJudge(...) as j: await j.arun(r)`.

    Args:
        judge: the registered judge's name, or a judge spec, that each actor loads.
        settings: passed to every actor (`model_url` must be reachable from every node; unset, each actor
            starts its own embedded CPU model).
        address: the Ray cluster (`ray://head:10001`, `auto`); None: `RAY_ADDRESS`, else a new local instance.
        actors: how many judge actors (default: one per CPU of the cluster).
        concurrency: requests in flight across all actors.
        store: where the driver records results (default: `settings.store_path`); False records nothing.
        cpus_per_actor: the CPUs Ray reserves for each actor (fractions place several on one CPU).
        start_timeout_s: how long the actors may take to start (the embedded model loads in each).
    """

    def __init__(
        self,
        judge: str | JudgeSpec,
        settings: Settings,
        *,
        address: str | None = None,
        actors: int | None = None,
        concurrency: int = 8,
        store: TrajectoryStore | Literal[False] | None = None,
        cpus_per_actor: float = 1.0,
        start_timeout_s: float = 300.0,
    ) -> None:
        self.judge = judge
        self.settings = settings
        self.address = address
        self.requested_actors = actors
        self.concurrency = concurrency
        self.cpus_per_actor = cpus_per_actor
        self.start_timeout_s = start_timeout_s
        self.store = TrajectoryStore(settings.store_path) if store is None else store or None
        self._ray: Any = None
        self._started_ray = False
        self._actors: list[Any] = []
        self._in_flight: list[int] = []
        self.nodes: list[str] = []
        """The node address of each actor."""

    async def __aenter__(self) -> RayJudge:
        ray = self._ray = _import_ray()
        if not ray.is_initialized():
            ray.init(address=self.address, include_dashboard=False, log_to_driver=False)
            self._started_ray = True
        cpus = ray.cluster_resources().get("CPU", 0.0)
        n = self.requested_actors or max(1, int(cpus / self.cpus_per_actor))
        if n * self.cpus_per_actor > cpus:
            await self._shutdown()
            raise JudgegraphError(
                f"{n} judge actors of {self.cpus_per_actor:g} CPU each do not fit on this Ray cluster ({cpus:g} CPUs):"
                " use fewer actors (--ray-actors) or a bigger cluster"
            )
        worker = ray.remote(JudgeWorker).options(
            num_cpus=self.cpus_per_actor,
            max_concurrency=max(1, math.ceil(self.concurrency / n)),
            max_restarts=2,
            max_task_retries=2,
        )
        settings_json = self.settings.model_dump_json()
        self._actors = [worker.remote(self.judge, settings_json) for _ in range(n)]
        self._in_flight = [0] * n
        try:
            ready = asyncio.gather(*(a.ready.remote() for a in self._actors))
            self.nodes = list(await asyncio.wait_for(ready, timeout=self.start_timeout_s))
        except TimeoutError:
            await self._shutdown()
            raise JudgegraphError(f"the {n} judge actors did not all start within {self.start_timeout_s:g} s") from None
        except BaseException:
            await self._shutdown()
            raise
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._shutdown()

    async def _shutdown(self) -> None:
        ray = self._ray
        if self._actors:
            with contextlib.suppress(Exception):  # a dead actor has nothing to close
                await asyncio.wait_for(asyncio.gather(*(a.close.remote() for a in self._actors)), timeout=30)
            for actor in self._actors:
                ray.kill(actor)
            self._actors = []
        if self._started_ray:
            ray.shutdown()
            self._started_ray = False
        if self.store is not None:
            self.store.close()

    @property
    def actors(self) -> int:
        return len(self._actors)

    @property
    def _open_workers(self) -> int:
        return len(self._actors)

    async def _run_on(self, worker: int, request_json: str) -> WorkerResult:
        result: WorkerResult = await self._actors[worker].run.remote(request_json)
        return result
