"""Shared services tools may need (sandbox pool, retrieval, artifact store), opened on first use."""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from judgegraph.sandboxes import BackendChoice, Limits, SandboxPool
from judgegraph.settings import MCPSource
from judgegraph.tools.claims.retrieval import Embedder, Retriever

if TYPE_CHECKING:
    from judgegraph.tools._mcp import MCPConnection


class ArtifactSink(Protocol):
    """Content-addressed storage for images and large outputs (the trajectory store is one)."""

    def put_artifact(self, data: bytes, media_type: str) -> str: ...

    def get_artifact(self, digest: str) -> tuple[bytes, str] | None: ...


class MemoryArtifacts:
    """An in-memory `ArtifactSink`, for judges that record nothing to disk."""

    def __init__(self) -> None:
        self._items: dict[str, tuple[bytes, str]] = {}

    def put_artifact(self, data: bytes, media_type: str) -> str:
        digest = hashlib.sha256(data).hexdigest()
        self._items.setdefault(digest, (data, media_type))
        return digest

    def get_artifact(self, digest: str) -> tuple[bytes, str] | None:
        return self._items.get(digest)


T = TypeVar("T")
SHARED_KEPT = 256
"""Evidence computed once and shared (`ToolServices.once`): the most recent entries kept."""


class ToolServices:
    """Owns the expensive things tools share: opened lazily, so a judge that runs no code starts no sandbox
    and one that reads no documents loads no embedding model."""

    def __init__(
        self,
        *,
        sandbox: BackendChoice = "auto",
        sandbox_pool_size: int = 2,
        limits: Limits | None = None,
        artifacts: ArtifactSink | None = None,
        embedder: Embedder | None = None,
        embedding_cache: Path | None = None,
        derived_samples: int = 5,
        derived_repairs: int = 1,
    ) -> None:
        self.sandbox_backend = sandbox
        self.sandbox_pool_size = sandbox_pool_size
        self.limits = limits or Limits()
        self.artifacts: ArtifactSink = artifacts if artifacts is not None else MemoryArtifacts()
        self._embedder = embedder
        self._embedding_cache = embedding_cache
        self.derived_samples = derived_samples
        """Programs the model writes per derived answer or output (self-consistency's k; `Settings`)."""
        self.derived_repairs = derived_repairs
        """Times a derived reference's failing program goes back to the model with its error (`Settings`)."""
        self._retriever: Retriever | None = None
        self._pool: SandboxPool | None = None
        self._lock = asyncio.Lock()
        self._shared: OrderedDict[str, asyncio.Future[Any]] = OrderedDict()
        self._mcp: dict[str, MCPConnection] = {}

    async def sandbox(self) -> SandboxPool:
        """The sandbox pool (started on first call)."""
        async with self._lock:
            if self._pool is None:
                self._pool = await SandboxPool.open(
                    self.sandbox_backend, limits=self.limits, size=self.sandbox_pool_size
                )
            return self._pool

    async def once(self, key: str, make: Callable[[], Awaitable[T]]) -> T:
        """`make()`'s result, computed once for `key` and shared by every caller (the evidence cache: a
        reference derived for a prompt serves both candidate orders, every candidate, and every later request
        with the same prompt, as the k rollouts of one RL prompt are). A failure is not kept."""
        found = self._shared.get(key)
        if found is None:
            found = asyncio.ensure_future(make())
            self._shared[key] = found
            while len(self._shared) > SHARED_KEPT:
                self._shared.popitem(last=False)
        else:
            self._shared.move_to_end(key)
        try:
            return await asyncio.shield(found)  # one caller cancelled does not cancel the others' result
        except BaseException:
            if found.done() and (found.cancelled() or found.exception() is not None):
                self._shared.pop(key, None)
            raise

    def mcp(self, source: MCPSource) -> MCPConnection:
        """The connection to an MCP server whose tools the judge uses (made on first use, closed with these
        services)."""
        from judgegraph.tools._mcp import MCPConnection

        if source.name not in self._mcp or self._mcp[source.name].source != source:
            self._mcp[source.name] = MCPConnection(source)
        return self._mcp[source.name]

    def retriever(self) -> Retriever:
        """The retriever (its embedding model loads on first use)."""
        if self._retriever is None:
            self._retriever = Retriever(self._embedder, self._embedding_cache)
        return self._retriever

    async def aclose(self) -> None:
        connections, self._mcp = list(self._mcp.values()), {}
        for connection in connections:
            await connection.aclose()
        async with self._lock:
            if self._pool is not None:
                await self._pool.close()
                self._pool = None
