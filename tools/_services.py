"""Run-scoped services tools may need (a sandbox pool), opened on first use and closed with the judge."""

from __future__ import annotations

import asyncio

from judgegraph.sandboxes import BackendChoice, Limits, SandboxPool


class ToolServices:
    """Owns the expensive things tools share: opened lazily, so a judge that runs no code starts no sandbox."""

    def __init__(
        self, *, sandbox: BackendChoice = "auto", sandbox_pool_size: int = 2, limits: Limits | None = None
    ) -> None:
        self.sandbox_backend = sandbox
        self.sandbox_pool_size = sandbox_pool_size
        self.limits = limits or Limits()
        self._pool: SandboxPool | None = None
        self._lock = asyncio.Lock()

    async def sandbox(self) -> SandboxPool:
        """The sandbox pool (started on first call)."""
        async with self._lock:
            if self._pool is None:
                self._pool = await SandboxPool.open(
                    self.sandbox_backend, limits=self.limits, size=self.sandbox_pool_size
                )
            return self._pool

    async def aclose(self) -> None:
        async with self._lock:
            if self._pool is not None:
                await self._pool.close()
                self._pool = None
