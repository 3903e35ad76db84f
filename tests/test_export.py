"""Exports for training the judge: every format written and read back (JSONL and Parquet)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from benchmarks.fake_openai import FakeOpenAI, Reply, prefers
from judgegraph import Judge
from judgegraph.backends import EmbeddedServer
from judgegraph.cli import app
from judgegraph.output._export import exporters
from tests.conftest import ROOT

OPEN = {"id": "o", "prompt": "Greet someone.", "candidates": ["Hello there, friend!", "k"], "label": {"winner": 0}}


async def _record(server_url: str, store: Path, judge: str = "evidence", **kw: Any) -> None:
    async with Judge.load(judge, store=store, model_url=server_url, **kw) as j:
        await j.arun(OPEN)
        await j.arun({**OPEN, "id": "o2"})


def _read(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".parquet":
        rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
        return rows
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_every_format_round_trips(suffix: str, tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    import asyncio

    store = tmp_path / "s.db"
    fake_openai.responder = prefers("Hello")
    asyncio.run(_record(fake_openai.url, store))
    fake_openai.responder = prefers("k\n")  # now the wrong one: a correct and an incorrect run of each request
    asyncio.run(_record(fake_openai.url, store))
    runner = CliRunner()
    for fmt in exporters:
        out = tmp_path / f"{fmt}{suffix}"
        result = runner.invoke(app, ["export", "--format", fmt, "-o", str(out), "--store", str(store)])
        assert result.exit_code == 0, result.output
        rows = _read(out)
        assert rows, fmt
        if fmt == "dpo":
            assert len(rows) == 2 and all(r["chosen_id"] != r["rejected_id"] for r in rows)
        if fmt == "sft":
            messages = rows[0]["messages"]  # a list of messages in Parquet too, as `datasets` writes it
            assert messages[-1]["role"] == "assistant" and messages[0]["role"] == "system"
    bad = runner.invoke(app, ["export", "--format", "nope", "-o", str(tmp_path / "x.jsonl"), "--store", str(store)])
    assert bad.exit_code == 2 and "known:" in bad.output


async def test_verl_masks_line_up_with_backend_token_ids(tmp_path: Path) -> None:
    server = FakeOpenAI(owned_by="vllm").start()
    server.default = Reply(content='{"winner": "A", "confidence": 1, "rationale": "r"}', token_ids=True)
    try:
        await _record(server.url, tmp_path / "s.db")
    finally:
        server.stop()
    from judgegraph.store import TrajectoryStore

    st = TrajectoryStore(tmp_path / "s.db")
    rows = list(exporters.get("verl")([st.get(r.id) for r in st.list_runs()]))
    assert rows and all(r["tokenization"] == "backend" for r in rows)
    for r in rows:
        assert r["prompt_ids"] == [1, 2, 3] and r["response_ids"] == [4, 5] and r["response_mask"] == [1, 1]
        # what verl's own datasets read: RLHFDataset the opening and the reward fields, MultiTurnSFTDataset the rest
        assert r["prompt"] == r["messages"][:2] and r["messages"][-1] == r["response"]
        assert r["data_source"] == "judgegraph/evidence" and r["reward_model"]["style"] == "rule"
        assert json.loads(r["reward_model"]["ground_truth"])["winner"] == 0
        assert r["extra_info"]["request_id"] in {"o", "o2"} and r["extra_info"]["trajectory_id"]


@pytest.mark.llm
async def test_verl_retokenizes_with_the_embedded_models_own_tokenizer(tmp_path: Path) -> None:
    # one agentic run (both candidate orders, each several turns) is what retokenizing needs; the server's
    # default threads (1 on 2 cores: llama.cpp's spin-waiting threads collapse beside other work)
    async with (
        EmbeddedServer() as server,
        Judge.load("agentic", store=tmp_path / "s.db", model_url=server.base_url) as j,
    ):
        await j.arun(OPEN)
    from judgegraph.store import TrajectoryStore

    st = TrajectoryStore(tmp_path / "s.db")
    rows = list(exporters.get("verl")([st.get(r.id) for r in st.list_runs()]))
    assert rows and all(r["tokenization"].startswith("retokenized:") for r in rows)
    for r in rows:
        assert len(r["response_ids"]) == len(r["response_mask"]) > 0 and r["prompt_ids"]
        assert r["response_mask"][-1] == 1  # the model's final reply
        if r["num_turns"] > 1:
            assert 0 in r["response_mask"]  # tool results between model turns are masked out


@pytest.mark.llm
def test_the_embedded_tokenizer_is_closed_before_exit() -> None:
    """llama.cpp's finalizer, left to the interpreter's exit, raised a TypeError there once its library was gone."""
    code = (
        "import llama_cpp\n"
        "from judgegraph.backends import embedded_model_path\n"
        "from judgegraph.backends._models import check_chat_template\n"
        "from judgegraph.output._export import _embedded_tokenizer\n"
        "check_chat_template(embedded_model_path())\n"
        "assert _embedded_tokenizer() is not None\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr


async def test_logprobs_are_asked_for_and_recorded(tmp_path: Path) -> None:
    server = FakeOpenAI(owned_by="vllm").start()
    server.default = Reply(content='{"winner": "A", "confidence": 1, "rationale": "r"}', logprobs=True)
    try:
        async with Judge.load("llm", store=tmp_path / "s.db", model_url=server.url) as j:
            t = await j.arun(OPEN)
    finally:
        server.stop()
    assert all(r["logprobs"] is True for r in server.requests)
    assert all(turn.logprobs and turn.logprobs[0]["token"] == "x" for turn in t.model_turns())
