"""The process backend, for machines without Docker: bubblewrap namespaces plus rlimits, as an unprivileged uid.

Each pool slot is one warm bubblewrap sandbox: new user, network, pid, mount, IPC and UTS namespaces; the
host's /usr read-only and nothing else of the host's files beyond what the loader needs; a read-only root
with size-capped tmpfs /work and /tmp. Its PID 1 is a small zygote (`_zygote_main.py`) that forks one run
at a time with its rlimits (CPU time, address space, file size, processes), in a fresh /work/run, then kills
what the run left running and wipes the scratch space. Runs reach it over a socket that also carries the
run's stdin/stdout/stderr pipes, so the host reads output directly and enforces the wall clock.
Run as root, each slot drops to its own uid (slot 0 is 65534, `nobody`; slot k is 65534 - k), because
RLIMIT_NPROC is not enforced for root and counts every process of a uid.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import os
import shutil
import signal
import socket
import struct
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from judgegraph.errors import SandboxError, SandboxUnavailableError
from judgegraph.sandboxes._capture import CappedBuffer
from judgegraph.sandboxes._protocol import sandbox_backends
from judgegraph.sandboxes._scratch import as_bytes, check_path
from judgegraph.sandboxes._types import ExecResult, Limits, decode

log = logging.getLogger(__name__)

NOBODY = 65534
ZYGOTE_SOURCE = "".join((Path(__file__).parent / name).read_text() for name in ("_wipe_main.py", "_zygote_main.py"))
RUN_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/work/run",
    "LANG": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
}
_SIGKILL, _SIGXCPU = int(signal.SIGKILL), int(signal.SIGXCPU)
_OOM_MARKERS = ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory")


def _system_binds() -> list[str]:
    """Read-only binds of the host's system directories (merged-/usr symlinks kept as symlinks)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    # Java's runtime reads its configuration (java.security) under /etc/java-NN-openjdk.
    java_conf = sorted(str(p) for p in Path("/etc").glob("java-*-openjdk"))
    for path in ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime", "/etc/ssl/certs", *java_conf):
        args += ["--ro-bind-try", path, path]
    return args


def _python() -> str:
    """The system interpreter the zygote and the runs use (not a virtualenv's, which lives outside /usr)."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.exists(candidate):
            return candidate
    raise SandboxUnavailableError("the process sandbox needs a system python3 under /usr (apt-get install python3)")


def _collect(fd: int, buf: CappedBuffer) -> asyncio.Future[None]:
    """Read `fd` to EOF into `buf` from the event loop (no thread, no stream objects: this is the hot path)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()
    os.set_blocking(fd, False)

    def readable() -> None:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            buf.write(data)
            return
        loop.remove_reader(fd)
        os.close(fd)
        if not done.done():
            done.set_result(None)

    loop.add_reader(fd, readable)
    return done


def _feed(fd: int, data: bytes) -> None:
    with os.fdopen(fd, "wb", 0) as f, contextlib.suppress(BrokenPipeError):
        f.write(data)


class ProcessSandbox:
    """One warm bubblewrap sandbox whose zygote serves runs one at a time."""

    backend = "process"
    OUTPUT_GRACE_S = 5.0
    """How long a finished run's output may stay open (a leftover process holding it) before it is cut."""

    def __init__(self, backend: ProcessBackend, uid: int | None) -> None:
        self._backend = backend
        self.uid = uid
        self.uses = 0
        self.healthy = True
        self._proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._runs = 0

    # ------------------------------------------------------------ lifecycle

    def _argv(self, limits: Limits, control_fd: int) -> list[str]:
        mb = 1024 * 1024
        return [
            self._backend.bwrap,
            "--unshare-all",
            "--die-with-parent",
            "--new-session",
            "--as-pid-1",  # the zygote is PID 1: it reaps orphans and survives the runs' kill(-1)
            "--cap-drop",
            "ALL",
            "--hostname",
            "sandbox",
            *self._backend.binds,
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--size",
            str(16 * mb),
            "--tmpfs",
            "/tmp",
            "--size",
            str(limits.scratch_mb * mb),
            "--tmpfs",
            "/work",
            "--remount-ro",
            "/",
            "--chdir",
            "/work",
            "--clearenv",
            "--setenv",
            "PATH",
            RUN_ENV["PATH"],
            "--",
            self._backend.python,
            "-I",
            "-S",
            "-c",
            ZYGOTE_SOURCE,
            str(control_fd),
        ]

    async def start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        ids: dict[str, Any] = {"user": self.uid, "group": self.uid, "extra_groups": []} if self.uid is not None else {}
        try:
            # A plain Popen, not asyncio's: the sandbox outlives any one event loop (see EmbeddedServer).
            self._proc = subprocess.Popen(  # noqa: ASYNC220 - spawning is quick; waiting happens on the socket
                self._argv(self._backend.limits, theirs.fileno()),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
                **ids,
            )
        finally:
            theirs.close()
        self._sock = ours
        ours.setblocking(False)
        try:
            hello = await asyncio.wait_for(self._recv(), timeout=10)
        except (TimeoutError, SandboxError) as e:
            stderr = self._stderr_tail()
            await self.destroy()
            raise SandboxUnavailableError(f"the bubblewrap sandbox did not start: {stderr or e}") from None
        if not hello.get("ready"):
            await self.destroy()
            raise SandboxUnavailableError(f"the bubblewrap sandbox said {hello}")

    def _stderr_tail(self) -> str:
        proc = self._proc
        if proc is None or proc.stderr is None or proc.poll() is None:
            return ""
        return decode(proc.stderr.read()[-2000:]).strip()

    async def destroy(self) -> None:
        self.healthy = False
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()  # the zygote exits when its socket closes
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            await asyncio.to_thread(proc.wait)
        if proc is not None and proc.stderr is not None:
            proc.stderr.close()

    # ------------------------------------------------------------ protocol

    async def _send(self, msg: dict[str, Any], fds: Sequence[int] = ()) -> None:
        assert self._sock is not None
        data = json.dumps(msg).encode()
        frame = struct.pack(">I", len(data)) + data
        loop = asyncio.get_running_loop()
        sent = 0
        if fds:  # descriptors ride on the first bytes; the zygote is idle, so its socket buffer has room
            while sent == 0:
                try:
                    sent = socket.send_fds(self._sock, [frame], list(fds))
                except BlockingIOError:
                    await asyncio.sleep(0.001)
        if sent < len(frame):
            await loop.sock_sendall(self._sock, frame[sent:])

    async def _recv_exactly(self, n: int) -> bytes:
        assert self._sock is not None
        loop = asyncio.get_running_loop()
        buf = b""
        while len(buf) < n:
            chunk = await loop.sock_recv(self._sock, n - len(buf))
            if not chunk:
                raise SandboxError(f"the sandbox's zygote went away: {self._stderr_tail()}")
            buf += chunk
        return buf

    async def _recv(self) -> dict[str, Any]:
        size = struct.unpack(">I", await self._recv_exactly(4))[0]
        return dict(json.loads(await self._recv_exactly(size)))

    # ------------------------------------------------------------ runs

    async def run(
        self,
        command: Sequence[str],
        *,
        files: Mapping[str, str | bytes] | None = None,
        limits: Limits | None = None,
        stdin: bytes | None = None,
    ) -> ExecResult:
        if self._sock is None or not self.healthy:
            raise SandboxError("this sandbox is closed")
        limits = limits or self._backend.limits
        mb = 1024 * 1024
        request = {
            "cmd": list(command),
            "env": RUN_ENV,
            "files": {check_path(k): base64.b64encode(as_bytes(v)).decode() for k, v in (files or {}).items()},
            "limits": {
                "cpu_s": limits.cpu_s,
                "memory_bytes": (limits.address_space_mb or limits.memory_mb) * mb,
                "file_size_bytes": limits.file_size_mb * mb,
                "pids": limits.pids + 1,  # the zygote is one process of this uid too
            },
        }
        self.uses += 1
        try:
            return await self._run(request, limits, stdin)
        except BaseException:
            self.healthy = False
            raise

    async def _run(self, request: dict[str, Any], limits: Limits, stdin: bytes | None) -> ExecResult:
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        in_r, in_w = os.pipe() if stdin is not None else (None, None)
        passed = [out_w, err_w] + ([in_r] if in_r is not None else [])
        request["stdin"] = in_r is not None  # without one, the zygote gives the run /dev/null
        self._runs += 1
        request["id"] = self._runs  # a kill names its run: one that arrives after its run ended is ignored
        start = time.perf_counter()
        try:
            await self._send(request, passed)
        finally:
            for fd in passed:
                os.close(fd)
        out, err = CappedBuffer(limits.output_bytes), CappedBuffer(limits.output_bytes)
        waits = [_collect(out_r, out), _collect(err_r, err)]
        if in_w is not None:
            waits.append(asyncio.ensure_future(asyncio.to_thread(_feed, in_w, stdin or b"")))
        io_task = asyncio.gather(*waits)
        killed = False
        try:
            reply = await asyncio.wait_for(self._recv(), timeout=limits.wall_s)
        except TimeoutError:
            killed = True
            await self._send({"kill": request["id"]})  # if the run ends meanwhile, the zygote ignores this
            try:
                reply = await asyncio.wait_for(self._recv(), timeout=5)
            except TimeoutError:
                raise SandboxError("the zygote did not stop a run that outlived its wall clock") from None
        if reply.get("id") != request["id"]:
            self._abandon(io_task, out_r, err_r)
            raise SandboxError(f"the sandbox's zygote answered run {reply.get('id')} for run {request['id']}")
        if reply.get("leftovers"):
            self.healthy = False  # processes the zygote could not kill: the pool retires this sandbox
        if "error" in reply:
            self._abandon(io_task, out_r, err_r)
            raise SandboxError(f"the sandbox could not prepare the run: {reply['error']}")
        held_open = False
        try:
            await asyncio.wait_for(io_task, timeout=self.OUTPUT_GRACE_S)
        except TimeoutError:
            # The run is over and its exit is known; only its output is cut short. Keep the verdict on the run,
            # and retire the sandbox: destroying it kills its whole namespace, whatever was left in it.
            self._abandon(io_task, out_r, err_r)
            self.healthy = False
            held_open = True
        code = int(reply["exit"])
        stderr = decode(err.value())
        if held_open:
            stderr += "\n[judgegraph: processes the run left behind kept its output open; output cut; sandbox retired]"
        # Nothing but the CPU rlimit sends SIGKILL or SIGXCPU in here (memory is an rlimit, not an OOM killer).
        cpu_killed = not killed and code in (-_SIGKILL, -_SIGXCPU)
        return ExecResult(
            stdout=decode(out.value()),
            stderr=stderr,
            stdout_truncated=out.truncated,
            stderr_truncated=err.truncated,
            exit_code=None if killed or cpu_killed else code,
            timed_out=killed or cpu_killed,
            oom_killed=not killed and code != 0 and any(m in stderr[-2000:] for m in _OOM_MARKERS),
            duration_s=time.perf_counter() - start,
            backend="process",
        )

    @staticmethod
    def _abandon(io_task: asyncio.Future[Any], *fds: int) -> None:
        """Stop reading a run's output: its readers leave the loop and its pipes close."""
        loop = asyncio.get_running_loop()
        for fd in fds:
            if loop.remove_reader(fd):
                os.close(fd)
        io_task.cancel()


class ProcessBackend:
    """Warm bubblewrap sandboxes, one per pool slot; no daemon."""

    name = "process"
    auto_rank = 10
    """`auto` falls back to bubblewrap where Docker cannot run."""

    def __init__(self, limits: Limits | None = None, **_: object) -> None:
        self.limits = limits or Limits()
        self.bwrap = shutil.which("bwrap") or "bwrap"
        self.binds = _system_binds()
        self.root = os.geteuid() == 0
        self.python = ""

    async def start(self) -> None:
        if shutil.which("bwrap") is None:
            raise SandboxUnavailableError("bubblewrap is not installed: apt-get install bubblewrap")
        self.python = _python()
        probe = await self.create(0)
        try:
            result = await probe.run(["true"])
        finally:
            await probe.destroy()
        if result.exit_code != 0:
            raise SandboxUnavailableError(f"the bubblewrap sandbox cannot run programs: {result.stderr.strip()}")

    async def create(self, slot: int) -> ProcessSandbox:
        if not self.python:
            self.python = _python()
        sb = ProcessSandbox(self, NOBODY - slot if self.root else None)
        await sb.start()
        return sb

    async def close(self) -> None:
        return None

    def describe(self) -> str:
        who = f"uid {NOBODY} - slot" if self.root else f"the current uid {os.geteuid()} (not root: no uid drop)"
        return f"bubblewrap ({self.bwrap}) + rlimits, a warm zygote per slot, runs as {who}"


sandbox_backends.register("process", ProcessBackend)
