"""Property-based run of schemathesis against the reward server's OpenAPI spec, over real HTTP.

Every operation gets generated requests, valid and invalid; the server must never answer 5xx, and every
response must match what the spec says (status codes, content types, bodies). Schema-valid requests may
still get a 422: a request's cross-field rules (pairwise mode takes exactly two candidates, a rubric needs
criteria) are pydantic validators that JSON Schema does not carry, so that one check is left out.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
import uvicorn
from hypothesis import HealthCheck, given, settings
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import positive_data_acceptance

from benchmarks.fake_openai import FakeOpenAI
from judgegraph.backends import free_port
from judgegraph.serving import ServerConfig, create_app


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[schemathesis.BaseSchema]:
    model = FakeOpenAI().start()
    store: Path = tmp_path_factory.mktemp("schema") / "runs.db"
    app = create_app(ServerConfig(timeout_s=30), model_url=model.url, store=store, sandbox="process")
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the reward server did not start")
        time.sleep(0.05)
    try:
        yield schemathesis.openapi.from_url(f"http://127.0.0.1:{port}/openapi.json")
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        model.stop()


def test_the_server_keeps_to_its_spec(api_schema: schemathesis.BaseSchema) -> None:
    # Hypothesis driven directly: schemathesis' pytest plugin does not load under this pytest version.
    operations = [result.ok() for result in api_schema.get_all_operations() if isinstance(result, Ok)]
    assert {op.path for op in operations} >= {"/reward", "/v1/judge", "/v1/judge/batch", "/health"}
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None, derandomize=True
        )
        def check(case: schemathesis.Case[Any]) -> None:
            case.call_and_validate(excluded_checks=[positive_data_acceptance])

        check()
