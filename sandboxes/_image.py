"""The sandbox image, built locally with no registry: debootstrap a minimal Debian with the languages' toolchains,
`docker import` it.

The tag is a hash of the recipe, so the image is rebuilt only when the recipe changes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from judgegraph.errors import SandboxError, SandboxUnavailableError

log = logging.getLogger(__name__)

IMAGE_REPOSITORY = "judgegraph-sandbox"
RECIPE_REVISION = 2
"""Bump to force a rebuild when the build steps below change."""

LANGUAGE_PACKAGES = ("python3", "gcc", "g++", "libc6-dev", "default-jdk-headless", "nodejs", "golang-go", "rustc")
"""Every language `run_code` runs (tools/code/language.py), from Debian's own packages."""
LIBRARY_PACKAGES = ("python3-numpy", "python3-sortedcontainers", "python3-sympy")
"""Libraries the judges answers are written for give Python code (AtCoder numpy, LeetCode sortedcontainers): a
right answer that imports one must run. sympy is what tool-integrated math reasoning writes with (the judge's
own programs for a derived reference). scripts/test-services.sh installs them for the process sandbox."""

# PID 1 of every sandbox container: reaps orphans (so they do not eat the pids limit) and, being PID 1,
# survives the `kill -9 -1` with which each run removes what it left running.
REAPER = (
    "import os, signal\n"
    "def reap(*_):\n"
    "    while True:\n"
    "        try:\n"
    "            pid, _ = os.waitpid(-1, os.WNOHANG)\n"
    "        except ChildProcessError:\n"
    "            return\n"
    "        if pid == 0:\n"
    "            return\n"
    "signal.signal(signal.SIGCHLD, reap)\n"
    "signal.signal(signal.SIGTERM, lambda *_: os._exit(0))\n"
    "while os.read(0, 1024):\n"  # the owner holds stdin: at its end (the owner died), the container ends
    "    pass\n"
)

_TRIM = ("var/lib/apt/lists", "var/cache/apt", "usr/share/doc", "usr/share/man", "usr/share/locale", "usr/share/info")


def _host_codename() -> str:
    try:
        text = Path("/etc/os-release").read_text()
    except OSError:
        return "bookworm"
    m = re.search(r"^VERSION_CODENAME=(\w+)", text, re.MULTILINE)
    return m.group(1) if m else "bookworm"


def _host_mirror() -> str:
    """The Debian mirror apt already uses here (the only one reachable on some machines)."""
    for path in [*sorted(Path("/etc/apt").glob("sources.list.d/*.sources")), Path("/etc/apt/sources.list")]:
        try:
            text = path.read_text()
        except OSError:
            continue
        for m in re.finditer(r"(?:^URIs:\s*|^deb\s+(?:\[[^\]]*\]\s+)?)(\S+)", text, re.MULTILINE):
            uri = m.group(1)
            if "security" not in uri:
                return uri
    return "http://deb.debian.org/debian"


class ImageRecipe(BaseModel):
    """What goes into the sandbox image."""

    model_config = ConfigDict(frozen=True)

    suite: str = ""
    variant: str = "minbase"
    packages: tuple[str, ...] = LANGUAGE_PACKAGES + LIBRARY_PACKAGES
    revision: int = RECIPE_REVISION

    def resolved(self) -> ImageRecipe:
        return self if self.suite else self.model_copy(update={"suite": _host_codename()})

    @property
    def tag(self) -> str:
        blob = json.dumps(self.resolved().model_dump(), sort_keys=True).encode()
        return f"{IMAGE_REPOSITORY}:{hashlib.sha256(blob).hexdigest()[:12]}"


def image_exists(client: Any, tag: str) -> bool:
    import docker.errors

    try:
        client.images.get(tag)
    except docker.errors.ImageNotFound:
        return False
    return True


def build_image(
    client: Any, recipe: ImageRecipe | None = None, *, mirror: str | None = None, force: bool = False
) -> str:
    """Build (or find) the sandbox image; returns its tag. Needs root and debootstrap."""
    recipe = (recipe or ImageRecipe()).resolved()
    tag = recipe.tag
    if not force and image_exists(client, tag):
        log.info("sandbox image %s is up to date", tag)
        return tag
    if shutil.which("debootstrap") is None:
        raise SandboxUnavailableError("building the sandbox image needs debootstrap: apt-get install debootstrap")
    if os.geteuid() != 0:
        raise SandboxUnavailableError("building the sandbox image needs root (debootstrap)")
    with tempfile.TemporaryDirectory(prefix="judgegraph-rootfs-") as tmp:
        rootfs = Path(tmp) / "rootfs"
        cmd = [
            "debootstrap",
            f"--variant={recipe.variant}",
            f"--include={','.join(recipe.packages)}",
            recipe.suite,
            str(rootfs),
            mirror or _host_mirror(),
        ]
        log.info("building the sandbox image: %s", " ".join(cmd))
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise SandboxError(f"debootstrap failed ({done.returncode}):\n{done.stderr[-3000:] or done.stdout[-3000:]}")
        for part in _TRIM:
            shutil.rmtree(rootfs / part, ignore_errors=True)
        (rootfs / "work").mkdir(exist_ok=True)
        (rootfs / "work").chmod(0o1777)
        tarball = Path(tmp) / "rootfs.tar"
        subprocess.run(["tar", "-C", str(rootfs), "-cf", str(tarball), "."], check=True)
        repository, version = tag.split(":")
        client.api.import_image_from_file(
            str(tarball),
            repository=repository,
            tag=version,
            changes=["USER 65534:65534", "WORKDIR /work", "ENV HOME=/work LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1"],
        )
    log.info("built sandbox image %s", tag)
    return tag
