"""The sandbox contract's data: limits in, a typed result out."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

BackendName = Literal["docker", "process"]


class Limits(BaseModel):
    """What one run may use. Memory, processes, CPUs and scratch size are enforced per sandbox (container or
    slot); wall time, CPU time, output and file size per run."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    wall_s: float = Field(default=10.0, gt=0)
    """Wall-clock time before the run is killed."""
    cpu_s: int = Field(default=10, ge=1)
    """CPU seconds (RLIMIT_CPU)."""
    memory_mb: int = Field(default=512, ge=16)
    """Memory (a cgroup limit with no swap under Docker; the address-space rlimit in the process backend)."""
    address_space_mb: int | None = Field(default=None, ge=16)
    """The process backend's address-space rlimit when it must exceed `memory_mb`: runtimes that reserve far
    more than they use (the JVM, V8, Go, rustc) do not start under a small one. None: `memory_mb`. Docker
    ignores it (its cgroup limits what is used, not what is reserved)."""
    pids: int = Field(default=64, ge=4)
    """Processes and threads at once."""
    output_bytes: int = Field(default=1_000_000, ge=1024)
    """Bytes kept of stdout and of stderr each; the rest is drained and the result flagged truncated."""
    file_size_mb: int = Field(default=16, ge=1)
    """Largest file the program may write (RLIMIT_FSIZE)."""
    scratch_mb: int = Field(default=64, ge=1)
    """Size of the scratch directory (a tmpfs)."""
    cpus: float = Field(default=1.0, gt=0)
    """CPU quota (Docker only)."""


class ExecResult(BaseModel):
    """The outcome of one sandboxed run."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    stdout: str
    stderr: str
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    exit_code: int | None
    """The program's exit status; None when it was killed before one existed."""
    timed_out: bool = False
    """Killed for exceeding its wall-clock or CPU-time limit."""
    oom_killed: bool = False
    """Killed (or failed) for exceeding its memory limit."""
    duration_s: float
    backend: BackendName

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.oom_killed


def decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")
