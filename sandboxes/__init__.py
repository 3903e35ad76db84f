"""Code sandboxes: the `Sandbox` protocol, a pool, and two backends.

`docker`: a warm pool of hardened containers from a locally built image (`judgegraph sandbox build`).
`process`: bubblewrap namespaces plus rlimits as an unprivileged uid, for machines without Docker.
`SandboxPool.open("auto")` picks Docker when it can and says why it did not when it falls back.
"""

from judgegraph.errors import SandboxError, SandboxUnavailableError
from judgegraph.sandboxes._docker import DockerBackend, DockerSandbox
from judgegraph.sandboxes._image import LIBRARY_PACKAGES, ImageRecipe, build_image
from judgegraph.sandboxes._pool import BackendChoice, DoctorReport, SandboxPool, doctor
from judgegraph.sandboxes._process import ProcessBackend, ProcessSandbox
from judgegraph.sandboxes._protocol import Sandbox, SandboxBackend, auto_order, sandbox_backends
from judgegraph.sandboxes._types import ExecResult, Limits

__all__ = (
    "LIBRARY_PACKAGES",
    "BackendChoice",
    "DockerBackend",
    "DockerSandbox",
    "DoctorReport",
    "ExecResult",
    "ImageRecipe",
    "Limits",
    "ProcessBackend",
    "ProcessSandbox",
    "Sandbox",
    "SandboxBackend",
    "SandboxError",
    "SandboxPool",
    "SandboxUnavailableError",
    "auto_order",
    "build_image",
    "doctor",
    "sandbox_backends",
)
