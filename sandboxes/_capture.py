"""Reading a program's output under a byte cap: keep the head, drain the rest so the program never blocks."""

from __future__ import annotations

import asyncio


class CappedBuffer:
    """Keeps the first `cap` bytes written to it and counts the rest."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._parts: list[bytes] = []
        self.kept = 0
        self.total = 0

    def write(self, data: bytes) -> None:
        self.total += len(data)
        room = self.cap - self.kept
        if room > 0:
            piece = data[:room]
            self._parts.append(piece)
            self.kept += len(piece)

    @property
    def truncated(self) -> bool:
        return self.total > self.kept

    def value(self) -> bytes:
        return b"".join(self._parts)


async def drain(stream: asyncio.StreamReader | None, buf: CappedBuffer) -> None:
    if stream is None:
        return
    while chunk := await stream.read(65536):
        buf.write(chunk)
