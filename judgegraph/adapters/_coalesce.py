"""Calls that each ask for one rollout's reward, judged a group at a time.

A trainer whose reward function is called once per rollout (verl's reward loop) still sends a prompt's rollouts
close together and concurrently. A `Coalescer` holds the calls that share a group key for a short window (or
until the group is complete) and judges them as one group; each caller gets its own member's result."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

M = TypeVar("M")
R = TypeVar("R")


@dataclass
class _Open(Generic[M, R]):
    results: asyncio.Future[list[R]]
    members: list[M] = field(default_factory=list)
    timer: asyncio.TimerHandle | None = None


class Coalescer(Generic[M, R]):
    """Groups concurrent members by key on one event loop; `judge` takes a group's members and gives one result
    each, in order (an exception it raises reaches every member's caller)."""

    def __init__(self, judge: Callable[[list[M]], Awaitable[list[R]]]) -> None:
        self._judge = judge
        self._open: dict[Hashable, _Open[M, R]] = {}
        self._running: set[asyncio.Task[None]] = set()

    async def submit(self, key: Hashable, member: M, *, window_s: float, size: int | None = None) -> R:
        """This member's result, once its group is judged: the group closes `window_s` after its first member
        arrived, or as soon as it has `size` members (0 or less: at once, a group of one)."""
        loop = asyncio.get_running_loop()
        group = self._open.get(key)
        if group is None:
            group = _Open(results=loop.create_future())
            self._open[key] = group
            if window_s > 0:
                group.timer = loop.call_later(window_s, self._close, key, group)
        index = len(group.members)
        group.members.append(member)
        if window_s <= 0 or (size is not None and len(group.members) >= size):
            self._close(key, group)
        # shielded: a caller cancelled while waiting must not cancel its siblings' results
        results = await asyncio.shield(group.results)
        return results[index]

    def pending(self) -> int:
        """Members waiting for their group to close."""
        return sum(len(g.members) for g in self._open.values())

    def _close(self, key: Hashable, group: _Open[M, R]) -> None:
        if self._open.get(key) is not group:
            return  # closed already (complete before its window ran out)
        del self._open[key]
        if group.timer is not None:
            group.timer.cancel()
        task = asyncio.get_running_loop().create_task(self._run(group))
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _run(self, group: _Open[M, R]) -> None:
        try:
            results = await self._judge(group.members)
            if len(results) != len(group.members):
                raise RuntimeError(f"a group of {len(group.members)} was judged with {len(results)} results")
        except BaseException as e:  # every member's caller learns why (never a made-up result)
            if not group.results.done():
                group.results.set_exception(e)
            if not isinstance(e, Exception):
                raise
            return
        if not group.results.done():
            group.results.set_result(results)
