"""The `Sandbox` protocol and the registry of backends that implement it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from judgegraph.registry import Registry
from judgegraph.sandboxes._types import ExecResult, Limits


class Sandbox(Protocol):
    """One isolated place to run untrusted programs, one run at a time, each in a fresh scratch directory."""

    backend: str
    uses: int
    """Runs so far (the pool recycles a sandbox after a set number)."""
    healthy: bool
    """False after any fault; the pool then destroys it instead of reusing it."""

    async def run(
        self,
        command: Sequence[str],
        *,
        files: Mapping[str, str | bytes] | None = None,
        limits: Limits | None = None,
        stdin: bytes | None = None,
    ) -> ExecResult:
        """Write `files` into a fresh scratch directory, run `command` there under `limits`, wipe it.

        Raises:
            SandboxError: the sandbox itself failed (the program's failures are in the result).
        """
        ...

    async def destroy(self) -> None:
        """Release everything the sandbox holds (idempotent)."""
        ...


class SandboxBackend(Protocol):
    """Makes sandboxes of one kind."""

    name: str
    auto_rank: int
    """`auto` tries the registered backends in this order, lowest first, and takes the first that starts."""

    def __init__(
        self, limits: Limits | None = None, *, image: str | None = None, pool_size: int = 4, **options: object
    ) -> None:
        """Configure (nothing starts yet); options a backend does not use are ignored."""

    async def start(self) -> None:
        """Check the backend can run here (engine answers, image present, binaries found); reap leftovers.

        Raises:
            SandboxUnavailableError: it cannot, and the message says why.
        """
        ...

    async def create(self, slot: int) -> Sandbox:
        """A new sandbox for pool slot `slot`."""
        ...

    async def close(self) -> None:
        """Release what the backend holds (idempotent)."""
        ...

    def describe(self) -> str:
        """One line for `judgegraph sandbox doctor`."""
        ...


sandbox_backends: Registry[type[SandboxBackend]] = Registry("sandbox backend", plugins="judgegraph.sandboxes")
"""Backend name -> class; each is built as `cls(limits, image=..., pool_size=...)`."""


def auto_order() -> list[str]:
    """Registered backends in the order `auto` tries them."""
    return sorted(sandbox_backends, key=lambda name: (sandbox_backends.get(name).auto_rank, name))
