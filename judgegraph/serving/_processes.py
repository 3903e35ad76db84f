"""A batch over several processes of one machine (`judgegraph judge --workers N`): for batches where one
process is CPU-bound (rule-decided rewards, many judgments in flight). Ray stays the multi-machine path.

Each worker process holds one `Judge` (no store) and judges the requests it is sent concurrently on its own
event loop; it sends each finished run back (trajectory and the images it refers to) and the driver records it
in its one store, as with Ray. A worker reads its requests from a pipe whose other end only the driver holds,
so it ends when the driver does, `kill -9` included."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import multiprocessing
import threading
from multiprocessing.connection import Connection
from typing import Any

from judgegraph.agents import JudgeSpec
from judgegraph.errors import JudgegraphError, UsageError
from judgegraph.serving._ray import JudgeWorker, SpreadJudge, WorkerResult
from judgegraph.settings import Settings
from judgegraph.store import TrajectoryStore


def _worker_main(conn: Connection, judge: str | JudgeSpec, settings_json: str) -> None:
    """A worker process: judge what the driver sends until it says stop or is gone."""
    from judgegraph._gc import tune_gc

    tune_gc()
    asyncio.run(_serve(conn, judge, settings_json))


async def _serve(conn: Connection, judge: str | JudgeSpec, settings_json: str) -> None:
    try:
        worker = JudgeWorker(judge, settings_json)
        await worker.judge.open()
    except Exception as e:  # e.g. an unknown judge or an unreachable model: the driver reports it
        conn.send(("failed", f"{type(e).__name__}: {e}"))
        return
    conn.send(("ready", None))
    loop = asyncio.get_running_loop()
    sending = threading.Lock()
    running: set[asyncio.Task[None]] = set()

    async def judge_one(key: int, request_json: str) -> None:
        result = await worker.run(request_json)
        with sending:
            conn.send((key, result.model_dump_json()))

    while True:
        try:
            message = await loop.run_in_executor(None, conn.recv)
        except (EOFError, OSError):  # the driver is gone: nobody wants the results
            break
        if message is None:
            break
        task = asyncio.ensure_future(judge_one(*message))
        running.add(task)
        task.add_done_callback(running.discard)
    if running:
        await asyncio.gather(*running, return_exceptions=True)
    await worker.close()


class ProcessJudge(SpreadJudge):
    """A judge spread over worker processes on this machine, used like a `Judge`:
    `async with ProcessJudge("evidence", settings, workers=2) as j: await j.arun(r)`.

    Args:
        judge: the registered judge's name, or a judge spec, that each worker loads.
        settings: passed to every worker (unset `model_url`: each starts its own embedded model when it needs
            one).
        workers: how many processes.
        store: where the driver records results (default: `settings.store_path`); False records nothing.
        start_timeout_s: how long the workers may take to start.
    """

    def __init__(
        self,
        judge: str | JudgeSpec,
        settings: Settings,
        *,
        workers: int = 2,
        store: TrajectoryStore | bool | None = None,
        start_timeout_s: float = 120.0,
    ) -> None:
        if workers < 1:
            raise UsageError("workers must be at least 1")
        self.judge = judge
        self.settings = settings
        self.workers = workers
        self.store = TrajectoryStore(settings.store_path) if store is None or store is True else store or None
        self.start_timeout_s = start_timeout_s
        self._processes: list[Any] = []
        self._conns: list[Connection] = []
        self._locks: list[threading.Lock] = []
        self._in_flight: list[int] = []
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self._keys = itertools.count()

    @property
    def pids(self) -> list[int]:
        """The worker processes' ids."""
        return [int(p.pid) for p in self._processes if p.pid is not None]

    async def __aenter__(self) -> ProcessJudge:
        ctx = multiprocessing.get_context("spawn")  # no fork of a process with threads and an event loop
        loop = asyncio.get_running_loop()
        settings_json = self.settings.model_dump_json()
        ready: list[asyncio.Future[str | None]] = []
        for _ in range(self.workers):
            ours, theirs = ctx.Pipe()
            process = ctx.Process(target=_worker_main, args=(theirs, self.judge, settings_json), daemon=True)
            process.start()
            theirs.close()  # only the worker holds its end now: the worker sees EOF when the driver ends
            started: asyncio.Future[str | None] = loop.create_future()
            ready.append(started)
            threading.Thread(target=self._read, args=(ours, started, loop), daemon=True).start()
            self._processes.append(process)
            self._conns.append(ours)
            self._locks.append(threading.Lock())
        self._in_flight = [0] * self.workers
        try:
            answers = await asyncio.wait_for(asyncio.gather(*ready), timeout=self.start_timeout_s)
        except BaseException:
            await self._shutdown()
            raise
        failures = [a for a in answers if a is not None]
        if failures:
            await self._shutdown()
            raise JudgegraphError(f"a judge worker could not start: {failures[0]}")
        return self

    def _read(self, conn: Connection, started: asyncio.Future[str | None], loop: asyncio.AbstractEventLoop) -> None:
        """A worker's replies, handed to the event loop (one thread per worker: `recv` blocks)."""
        while True:
            try:
                key, payload = conn.recv()
            except (EOFError, OSError):
                error = JudgegraphError("a judge worker process ended")
                for waiting in list(self._waiting.values()):
                    loop.call_soon_threadsafe(_fail, waiting, error)
                if not started.done():
                    loop.call_soon_threadsafe(_settle, started, "it ended while starting")
                return
            if key == "ready":
                loop.call_soon_threadsafe(_settle, started, None)
            elif key == "failed":
                loop.call_soon_threadsafe(_settle, started, payload)
            elif isinstance(key, int) and (future := self._waiting.get(key)) is not None:
                loop.call_soon_threadsafe(_settle, future, payload)

    async def __aexit__(self, *exc: object) -> None:
        await self._shutdown()

    async def _shutdown(self) -> None:
        for conn, lock in zip(self._conns, self._locks, strict=True):
            with lock, contextlib.suppress(OSError):
                conn.send(None)
        for process in self._processes:
            await asyncio.to_thread(process.join, 30)
            if process.is_alive():
                process.kill()
                await asyncio.to_thread(process.join, 5)
        for conn in self._conns:
            conn.close()
        self._processes, self._conns, self._locks = [], [], []
        if self.store is not None:
            self.store.close()

    @property
    def _open_workers(self) -> int:
        return len(self._conns)

    async def _run_on(self, worker: int, request_json: str) -> WorkerResult:
        key = next(self._keys)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[key] = future
        try:
            with self._locks[worker]:
                self._conns[worker].send((key, request_json))
            payload = str(await future)
        finally:
            self._waiting.pop(key, None)
        return WorkerResult.model_validate_json(payload)


def _settle(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)
