"""End to end on the real embedded model: llama.cpp's server with SmolLM2-135M-Instruct.

The 135M model judges at chance, so these tests assert on shape and on the evidence path: a reference
match must decide the right winner in both candidate orders, and every model reply is recorded whole.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import pytest_asyncio
from pydantic import BaseModel, Field
from typer.testing import CliRunner

from judgegraph import Judge, JudgeRequest
from judgegraph.backends import EmbeddedServer, ModelClient, Sampling
from judgegraph.cli import app
from judgegraph.graphs import verdict_schema
from judgegraph.runtime._batch import resolve_paths
from judgegraph.schema import reply_schema
from tests.conftest import DEMO, ROOT, demo_rows
from tests.owners import owner_process, wait_until

pytestmark = pytest.mark.llm


@pytest_asyncio.fixture(scope="module")
async def embedded() -> AsyncIterator[EmbeddedServer]:
    async with EmbeddedServer() as server:
        yield server


async def test_server_speaks_the_openai_api_with_schema_constrained_output(embedded: EmbeddedServer) -> None:
    client = ModelClient(embedded.base_url)
    await client.connect()
    assert client.profile.name == "llama_cpp" and client.model == "smollm2-135m-instruct"
    turn = await client.chat(
        [{"role": "user", "content": "Which is better, A: 'Paris is in France' or B: 'Paris is in Peru'?"}],
        json_schema=verdict_schema("pairwise", 2),
        sampling=Sampling(max_tokens=200),
    )
    await client.close()
    assert turn.error is None and turn.usage.completion_tokens > 0 and turn.latency_s > 0
    if turn.finish_reason == "stop":  # grammar-constrained: a finished reply is schema-valid JSON
        assert json.loads(turn.text or "")["winner"] in ("A", "B", "tie")


async def test_integer_bounds_hold_under_the_grammar_because_small_ranges_are_enumerated(
    embedded: EmbeddedServer,
) -> None:
    """llama.cpp's grammar converter ignores `minimum`/`maximum`: told to answer a number outside the range, the
    model does, under the bounds alone; under the schema judgegraph sends (the range also as an enum) it cannot."""

    class Pick(BaseModel):
        k: int = Field(ge=1, le=10)

    client = ModelClient(embedded.base_url)
    await client.connect()
    bounds_only = {
        "type": "object",
        "properties": {"k": {"type": "integer", "minimum": 1, "maximum": 10}},
        "required": ["k"],
        "additionalProperties": False,
    }
    answers = []
    for schema in (bounds_only, reply_schema(Pick)):
        turn = await client.chat(
            [{"role": "user", "content": 'Reply with exactly this JSON: {"k": 0}'}],
            json_schema=schema,
            sampling=Sampling(temperature=0.0, max_tokens=20),
        )
        answers.append(json.loads(turn.text or "")["k"])
    await client.close()
    assert reply_schema(Pick)["properties"]["k"]["enum"] == list(range(1, 11))
    assert answers[0] == 0  # what the bounds alone let through
    assert 1 <= answers[1] <= 10


async def test_reference_decides_in_both_orders_and_the_model_rules_the_rest(
    embedded: EmbeddedServer, tmp_path: Path
) -> None:
    examples = list(demo_rows().values())
    async with Judge.load("evidence", store=tmp_path / "runs.db", model_url=embedded.base_url) as judge:
        for ex in examples:
            ex = resolve_paths(JudgeRequest.model_validate(ex), ROOT / "examples").model_dump()
            t = await judge.arun(ex)
            v = t.verdict
            assert v is not None, ex["id"]
            made = ex["id"] == "code-statement"  # no tests: the statement's examples decide
            if made or any(ex.get(k) for k in ("reference", "tests", "constraints", "documents", "images")):
                assert v.valid and v.decided_by == "evidence" and t.correct, (ex["id"], v)
                if ex.get("mode", "pairwise") == "pairwise":
                    swapped = {
                        **ex,
                        "candidates": ex["candidates"][::-1],
                        "label": {"winner": 1 - ex["label"]["winner"]},
                    }
                    again = await judge.arun(swapped)
                    assert again.verdict is not None and again.verdict.winner == 1 - v.winner  # type: ignore[operator]
            else:
                (turn, *_) = t.model_turns()
                assert turn.backend == "llama_cpp" and turn.model == "smollm2-135m-instruct"
                assert turn.text is not None and turn.request.params["response_format"]["type"] == "json_object"
                assert v.decided_by in ("model", "none")
                assert v.valid or (v.error and "no usable verdict" in v.error)


def test_cli_on_the_bundled_examples_uses_the_embedded_default(tmp_path: Path) -> None:
    """What `make demo` runs: no --model, so judgegraph starts (and stops) the embedded server itself."""
    out = tmp_path / "out.jsonl"
    env = {"JUDGEGRAPH_MODEL_URL": "", "COLUMNS": "200"}
    result = CliRunner().invoke(
        app,
        ["judge", str(DEMO), "-o", str(out), "--store", str(tmp_path / "r.db")],
        env=env,
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 15 and all(r["trajectory_id"] for r in rows)
    assert all(r["correct"] for r in rows if r["decided_by"] == "evidence")
    assert sum(r["decided_by"] == "evidence" for r in rows) == 14
    assert "judgegraph show run_" in result.output


@pytest.mark.parametrize("backend", ["docker", "process"])
async def test_humaneval_pairs_are_decided_by_run_code_in_both_orders(
    embedded: EmbeddedServer, backend: str, tmp_path: Path
) -> None:
    from tests.test_run_code import decides_the_pairs_in_both_orders

    await decides_the_pairs_in_both_orders(embedded.base_url, backend, tmp_path / "r.db")


JUDGE_EXAMPLES = {
    "agentic": ("math-mult", "open-ended"),
    "llm": ("math-mult", "constraints", "open-ended"),
    "skill": ("math-mult", "code", "constraints", "open-ended"),
    "rubric": ("constraints", "open-ended"),
    "propositions": ("document-claims", "document-logic", "image-ocr"),
}


@pytest.mark.parametrize("judge_name", sorted(JUDGE_EXAMPLES))
async def test_every_judge_runs_end_to_end_on_the_embedded_model(
    embedded: EmbeddedServer, judge_name: str, tmp_path: Path
) -> None:
    examples = demo_rows()
    async with Judge.load(judge_name, store=tmp_path / "r.db", model_url=embedded.base_url) as judge:
        for key in JUDGE_EXAMPLES[judge_name]:
            request = resolve_paths(JudgeRequest.model_validate(examples[key]), ROOT / "examples")
            t = await judge.arun(request)
            v = t.verdict
            assert t.status == "complete" and v is not None, key
            assert v.valid or (v.error and "no usable verdict" in v.error) or "no criterion" in (v.error or ""), v
            assert all(turn.backend == "llama_cpp" for turn in t.model_turns())
            if v.decided_by == "evidence":  # deterministic evidence is never wrong on the bundled examples
                assert t.correct, (judge_name, key, v)
    if judge_name == "propositions":
        assert t.model_turns() == []  # claims were settled by deterministic checks


MODE_REQUESTS = [
    {"id": "pointwise", "mode": "pointwise", "prompt": "Name a prime number.", "candidates": ["7", "9 is prime."]},
    {"id": "listwise", "mode": "listwise", "prompt": "Greet a friend.", "candidates": ["Hi!", "Hello, friend!", "k"]},
    {
        "id": "best",
        "mode": "best_of_n",
        "prompt": "2+2?",
        "reference": "4",
        "candidates": ["5", "The answer is 4.", "Four: the answer is 4.", "3"],
    },
    {
        "id": "steps",
        "mode": "steps",
        "prompt": "What is 3*4+1?",
        "candidates": ["Step 1: 3*4 = 12.\nStep 2: 12 + 1 = 13.\nStep 3: The answer is 13."],
    },
]


async def test_every_mode_runs_end_to_end_on_the_embedded_model(embedded: EmbeddedServer, tmp_path: Path) -> None:
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=embedded.base_url) as judge:
        for request in MODE_REQUESTS:
            t = await judge.arun(request)
            v = t.verdict
            assert v is not None and t.status == "complete", request["id"]
            if v.valid:
                assert len(v.scores) == len(request["candidates"]) and all(0 <= s <= 1 for s in v.scores)
                assert sorted(v.ranking) == list(range(len(request["candidates"])))
            else:
                assert v.error and "no usable verdict" in v.error
            if request["id"] == "best":  # two candidates pass the reference check: a tournament between them
                assert v.valid and v.winner in (1, 2) and v.scores[0] == v.scores[3] == 0.0 and "tournament" in t.path
            if request["id"] == "steps" and v.valid:
                assert [c.name for c in v.criteria if c.name.startswith("step")] == ["step 1", "step 2", "step 3"]


async def test_server_stops_with_its_owner() -> None:
    server = EmbeddedServer(n_threads=1)
    url = await server.start()
    pid = server._proc.pid  # type: ignore[union-attr]
    async with httpx.AsyncClient() as client:
        assert (await client.get(f"{url}/models")).status_code == 200
        await server.stop()
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        with pytest.raises(httpx.ConnectError):
            await client.get(f"{url}/models")


def test_server_ends_when_its_owner_is_killed() -> None:
    """kill -9 leaves the owner no chance to clean up: the server's stdin is the owner's pipe, and it exits when
    that pipe closes (an orphaned llama_cpp.server used to stay behind)."""
    import signal

    code = (
        "import asyncio, time\nfrom judgegraph.backends import EmbeddedServer\n"
        "server = EmbeddedServer(n_threads=1)\nasyncio.run(server.start())\n"
        "print(server._proc.pid, flush=True)\ntime.sleep(120)\n"
    )
    with owner_process(code) as line:
        pid = int(line)
        os.kill(pid, 0)  # running
    if not wait_until(lambda: not _running(pid), 15):
        os.kill(pid, signal.SIGKILL)
        raise AssertionError(f"the embedded server {pid} outlived its killed owner")


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
