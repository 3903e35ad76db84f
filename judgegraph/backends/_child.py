"""A model server run as a child process: started on a free 127.0.0.1 port, ready when `/v1/models` answers,
stopped with its whole process group, and tethered so it cannot outlive its owner (`kill -9` included)."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Self

import httpx

from judgegraph.backends import _tethered
from judgegraph.errors import BackendUnavailableError, UsageError

log = logging.getLogger(__name__)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def tethered(python: str | None, module: str, args: list[str]) -> list[str]:
    """The command that runs `python -m module args` tethered to this process. The tether is run as a file, so
    an interpreter without judgegraph (vLLM's own environment) can run it too."""
    return [python or sys.executable, str(Path(_tethered.__file__)), module, *args]


class ChildServer:
    """The lifecycle every child model server shares; subclasses say what to run (`command`) and check what
    they need before it starts (`prepare`)."""

    kind = "model server"
    """How errors and logs name it."""

    def __init__(self, *, startup_timeout_s: float, log_path: Path | None = None) -> None:
        self.startup_timeout_s = startup_timeout_s
        self.log_path = log_path
        self.port: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None

    def command(self, port: int) -> list[str]:
        """The server's command line for `port`."""
        raise NotImplementedError

    def environment(self) -> dict[str, str]:
        """The child's environment."""
        return dict(os.environ)

    async def prepare(self) -> None:
        """Checks before starting (missing packages, unusable model files): fail here with a clear error."""

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise UsageError(f"the {self.kind} is not started")
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        """The server process's id while it runs (its process group has the same id)."""
        return self._proc.pid if self._proc is not None else None

    async def start(self) -> str:
        """Start the server and wait until it answers; returns its base URL."""
        if self._proc is not None:
            return self.base_url
        await self.prepare()
        command = self.command(port := free_port())
        log_path = self.log_path or Path(tempfile.gettempdir()) / f"judgegraph-{self.kind.split()[0]}-{port}.log"
        self._proc = self._spawn(command, log_path)
        self.port = port
        self.log_path = log_path
        atexit.register(self._kill)
        try:
            await self._wait_ready()
        except BaseException:
            self._kill()
            raise
        return self.base_url

    def _spawn(self, cmd: list[str], log_path: Path) -> subprocess.Popen[bytes]:
        # A plain Popen (not asyncio's) so the server is tied to no event loop: the sync façade runs calls
        # on a background loop, and asyncio's transport would kill the child when its loop closes.
        log.info("starting the %s: %s", self.kind, " ".join(cmd))
        with open(log_path, "wb") as log_file:
            # stdin is the tether: the server's group ends when this process (the pipe's only writer) is gone.
            # Its own session makes it a process group leader, so the tether and `_kill` end its children too.
            return subprocess.Popen(
                cmd,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                stdin=subprocess.PIPE,
                start_new_session=True,
                env=self.environment(),
            )

    async def _wait_ready(self) -> None:
        assert self._proc is not None
        deadline = time.monotonic() + self.startup_timeout_s
        async with httpx.AsyncClient(timeout=2.0) as client:
            while True:
                if self._proc.poll() is not None:
                    raise BackendUnavailableError(
                        f"the {self.kind} exited with code {self._proc.returncode}:\n{self.log_tail()}"
                    )
                with contextlib.suppress(httpx.HTTPError):
                    if (await client.get(f"{self.base_url}/models")).status_code == 200:
                        return
                if time.monotonic() > deadline:
                    raise BackendUnavailableError(
                        f"the {self.kind} did not answer within {self.startup_timeout_s:.0f}s:\n{self.log_tail()}"
                    )
                await asyncio.sleep(0.1)

    def log_tail(self, lines: int = 20) -> str:
        """The end of the server's log (what an error shows)."""
        if self.log_path is None or not self.log_path.exists():
            return "(no log)"
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            _signal_group(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        _signal_group(proc.pid, signal.SIGKILL)  # workers the server started and left behind
        if proc.stdin is not None:
            proc.stdin.close()

    async def stop(self) -> None:
        """Stop the server (idempotent)."""
        await asyncio.to_thread(self._kill)
        atexit.unregister(self._kill)

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
