"""Replay: a recorded run re-run with no model and no tools reproduces itself; a swapped tool result changes
the verdict; a changed recording is reported at its first divergence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from benchmarks.fake_openai import FakeOpenAI, Reply, prefers
from judgegraph import Judge
from judgegraph.cli import app
from judgegraph.runtime._batch import resolve_paths
from judgegraph.schema import JudgeRequest, ModelTurn, ToolResultEvent, Trajectory
from tests.conftest import ROOT, demo_rows

EXAMPLES = list(demo_rows().values())


def _example(key: str) -> dict[str, Any]:
    ex = next(e for e in EXAMPLES if e["id"] == key)
    return resolve_paths(JudgeRequest.model_validate(ex), ROOT / "examples").model_dump()


@pytest.mark.parametrize(
    ("judge_name", "keys"),
    [
        ("evidence", ["math-mult", "code", "constraints", "document-claims", "image-ocr", "open-ended", "pointwise"]),
        ("skill", ["fraction", "open-ended"]),
        ("agentic", ["math-mult", "open-ended"]),
        ("rubric", ["open-ended", "constraints"]),
        ("propositions", ["document-logic"]),
    ],
)
async def test_runs_of_every_judge_replay_exactly(judge_name: str, keys: list[str], tmp_path: Path) -> None:
    server = FakeOpenAI(owned_by="vllm").start()
    chooser = prefers("descriptive")

    def respond(body: dict[str, Any]) -> Reply:
        name = body.get("response_format", {}).get("json_schema", {}).get("name")
        if name == "rubric":
            return Reply(content='{"criteria": [{"name": "clarity", "description": "clear", "weight": 2}]}')
        if body.get("tools") and not any(m["role"] == "tool" for m in body["messages"]):
            return Reply(tool_calls=[("match_reference", '{"candidate": 0}')], finish_reason="tool_calls")
        return chooser(body)

    server.responder = respond
    try:
        async with Judge.load(judge_name, store=tmp_path / "r.db", model_url=server.url) as judge:
            for key in keys:
                original = await judge.arun(_example(key))
                report = await judge.areplay(original)
                assert report.identical, (key, report.divergence)
                assert report.unused_model_turns == 0 and report.unused_tool_results == 0
                assert report.replay.verdict is not None and original.verdict is not None
                assert report.replay.verdict.model_dump(exclude={"criteria"}) == original.verdict.model_dump(
                    exclude={"criteria"}
                )
    finally:
        server.stop()


async def test_swapping_a_decisive_tool_result_changes_the_verdict(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=fake_openai.url) as judge:
        original = await judge.arun(_example("math-mult"))
        assert original.verdict is not None and original.verdict.winner == 0
        event = next(
            e
            for e in original.events
            if isinstance(e, ToolResultEvent) and e.result.data and e.result.data["candidate"] == 1
        )
        flipped = event.result.model_copy(update={"data": {**event.result.data, "equivalent": True}})  # type: ignore[dict-item]
        first = next(
            e
            for e in original.events
            if isinstance(e, ToolResultEvent) and e.result.data and e.result.data["candidate"] == 0
        )
        lost = first.result.model_copy(update={"data": {**first.result.data, "equivalent": False}})  # type: ignore[dict-item]
        report = await judge.areplay(original, overrides={event.seq: flipped, first.seq: lost}, record=True)
    assert not report.identical and report.replay.verdict is not None and report.replay.verdict.winner == 1
    assert "verdict" in (report.divergence or "")


async def test_an_edited_recording_is_reported_at_its_first_divergence(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = prefers("descriptive")
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=fake_openai.url) as judge:
        original = await judge.arun(_example("open-ended"))
        edited = original.model_copy(deep=True)
        turn = next(e for e in edited.events if isinstance(e, ModelTurn))
        turn.text = '{"winner": "tie", "confidence": 0.1, "rationale": "edited"}'
        report = await judge.areplay(edited)
    assert not report.identical and (report.divergence or "").startswith("verdict")  # the edit changes the ruling


def test_cli_replay_exit_codes_and_override(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    runner = CliRunner()
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(_example("math-mult")) + "\n")
    store = tmp_path / "s.db"
    out = tmp_path / "o.jsonl"
    assert (
        runner.invoke(
            app, ["judge", str(src), "-o", str(out), "--model", fake_openai.url, "--store", str(store)]
        ).exit_code
        == 0
    )
    run_id = json.loads(out.read_text())["trajectory_id"]
    same = runner.invoke(app, ["replay", run_id, "--store", str(store)], env={"COLUMNS": "200"})
    assert same.exit_code == 0 and "identical" in same.output
    from judgegraph.store import TrajectoryStore

    original = TrajectoryStore(store).get(run_id)
    event = next(e for e in original.events if isinstance(e, ToolResultEvent))
    override = tmp_path / "override.json"
    override.write_text(
        event.result.model_copy(
            update={"ok": False, "data": None, "error": "swapped", "error_kind": "execution"}
        ).model_dump_json()
    )
    changed = runner.invoke(
        app,
        ["replay", run_id, "--store", str(store), "--override", f"{event.seq}={override}", "--save"],
        env={"COLUMNS": "200"},
    )
    assert changed.exit_code == 1 and "diverged" in changed.output and "(saved)" in changed.output
    assert TrajectoryStore(store).count() == 2


def test_cli_diff(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    runner = CliRunner()
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(_example("math-mult")) + "\n" + json.dumps(_example("fraction")) + "\n")
    store, out = tmp_path / "s.db", tmp_path / "o.jsonl"
    runner.invoke(app, ["judge", str(src), "-o", str(out), "--model", fake_openai.url, "--store", str(store)])
    a, b = (json.loads(line)["trajectory_id"] for line in out.read_text().splitlines())
    replayed = runner.invoke(app, ["replay", a, "--store", str(store), "--save"], env={"COLUMNS": "200"})
    replay_id = replayed.output.split("replay   ")[1].split(":")[0]
    same = runner.invoke(app, ["diff", a, replay_id, "--store", str(store)], env={"COLUMNS": "200"})
    assert same.exit_code == 0 and "same" in same.output
    other = runner.invoke(app, ["diff", a, b, "--store", str(store)], env={"COLUMNS": "200"})
    assert other.exit_code == 1 and "first divergence" in other.output


async def test_replay_from_a_step_runs_the_rest_live(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = prefers("descriptive")
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=fake_openai.url) as judge:
        original = await judge.arun(_example("open-ended"))
        assert original.verdict is not None and original.verdict.winner == 0
        first_turn = next(e.seq for e in original.events if isinstance(e, ModelTurn))
        asked = len(fake_openai.requests)
        fake_openai.responder = prefers("code\n")  # the live model now prefers the other answer
        same = await judge.areplay(original, from_step=first_turn + 100)  # everything recorded: nothing live
        live = await judge.areplay(original, from_step=first_turn)
    assert same.identical and len(fake_openai.requests) == asked + 2  # only the live replay asked the model
    assert live.replay.verdict is not None and live.replay.verdict.winner == 1 and not live.identical


async def test_a_hundred_recorded_runs_replay_exactly(tmp_path: Path) -> None:
    from judgegraph.evals import constraint_pairs, length_bias_pairs, math_pairs

    server = FakeOpenAI(owned_by="vllm").start()
    server.responder = prefers("the")
    requests = [*math_pairs(25), *constraint_pairs(25), *length_bias_pairs(10)]
    chat = [
        {"id": f"chat{i}", "prompt": "Say something kind.", "candidates": [f"the kind word {i}", f"a word {i}"]}
        for i in range(10)
    ]
    try:
        runs: list[tuple[str, Trajectory]] = []
        grounded = [_example(k) for k in ("document-claims", "document-logic")]
        batches: tuple[tuple[str, list[Any]], ...] = (
            ("evidence", requests),
            ("skill", requests[:20] + chat[:5]),
            ("llm", chat[5:]),
            ("agentic", [requests[0], requests[30], chat[0], chat[1]]),
            ("rubric", [chat[2], chat[3], chat[4], chat[6]]),
            ("propositions", grounded),
        )
        for judge_name, batch in batches:
            async with Judge.load(judge_name, store=tmp_path / "r.db", model_url=server.url) as judge:
                for request in batch:
                    runs.append((judge_name, await judge.arun(request)))
        assert len(runs) == 100 and {name for name, _ in runs} == {
            "evidence",
            "skill",
            "llm",
            "agentic",
            "rubric",
            "propositions",
        }
        for judge_name, original in runs:
            async with Judge.load(judge_name, store=False, model_url=server.url) as judge:
                report = await judge.areplay(original)
            assert report.identical, (judge_name, original.request.id, report.divergence)
    finally:
        server.stop()


async def test_replay_many_across_processes(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    import asyncio

    from judgegraph.runtime import replay_many

    fake_openai.responder = prefers("descriptive")
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url=fake_openai.url) as judge:
        ids = [(await judge.arun(_example(k))).id for k in ("math-mult", "open-ended", "constraints", "code")]
    results, elapsed = await asyncio.to_thread(replay_many, str(tmp_path / "r.db"), "evidence", ids, 2)
    assert sorted(r[0] for r in results) == sorted(ids) and all(same for _, same, _ in results) and elapsed > 0


@pytest.mark.llm
async def test_a_batch_on_the_embedded_model_exports_replays_and_answers_counterfactuals(tmp_path: Path) -> None:
    """End to end: judge with the embedded model, export every format, replay exactly, swap a decisive result."""
    from judgegraph.backends import EmbeddedServer
    from judgegraph.output._export import export, exporters
    from judgegraph.store import TrajectoryStore

    async with (
        EmbeddedServer() as server,
        Judge.load("evidence", store=tmp_path / "r.db", model_url=server.base_url) as judge,
    ):
        runs = [
            await judge.arun(_example(k)) for k in ("math-mult", "code", "constraints", "open-ended", "document-claims")
        ]
        for t in runs:
            report = await judge.areplay(t)
            assert report.identical, (t.request.id, report.divergence)
        decisive = next(
            e
            for e in runs[0].events
            if isinstance(e, ToolResultEvent) and e.result.data and e.result.data["candidate"] == 0
        )
        swapped = decisive.result.model_copy(update={"data": {**decisive.result.data, "equivalent": False}})  # type: ignore[dict-item]
        other = next(
            e
            for e in runs[0].events
            if isinstance(e, ToolResultEvent) and e.result.data and e.result.data["candidate"] == 1
        )
        won = other.result.model_copy(update={"data": {**other.result.data, "equivalent": True}})  # type: ignore[dict-item]
        counterfactual = await judge.areplay(runs[0], overrides={decisive.seq: swapped, other.seq: won})
    assert runs[0].verdict is not None and counterfactual.replay.verdict is not None
    assert counterfactual.replay.verdict.winner == 1 - runs[0].verdict.winner  # type: ignore[operator]
    stored = [TrajectoryStore(tmp_path / "r.db").get(t.id) for t in runs]
    for fmt in exporters:
        for suffix in (".jsonl", ".parquet"):
            assert export(stored, fmt, tmp_path / f"{fmt}{suffix}") >= (0 if fmt == "dpo" else 1), fmt
