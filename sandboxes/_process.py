"""The process backend, for machines without Docker: bubblewrap namespaces plus rlimits, as an unprivileged uid.

Each run gets new user, network, pid, mount, IPC and UTS namespaces; the host's /usr read-only, no /etc
beyond what the loader needs, no home directories, and a size-capped tmpfs scratch directory the run's files
are copied into (so nothing is left behind). rlimits cap CPU time, address space, file size and processes.
Run as root, each pool slot drops to its own uid (slot 0 is 65534, `nobody`; slot k is 65534 - k), because
RLIMIT_NPROC is not enforced for root and counts every process of a uid.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
import time
from collections.abc import Mapping, Sequence

from judgegraph.sandboxes._capture import CappedBuffer, drain
from judgegraph.sandboxes._protocol import sandbox_backends
from judgegraph.sandboxes._scratch import as_bytes, check_path
from judgegraph.sandboxes._types import ExecResult, Limits, SandboxUnavailableError, decode

log = logging.getLogger(__name__)

NOBODY = 65534
_SIGXCPU = int(signal.SIGXCPU)
_OOM_MARKERS = ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory")


def _system_binds() -> list[str]:
    """Read-only binds of the host's system directories (merged-/usr symlinks kept as symlinks)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for path in ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime", "/etc/ssl/certs"):
        args += ["--ro-bind-try", path, path]
    return args


class ProcessSandbox:
    backend = "process"

    def __init__(self, backend: ProcessBackend, uid: int | None) -> None:
        self._backend = backend
        self.uid = uid
        self.uses = 0
        self.healthy = True

    def _argv(self, command: Sequence[str], limits: Limits, files: dict[str, int]) -> list[str]:
        mb = 1024 * 1024
        argv = [
            "prlimit",
            f"--cpu={limits.cpu_s}",
            f"--as={limits.memory_mb * mb}",
            f"--fsize={limits.file_size_mb * mb}",
            f"--nproc={limits.pids}",
            "--nofile=256",
            "--core=0",
            "--",
            self._backend.bwrap,
            "--unshare-all",
            "--die-with-parent",
            "--new-session",
            # The command is the namespace's PID 1: bwrap's own init would be orphaned at exit and left as a
            # zombie for the host's init to reap, which some inits never do (it then eats the uid's RLIMIT_NPROC).
            "--as-pid-1",
            "--cap-drop", "ALL",
            "--hostname", "sandbox",
            *self._backend.binds,
            "--proc", "/proc",
            "--dev", "/dev",
            "--size", str(16 * mb), "--tmpfs", "/tmp",
            "--size", str(limits.scratch_mb * mb), "--tmpfs", "/work",
        ]  # fmt: skip
        made: set[str] = set()
        for name, fd in files.items():
            parent = os.path.dirname(name)
            while parent and parent not in made:
                argv += ["--dir", f"/work/{parent}"]
                made.add(parent)
                parent = os.path.dirname(parent)
            argv += ["--file", str(fd), f"/work/{name}"]
        argv += [
            "--remount-ro", "/",  # the sandbox's own root: only /work and /tmp stay writable
            "--chdir", "/work",
            "--clearenv",
            "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
            "--setenv", "HOME", "/work",
            "--setenv", "LANG", "C.UTF-8",
            "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
            "--",
            *command,
        ]  # fmt: skip
        return argv

    async def run(
        self,
        command: Sequence[str],
        *,
        files: Mapping[str, str | bytes] | None = None,
        limits: Limits | None = None,
        stdin: bytes | None = None,
    ) -> ExecResult:
        limits = limits or self._backend.limits
        self.uses += 1
        fds: dict[str, int] = {}
        try:
            for name, content in (files or {}).items():
                fd = os.memfd_create("judgegraph-file", 0)
                os.write(fd, as_bytes(content))
                os.lseek(fd, 0, os.SEEK_SET)
                fds[check_path(name)] = fd
            return await self._run(command, limits, fds, stdin)
        finally:
            for fd in fds.values():
                os.close(fd)

    async def _run(
        self, command: Sequence[str], limits: Limits, fds: dict[str, int], stdin: bytes | None
    ) -> ExecResult:
        start = time.perf_counter()
        ids = {"user": self.uid, "group": self.uid, "extra_groups": []} if self.uid is not None else {}
        proc = await asyncio.create_subprocess_exec(
            *self._argv(command, limits, fds),
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            pass_fds=tuple(fds.values()),
            start_new_session=True,
            **ids,  # type: ignore[arg-type]
        )
        out, err = CappedBuffer(limits.output_bytes), CappedBuffer(limits.output_bytes)

        async def feed() -> None:
            if stdin is not None and proc.stdin is not None:
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    proc.stdin.write(stdin)
                    await proc.stdin.drain()
                proc.stdin.close()

        io_task = asyncio.gather(feed(), drain(proc.stdout, out), drain(proc.stderr, err))
        killed = False
        try:
            await asyncio.wait_for(proc.wait(), timeout=limits.wall_s)
        except TimeoutError:
            killed = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # bwrap dies; --die-with-parent takes the namespace with it
            await proc.wait()
        finally:
            if proc.returncode is None:  # cancelled: leave nothing running
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
        await io_task
        rc = proc.returncode
        stderr = decode(err.value())
        # Nothing but the CPU rlimit sends SIGKILL or SIGXCPU in here (there is no OOM killer: memory is an rlimit).
        cpu_killed = rc in (-_SIGXCPU, 128 + _SIGXCPU, -9, 137)
        return ExecResult(
            stdout=decode(out.value()),
            stderr=stderr,
            stdout_truncated=out.truncated,
            stderr_truncated=err.truncated,
            exit_code=None if killed or cpu_killed else rc,
            timed_out=killed or cpu_killed,
            oom_killed=not killed and rc != 0 and any(m in stderr[-2000:] for m in _OOM_MARKERS),
            duration_s=time.perf_counter() - start,
            backend="process",
        )

    async def destroy(self) -> None:
        self.healthy = False


class ProcessBackend:
    """Sandboxes made of bubblewrap + rlimits; no daemon, nothing to start."""

    name = "process"

    def __init__(self, limits: Limits | None = None, **_: object) -> None:
        self.limits = limits or Limits()
        self.bwrap = shutil.which("bwrap") or "bwrap"
        self.binds = _system_binds()
        self.root = os.geteuid() == 0

    async def start(self) -> None:
        if shutil.which("bwrap") is None:
            raise SandboxUnavailableError("bubblewrap is not installed: apt-get install bubblewrap")
        if shutil.which("prlimit") is None:
            raise SandboxUnavailableError("prlimit (util-linux) is not installed")
        probe = await ProcessSandbox(self, NOBODY if self.root else None).run(["true"], limits=self.limits)
        if probe.exit_code != 0:
            raise SandboxUnavailableError(
                f"bubblewrap cannot create namespaces here (exit {probe.exit_code}): {probe.stderr.strip()}"
            )

    async def create(self, slot: int) -> ProcessSandbox:
        return ProcessSandbox(self, NOBODY - slot if self.root else None)

    async def close(self) -> None:
        return None

    def describe(self) -> str:
        who = f"uid {NOBODY} - slot" if self.root else f"the current uid {os.geteuid()} (not root: no uid drop)"
        return f"bubblewrap ({self.bwrap}) + rlimits, runs as {who}"


sandbox_backends.register("process", ProcessBackend)
