"""Validating the files a run puts in its scratch directory."""

from __future__ import annotations

import io
import posixpath
import tarfile
from collections.abc import Mapping

from judgegraph.errors import SandboxError


def check_path(name: str) -> str:
    """A relative path that stays inside the scratch directory."""
    norm = posixpath.normpath(name)
    if not name or norm.startswith(("/", "../")) or norm in (".", "..") or "\x00" in name:
        raise SandboxError(f"file name {name!r} must be a relative path inside the scratch directory")
    return norm


def as_bytes(content: str | bytes) -> bytes:
    return content.encode() if isinstance(content, str) else content


def tar_of(files: Mapping[str, str | bytes]) -> bytes:
    """An uncompressed tar of `files` (what the Docker backend streams into a run's stdin)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, content in files.items():
            data = as_bytes(content)
            info = tarfile.TarInfo(check_path(name))
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()
