"""The in-sandbox half of the process backend: a warm PID 1 that forks one run at a time.

This file is not imported by judgegraph: its source, after `_wipe_main.py`'s, runs as `python3 -I -S -c SOURCE FD`
inside bubblewrap, under the system interpreter (any CPython 3.9+), with only the standard library. The host sends
a request and the run's stdio descriptors over the control socket FD; the zygote writes the files into a fresh
/work/run, forks the run with its rlimits, reports its exit, then kills whatever the run left behind (as PID 1 of
the namespace it survives `kill(-1)`) and wipes /work, /tmp and /dev/shm.
"""

import base64
import contextlib
import ctypes
import json
import os
import resource
import select
import signal
import socket
import struct
import sys

PR_SET_DUMPABLE = 4


def _send(sock, msg):
    data = json.dumps(msg).encode()
    sock.sendall(struct.pack(">I", len(data)) + data)


def _recv(sock):
    head, fds, _, _ = socket.recv_fds(sock, 4, 8)
    if not head:
        sys.exit(0)  # the host closed the socket: the sandbox is being destroyed
    while len(head) < 4:
        head += sock.recv(4 - len(head))
    size = struct.unpack(">I", head)[0]
    body = b""
    while len(body) < size:
        chunk = sock.recv(size - len(body))
        if not chunk:
            sys.exit(0)
        body += chunk
    return json.loads(body), fds


def _reap_all():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _others():
    return [name for name in os.listdir("/proc") if name.isdigit() and name != "1"]


def _kill_leftovers():
    """Kill every process in the namespace but this one; returns how many are still there (0 when clean).

    As PID 1, `kill(-1)` reaches every other process and spares this one, with no helper to fork (a fork can
    fail when a bomb has used up the uid's processes). A fork bomb forks while a signal goes round, so children
    born during one `kill(-1)` escape it (and would keep the run's output pipes open): stop them all, again
    until none is left running to fork, then kill them, until none is left."""
    for _ in range(100):
        if not _others():
            return 0
        for _ in range(3):
            os.kill(-1, signal.SIGSTOP)  # a stopped process cannot fork
        os.kill(-1, signal.SIGKILL)
        _reap_all()
    return len(_others())


def _child(req, fds):
    os.setsid()
    stdin = fds[2] if req.get("stdin") else os.open("/dev/null", os.O_RDONLY)
    for target, fd in ((0, stdin), (1, fds[0]), (2, fds[1])):
        os.dup2(fd, target)
    os.closerange(3, 65536)
    os.chdir("/work/run")
    limits = req["limits"]
    for name, value in (
        ("RLIMIT_CPU", limits["cpu_s"]),
        ("RLIMIT_AS", limits["memory_bytes"]),
        ("RLIMIT_FSIZE", limits["file_size_bytes"]),
        ("RLIMIT_NPROC", limits["pids"]),
        ("RLIMIT_NOFILE", 256),
        ("RLIMIT_CORE", 0),
    ):
        resource.setrlimit(getattr(resource, name), (value, value))
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    cmd = req["cmd"]
    path = _which(cmd[0], req["env"].get("PATH", ""))
    try:
        os.execve(path, cmd, req["env"])
    except OSError as e:
        os.write(2, f"cannot run {cmd[0]}: {e}\n".encode())
        os._exit(127)


_WHICH = {}


def _which(name, path):
    """The executable for `name` (os.execvpe's PATH walk costs about a millisecond a run)."""
    if "/" in name:
        return name
    key = (name, path)
    if key not in _WHICH:
        for d in path.split(":"):
            candidate = os.path.join(d, name)
            if os.access(candidate, os.X_OK) and not os.path.isdir(candidate):
                _WHICH[key] = candidate
                break
        else:
            return name  # execve fails with ENOENT and the run reports it
    return _WHICH[key]


def _run(sock, req, fds, wake_r):
    os.makedirs("/work/run", exist_ok=True)
    for name, content in req["files"].items():
        path = os.path.join("/work/run", name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(base64.b64decode(content))
    pid = os.fork()
    if pid == 0:
        _child(req, fds)
    for fd in fds:
        os.close(fd)
    fds.clear()  # closed: the error path must not close these numbers again
    status = None
    while status is None:
        ready, _, _ = select.select([sock, wake_r], [], [])
        if wake_r in ready:
            os.read(wake_r, 512)
        if sock in ready:  # the only message during a run is "kill" (or the host going away)
            msg, _ = _recv(sock)
            if msg.get("kill") == req["id"]:
                os.kill(pid, signal.SIGKILL)
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
    # Report first, clean up after: the host has its answer sooner, and the next request (queued on the
    # socket) is read only once the namespace is clean again.
    left = _kill_leftovers()  # before the report, so no leftover keeps the run's output pipes open
    _send(sock, {"id": req["id"], "exit": os.waitstatus_to_exitcode(status), "leftovers": left})
    wipe()


def main():
    sock = socket.socket(fileno=int(sys.argv[1]))
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # runs (same uid) may not ptrace the zygote
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    _send(sock, {"ready": True})
    while True:
        req, fds = _recv(sock)
        if "kill" in req:  # for a run that ended while the host was sending it: nothing to do
            continue
        try:
            _run(sock, req, fds, wake_r)
        except Exception as e:  # report; the host retires a sandbox whose namespace is not clean again
            for fd in fds:  # still ours if the run never forked
                with contextlib.suppress(OSError):
                    os.close(fd)
            left = _kill_leftovers()
            wipe()
            _send(sock, {"id": req.get("id"), "error": f"{type(e).__name__}: {e}", "leftovers": left})


main()
