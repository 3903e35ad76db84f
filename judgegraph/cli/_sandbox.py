"""`judgegraph sandbox`: the code sandbox's image and backends."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from judgegraph.cli._common import fail, out
from judgegraph.errors import JudgegraphError


def sandbox_build(
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if the image exists.")] = False,
) -> None:
    """Build the Docker sandbox image locally (debootstrap + docker import; no registry). Needs root."""
    import logging

    import docker

    from judgegraph.sandboxes import build_image

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        client = docker.from_env(timeout=600)
        client.ping()
    except Exception as e:
        raise fail(
            f"no Docker engine answers ({e}); start dockerd (as root: `make services`, or scripts/test-services.sh)"
        ) from None
    try:
        tag = build_image(client, force=force)
    except JudgegraphError as e:
        raise fail(str(e)) from None
    out.print(f"sandbox image: {tag}")


def sandbox_doctor() -> None:
    """Say which sandbox backend is active here, and why."""
    from judgegraph.sandboxes import doctor

    report = asyncio.run(doctor())
    for b in report.backends:
        mark = "[green]available[/green]" if b.available else "[red]unavailable[/red]"
        out.print(f"{b.name:8} {mark}  {b.detail}")
    if report.active is None:
        raise fail(report.reason)
    out.print(f"active: [bold]{report.active}[/bold] ({report.reason})")
