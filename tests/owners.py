"""For the tests that kill a process with SIGKILL and check that nothing it started outlives it."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def owner_process(script: str) -> Iterator[str]:
    """A fresh interpreter running `script` (the owner): yields the first line it prints (what it started) and
    kills it with SIGKILL, which leaves it no clean-up of its own, when the block ends."""
    with subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True) as owner:
        try:
            assert owner.stdout is not None
            yield owner.stdout.readline()
        finally:
            owner.kill()


def wait_until(done: Callable[[], bool], seconds: float, interval_s: float = 0.2) -> bool:
    """Whether `done()` became true within `seconds`, asking every `interval_s`."""
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval_s)
    return True
