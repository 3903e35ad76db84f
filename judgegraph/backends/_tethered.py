"""Run a Python module as a child that ends with its owner: `python .../_tethered.py MODULE ARGS...` runs MODULE
as `__main__` and, as soon as its stdin reaches end of file, kills its own process group (the module's worker
processes too: vLLM's engine runs in one).

The owner keeps the write end of that pipe and never writes to it; the kernel closes it when the owner ends in
any way, `kill -9` included, so the child cannot outlive it (a process group or an atexit hook does not survive
SIGKILL; PR_SET_PDEATHSIG fires when the spawning *thread* ends, which an event loop's worker thread may do).
Only the standard library: it runs in interpreters that do not have judgegraph (vLLM's own environment)."""

from __future__ import annotations

import os
import runpy
import signal
import sys
import threading


def _end_at_eof() -> None:
    while sys.stdin.buffer.read(4096):
        pass
    if os.getpgid(0) == os.getpid():  # the owner started it as a group leader: end the group
        os.killpg(0, signal.SIGKILL)
    os._exit(0)


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit("usage: python _tethered.py MODULE [ARGS...]")
    if not __package__:
        sys.path.pop(0)  # run as a file: its folder must not shadow the module's imports
    module = sys.argv[1]
    threading.Thread(target=_end_at_eof, name="tether", daemon=True).start()
    sys.argv = [module, *sys.argv[2:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
