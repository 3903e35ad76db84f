"""The Docker backend: a warm pool of hardened containers; each run is one `exec` in a fresh scratch dir.

Containers start once (`network_mode=none`, all capabilities dropped, `no-new-privileges`, read-only root,
size-capped tmpfs for /work and /tmp, pids, memory with no swap, CPU quota, uid 65534) and serve runs until
the pool recycles them. A run streams its files in as a tar on the exec's stdin, runs under CPU-time,
file-size and wall-clock limits, then wipes its scratch directory and kills whatever it left running.
Containers are labelled with their owner, so containers of a crashed process are reaped at the next start.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import socket
import struct
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from judgegraph.errors import PrerequisiteError, SandboxError, SandboxUnavailableError
from judgegraph.sandboxes._capture import CappedBuffer
from judgegraph.sandboxes._image import REAPER, ImageRecipe, image_exists
from judgegraph.sandboxes._protocol import sandbox_backends
from judgegraph.sandboxes._scratch import tar_of
from judgegraph.sandboxes._types import ExecResult, Limits, decode

log = logging.getLogger(__name__)

LABEL = "judgegraph.sandbox"
OWNER_LABEL = "judgegraph.owner"
STDIN_FILE = ".judgegraph-stdin"
USER = "65534:65534"
CONFINED: dict[str, object] = {
    "network_mode": "none",
    "cap_drop": ["ALL"],
    "security_opt": ["no-new-privileges"],
    "read_only": True,
}
"""The confinement every sandbox container starts under, whatever its limits."""

EXEC_SOURCE = "".join((Path(__file__).parent / name).read_text() for name in ("_wipe_main.py", "_exec_main.py"))
"""The in-container half of a run (`_exec_main.py`): undumpable, it prepares the run directory, runs the command
under its CPU, file-size and wall-clock limits, then kills what the run left and wipes the scratch space."""


def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _owner_alive(owner: str) -> bool:
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return True  # another machine's container: not ours to judge
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _oom_counter_path(container_id: str) -> Path | None:
    """The container's memory cgroup file with an `oom_kill` counter (cgroup v1 or v2), if this host shows it."""
    for path in (
        Path(f"/sys/fs/cgroup/memory/docker/{container_id}/memory.oom_control"),
        Path(f"/sys/fs/cgroup/memory/system.slice/docker-{container_id}.scope/memory.oom_control"),
        Path(f"/sys/fs/cgroup/system.slice/docker-{container_id}.scope/memory.events"),
        Path(f"/sys/fs/cgroup/docker/{container_id}/memory.events"),
    ):
        if path.exists():
            return path
    return None


def _read_frames(sock: socket.socket, out: CappedBuffer, err: CappedBuffer, deadline: float) -> bool:
    """Read Docker's multiplexed exec stream to EOF; False if the deadline passed first."""
    buf = b""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        sock.settimeout(remaining)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            return False
        if not chunk:
            return True
        buf += chunk
        while len(buf) >= 8:
            kind, size = buf[0], struct.unpack(">I", buf[4:8])[0]
            if len(buf) < 8 + size:
                break
            (err if kind == 2 else out).write(buf[8 : 8 + size])
            buf = buf[8 + size :]


class DockerSandbox:
    backend = "docker"

    def __init__(self, backend: DockerBackend, container: Any, lease: Any = None) -> None:
        self._backend = backend
        self.container = container
        self._lease = lease
        """The attached stdin that keeps the container alive (see `DockerBackend._start_leased`)."""
        self.uses = 0
        self.healthy = True
        self._oom_path = _oom_counter_path(container.id)

    def _oom_kills(self) -> int | None:
        if self._oom_path is None:
            return None
        try:
            for line in self._oom_path.read_text().splitlines():
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
        except OSError:
            return None
        return None

    async def run(
        self,
        command: Sequence[str],
        *,
        files: Mapping[str, str | bytes] | None = None,
        limits: Limits | None = None,
        stdin: bytes | None = None,
    ) -> ExecResult:
        limits = limits or self._backend.limits
        payload = dict(files or {})
        if stdin is not None:
            payload[STDIN_FILE] = stdin
        tar = tar_of(payload)
        self.uses += 1
        try:
            return await asyncio.to_thread(self._run, list(command), tar, limits)
        except SandboxError:
            self.healthy = False
            raise
        except Exception as e:  # the engine failed us: this container is not trusted again
            self.healthy = False
            raise SandboxError(f"docker exec failed: {type(e).__name__}: {e}") from e

    def _run(self, command: list[str], payload: bytes, limits: Limits) -> ExecResult:
        api = self._backend.client.api
        if self._backend.limits.memory_mb != limits.memory_mb or self._backend.limits.pids != limits.pids:
            # Container-level limits differ for this run: apply them, and retire the container afterwards.
            # docker-py's update_container() has no pids limit: the engine's own update endpoint takes both.
            mem = limits.memory_mb * 1024 * 1024
            url = api._url("/containers/{0}/update", self.container.id)
            api._raise_for_status(
                api._post_json(url, data={"Memory": mem, "MemorySwap": mem, "PidsLimit": limits.pids})
            )
            self.healthy = False
        fsize = limits.file_size_mb * 1024 * 1024
        argv = ["python3", "-I", "-S", "-c", EXEC_SOURCE, str(limits.cpu_s), str(fsize), f"{limits.wall_s:g}", *command]
        oom_before = self._oom_kills()
        start = time.perf_counter()
        exec_id = api.exec_create(
            self.container.id, argv, stdin=True, stdout=True, stderr=True, user=USER, workdir="/work"
        )["Id"]
        stream = api.exec_start(exec_id, socket=True)
        sock: socket.socket = getattr(stream, "_sock", stream)
        out, err = CappedBuffer(limits.output_bytes), CappedBuffer(limits.output_bytes)
        try:
            sock.sendall(payload)
            sock.shutdown(socket.SHUT_WR)
            finished = _read_frames(sock, out, err, time.monotonic() + limits.wall_s + 5.0)
        finally:
            close_stream(stream)
        duration = time.perf_counter() - start
        if not finished:  # the in-container timeout did not fire: the container is not trusted again
            self.healthy = False
            return ExecResult(
                stdout=decode(out.value()),
                stderr=decode(err.value()),
                stdout_truncated=out.truncated,
                stderr_truncated=err.truncated,
                exit_code=None,
                timed_out=True,
                duration_s=duration,
                backend="docker",
            )
        rc = api.exec_inspect(exec_id)["ExitCode"]
        if rc == 125 and not out.kept:
            self.healthy = False
            raise SandboxError(f"the sandbox could not prepare the run: {decode(err.value())[-500:]}")
        if rc == 124 or rc >= 128:
            # Killed or timed out, perhaps the wrapper itself (the program can signal its own uid's processes):
            # its clean-up may not have run, so this container is not trusted with another run.
            self.healthy = False
        oom_after = self._oom_kills()
        oom = (oom_after or 0) > (oom_before or 0) if oom_before is not None else rc == 137 and duration < limits.cpu_s
        timed_out = not oom and rc in (124, 137)  # timeout's status, or SIGKILL from the CPU-time limit
        return ExecResult(
            stdout=decode(out.value()),
            stderr=decode(err.value()),
            stdout_truncated=out.truncated,
            stderr_truncated=err.truncated,
            exit_code=None if rc in (124, 137) else rc,
            timed_out=timed_out,
            oom_killed=oom,
            duration_s=duration,
            backend="docker",
        )

    async def destroy(self) -> None:
        self.healthy = False
        await asyncio.to_thread(self._backend.remove, self.container)
        lease, self._lease = self._lease, None
        if lease is not None:
            close_stream(lease)


def _socket_refuses() -> str | None:
    """Why the engine's local socket refuses a connection (no engine, no permission), or None. Asked before
    docker-py is: its client leaves the socket of a refused first request open."""
    host = os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"
    if not host.startswith("unix://"):
        return None  # a TCP or SSH engine: docker-py's own connect says
    path = host.removeprefix("unix://")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(10)
        try:
            probe.connect(path)
        except OSError as e:
            return f"{path}: {e.strerror or e}"
    return None


def close_stream(stream: Any) -> None:
    """Close a socket docker-py hands out (a `SocketIO` over the socket, which closing the wrapper leaves open),
    the socket itself and the HTTP response it came from: none is left to the finalizer."""
    for part in (stream, getattr(stream, "_sock", None), getattr(stream, "_response", None)):
        if part is not None:
            with contextlib.suppress(Exception):
                part.close()


class DockerBackend:
    """Hardened containers from the locally built image (see `judgegraph sandbox build`)."""

    name = "docker"
    auto_rank = 0
    """`auto` tries backends by rank, lowest first: Docker, where it runs, isolates best."""

    def __init__(
        self, limits: Limits | None = None, *, image: str | None = None, pool_size: int = 4, **_: object
    ) -> None:
        self.limits = limits or Limits()
        self.image = image or ImageRecipe().tag
        self.pool_size = pool_size
        self.owner = _owner()
        self.client: Any = None
        self._live: dict[str, Any] = {}
        self._atexit = False

    async def start(self) -> None:
        try:
            import docker
        except ImportError as e:
            raise PrerequisiteError("the Docker backend needs the docker package: pip install docker") from e
        if refused := await asyncio.to_thread(_socket_refuses):
            raise SandboxUnavailableError(f"no Docker engine answers ({refused})")
        client: Any = None
        try:
            client = await asyncio.to_thread(docker.from_env, timeout=30, max_pool_size=self.pool_size + 4)
            await asyncio.to_thread(client.ping)
            present = await asyncio.to_thread(image_exists, client, self.image)
        except Exception as e:
            if client is not None:
                client.close()  # a backend that cannot start keeps no connection to the engine
            raise SandboxUnavailableError(f"no Docker engine answers ({type(e).__name__}: {e})") from e
        if not present:
            client.close()
            raise SandboxUnavailableError(f"the sandbox image {self.image} is missing: run `judgegraph sandbox build`")
        self.client = client
        reaped = await asyncio.to_thread(self.reap_stale)
        if reaped:
            log.warning("removed %d sandbox container(s) left by crashed processes", reaped)
        if not self._atexit:
            atexit.register(self._remove_all_sync)
            self._atexit = True

    def reap_stale(self) -> int:
        """Remove sandbox containers whose owning process on this host is gone."""
        n = 0
        for c in self.client.containers.list(all=True, filters={"label": LABEL}):
            owner = c.labels.get(OWNER_LABEL, "")
            if owner != self.owner and not _owner_alive(owner):
                self.remove(c)
                n += 1
        return n

    async def create(self, slot: int) -> DockerSandbox:
        lim = self.limits
        mem = f"{lim.memory_mb}m"
        try:
            container, lease = await asyncio.to_thread(
                self._start_leased,
                self.image,
                ["python3", "-c", REAPER],
                user=USER,
                **CONFINED,
                tmpfs={
                    "/work": f"rw,nosuid,nodev,exec,size={lim.scratch_mb}m,mode=1777",
                    "/tmp": "rw,nosuid,nodev,size=16m,mode=1777",
                },
                pids_limit=lim.pids,
                mem_limit=mem,
                memswap_limit=mem,
                nano_cpus=int(lim.cpus * 1e9),
                ulimits=[{"Name": "nofile", "Soft": 256, "Hard": 256}, {"Name": "core", "Soft": 0, "Hard": 0}],
                hostname="sandbox",
                working_dir="/work",
                environment={"HOME": "/work", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"},
                labels={LABEL: "1", OWNER_LABEL: self.owner, "judgegraph.slot": str(slot)},
            )
        except Exception as e:
            raise SandboxError(f"could not start a sandbox container: {type(e).__name__}: {e}") from e
        self._live[container.id] = container
        return DockerSandbox(self, container, lease)

    def _start_leased(self, image: str, command: list[str], **options: Any) -> tuple[Any, Any]:
        """Create and start a container whose first process lives only while this process holds its stdin.

        `stdin_once`: Docker closes the container's stdin when its attached client goes, however this process
        ends (kill -9 included); the first process then exits and the container removes itself. Stale
        reaping at start-up stays as the second line."""
        container = self.client.containers.create(
            image, command, stdin_open=True, detach=False, auto_remove=True, **options
        )
        try:
            lease = self.client.api.attach_socket(container.id, params={"stdin": 1, "stream": 1})
            container.start()
        except Exception:
            self.remove(container)
            raise
        return container, lease

    def remove(self, container: Any) -> None:
        self._live.pop(container.id, None)
        with contextlib.suppress(Exception):
            container.remove(force=True)

    def _remove_all_sync(self) -> None:
        for c in list(self._live.values()):
            self.remove(c)

    async def close(self) -> None:
        if self.client is not None:
            await asyncio.to_thread(self._remove_all_sync)
            self.client.close()  # its pooled connections to the engine's socket, not left to the finalizer
            self.client = None
        if self._atexit:
            atexit.unregister(self._remove_all_sync)
            self._atexit = False

    def describe(self) -> str:
        return f"Docker warm pool of {self.pool_size} containers from image {self.image}"


sandbox_backends.register("docker", DockerBackend)
