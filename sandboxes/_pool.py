"""`SandboxPool`: hands sandboxes to concurrent callers, keeps them warm, recycles them after use or faults."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Coroutine, Mapping, Sequence

from pydantic import BaseModel

from judgegraph.errors import SandboxError, SandboxUnavailableError, UsageError
from judgegraph.sandboxes import _docker, _process  # noqa: F401  (register the backends)
from judgegraph.sandboxes._protocol import Sandbox, SandboxBackend, auto_order, sandbox_backends
from judgegraph.sandboxes._scratch import check_path
from judgegraph.sandboxes._types import ExecResult, Limits

log = logging.getLogger(__name__)

BackendChoice = str
"""`auto` (the first registered backend that can run here, in `auto_order()`) or a registered backend's name."""


async def _start(name: str, limits: Limits, image: str | None, size: int) -> SandboxBackend:
    backend = sandbox_backends.get(name)(limits, image=image, pool_size=size)
    try:
        await backend.start()
    except BaseException:
        await backend.close()
        raise
    return backend


class SandboxPool:
    """Up to `size` sandboxes of one backend, each serving one run at a time."""

    def __init__(self, backend: SandboxBackend, *, size: int = 4, max_uses: int = 200, reason: str = "") -> None:
        self.backend = backend
        self.size = size
        self.max_uses = max_uses
        self.reason = reason
        """Why this backend was chosen (shown by `judgegraph sandbox doctor`)."""
        self._idle: list[Sandbox] = []
        self._free_slots = list(range(size))
        self._sem = asyncio.Semaphore(size)
        self._changed = asyncio.Condition()
        self._background: set[asyncio.Task[object]] = set()
        self._closed = False

    @classmethod
    async def open(
        cls,
        backend: BackendChoice = "auto",
        *,
        limits: Limits | None = None,
        size: int = 4,
        max_uses: int = 200,
        warm: bool = True,
        image: str | None = None,
    ) -> SandboxPool:
        """Start a pool. `auto` takes the first registered backend that starts here (Docker when an engine
        answers and the image exists, else bubblewrap), and warns about each one it passed over.

        Raises:
            SandboxUnavailableError: the chosen backend (or, for `auto`, every one) cannot run here.
            UnknownComponentError: no backend of that name is registered.
        """
        limits = limits or Limits()
        if backend != "auto":
            chosen = await _start(backend, limits, image, size)
            reason = f"{backend} was asked for"
        else:
            passed: list[str] = []
            for name in auto_order():
                try:
                    chosen = await _start(name, limits, image, size)
                except (SandboxUnavailableError, ImportError) as e:
                    log.warning("%s sandbox unavailable (%s); falling back to the next backend", name, e)
                    passed.append(f"{name} is unavailable: {e}")
                    continue
                reason = "; ".join(passed) or f"{name} runs here ({chosen.describe()})"
                break
            else:
                raise SandboxUnavailableError("no sandbox backend can run here: " + "; ".join(passed))
        pool = cls(chosen, size=size, max_uses=max_uses, reason=reason)
        if warm:
            await pool.warm_up()
        return pool

    @property
    def backend_name(self) -> str:
        return str(self.backend.name)

    async def _create(self, slot: int) -> Sandbox | None:
        """A sandbox for `slot`, or None (slot freed again) when the backend fails to make one."""
        making = asyncio.ensure_future(self.backend.create(slot))
        try:
            sb = await asyncio.shield(making)  # a cancelled caller must not orphan a sandbox being made
        except asyncio.CancelledError:
            self._in_background(self._discard(making, slot))
            raise
        except Exception as e:
            log.warning("could not create sandbox for slot %d: %s", slot, e)
            await self._free(slot)
            return None
        sb.slot = slot  # type: ignore[attr-defined]
        return sb

    async def _discard(self, making: asyncio.Future[Sandbox], slot: int) -> None:
        """Destroy a sandbox whose maker stopped waiting for it, and free its slot."""
        try:
            sb = await making
        except Exception:
            sb = None
        if sb is not None:
            await sb.destroy()
        await self._free(slot)

    async def _free(self, slot: int) -> None:
        async with self._changed:
            self._free_slots.append(slot)
            self._changed.notify_all()

    def _in_background(self, work: Coroutine[object, object, None]) -> None:
        """Run `work` off the caller's path; `close` waits for it."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def warm_up(self) -> None:
        """Create a sandbox for every free slot now, so the first runs do not pay for it."""
        async with self._changed:
            slots, self._free_slots = self._free_slots, []
        made = await asyncio.gather(*(self._create(s) for s in slots))
        async with self._changed:
            self._idle.extend(sb for sb in made if sb is not None)
            self._changed.notify_all()

    async def _take(self) -> Sandbox:
        """An idle sandbox, a new one in a free slot, or (while a replacement is being made) the next to appear."""
        async with self._changed:
            while not self._idle and not self._free_slots:
                await self._changed.wait()
            if self._idle:
                return self._idle.pop()
            slot = self._free_slots.pop()
        sb = await self._create(slot)
        if sb is None:
            raise SandboxUnavailableError(f"the {self.backend_name} backend could not create a sandbox")
        return sb

    async def _give_back(self, sb: Sandbox) -> None:
        if sb.healthy and sb.uses < self.max_uses and not self._closed:
            async with self._changed:
                self._idle.append(sb)
                self._changed.notify_all()
            return
        await sb.destroy()
        slot: int = sb.slot  # type: ignore[attr-defined]
        if self._closed:
            return
        # Keep the pool warm: replace it off the caller's path (the slot stays reserved meanwhile).
        self._in_background(self._replace(slot))

    async def _replace(self, slot: int) -> None:
        sb = await self._create(slot)
        if sb is None:
            return
        if self._closed:  # the pool closed while this one was being made
            await sb.destroy()
            return
        async with self._changed:
            self._idle.append(sb)
            self._changed.notify_all()

    @contextlib.asynccontextmanager
    async def acquire(self) -> AsyncIterator[Sandbox]:
        """A sandbox for the caller alone until the block ends."""
        if self._closed:
            raise UsageError("the sandbox pool is closed")
        async with self._sem:
            sb = await self._take()
            try:
                yield sb
            except (SandboxError, asyncio.CancelledError):
                sb.healthy = False  # it may be mid-run or broken: never reuse it
                raise
            finally:
                await asyncio.shield(self._give_back(sb))

    async def run(
        self,
        command: Sequence[str],
        *,
        files: Mapping[str, str | bytes] | None = None,
        limits: Limits | None = None,
        stdin: bytes | None = None,
    ) -> ExecResult:
        """Run one command in a pooled sandbox."""
        for name in files or {}:
            check_path(name)  # refuse bad names before a sandbox is touched
        async with self.acquire() as sb:
            return await sb.run(command, files=files, limits=limits, stdin=stdin)

    async def close(self) -> None:
        """Destroy every sandbox; nothing is left running."""
        self._closed = True
        # Let replacements being made finish (each destroys its sandbox, seeing the pool closed): cancelling
        # one would leave a container its backend was already starting.
        while self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)
        async with self._changed:
            idle, self._idle = self._idle, []
        await asyncio.gather(*(sb.destroy() for sb in idle), return_exceptions=True)
        await self.backend.close()

    async def __aenter__(self) -> SandboxPool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class BackendStatus(BaseModel):
    name: str
    available: bool
    detail: str


class DoctorReport(BaseModel):
    """Which backend `auto` picks here, and why."""

    active: str | None
    reason: str
    backends: list[BackendStatus]


async def doctor(limits: Limits | None = None) -> DoctorReport:
    """Check every registered backend and say which one `auto` would use."""
    statuses = []
    for name in auto_order():
        try:
            backend = await _start(name, limits or Limits(), None, 1)
        except (SandboxUnavailableError, ImportError) as e:
            statuses.append(BackendStatus(name=name, available=False, detail=str(e)))
            continue
        statuses.append(BackendStatus(name=name, available=True, detail=backend.describe()))
        await backend.close()
    active = next((s for s in statuses if s.available), None)
    if active is None:
        return DoctorReport(active=None, reason="no sandbox backend can run here", backends=statuses)
    passed = [f"{s.name} is unavailable: {s.detail}" for s in statuses[: statuses.index(active)]]
    return DoctorReport(active=active.name, reason="; ".join(passed) or f"{active.name} runs here", backends=statuses)
