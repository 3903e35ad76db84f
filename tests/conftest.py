from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from benchmarks.fake_openai import FakeOpenAI
from judgegraph.backends import ModelClient
from judgegraph.sandboxes import Limits
from judgegraph.tools import ToolServices

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "demo.jsonl"
"""The bundled examples: the requests a newcomer's first command judges."""


def demo_rows() -> dict[str, dict[str, Any]]:
    """The bundled examples as the file gives them, by id, in its order."""
    rows = [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]
    return {row["id"]: row for row in rows}


# The CLI's rich consoles fix their size when both of these are set at import (pytest-xdist's workers inherit
# them): unset, each console reads COLUMNS when it prints, so a test's `env={"COLUMNS": ...}` holds.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    yield server
    server.stop()


ClientFor = Callable[..., Awaitable[ModelClient]]
"""`await client_for(url, **ModelClient options)`: a connected model client."""


@pytest_asyncio.fixture
async def client_for() -> AsyncIterator[ClientFor]:
    """Connected model clients, each closed when the test ends (its connections with it)."""
    made: list[ModelClient] = []

    async def connected(url: str, **options: Any) -> ModelClient:
        made.append(ModelClient(url, **options))
        await made[-1].connect()
        return made[-1]

    yield connected
    for client in made:
        await client.close()


@pytest_asyncio.fixture(scope="module", params=["docker", "process"])
async def services(request: pytest.FixtureRequest) -> AsyncIterator[ToolServices]:
    """Tool services on each sandbox backend, one per test module (its pool kept warm across the module)."""
    s = ToolServices(sandbox=request.param, sandbox_pool_size=2, limits=Limits())
    yield s
    await s.aclose()


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "runs.db"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that run on the Docker backend (a `[docker]` parameter, or `docker` in the name) carry the
    `docker` marker, so `make test-fast` can leave them out."""
    for item in items:
        if "docker" in item.name.lower():
            item.add_marker(pytest.mark.docker)


SHARED_DATA = ROOT.parent / "shared" / "data"
"""Third-party development data (`../shared/data`, see its README); tests that read it skip without it."""


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"no development data at {SHARED_DATA}")
    return SHARED_DATA
