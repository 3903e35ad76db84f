"""Run a Python module as a child that ends with its owner: `python -m judgegraph.backends._tethered MODULE
ARGS...` runs MODULE as `__main__` and exits as soon as its stdin reaches end of file.

The owner keeps the write end of that pipe and never writes to it; the kernel closes it when the owner ends in
any way, `kill -9` included, so the child cannot outlive it (a process group or an atexit hook does not survive
SIGKILL; PR_SET_PDEATHSIG fires when the spawning *thread* ends, which an event loop's worker thread may do)."""

from __future__ import annotations

import os
import runpy
import sys
import threading


def _exit_at_eof() -> None:
    while sys.stdin.buffer.read(4096):
        pass
    os._exit(0)


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit("usage: python -m judgegraph.backends._tethered MODULE [ARGS...]")
    module = sys.argv[1]
    threading.Thread(target=_exit_at_eof, name="tether", daemon=True).start()
    sys.argv = [module, *sys.argv[2:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
