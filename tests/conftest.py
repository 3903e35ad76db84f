from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "runs.db"
