"""Scale-out on Ray, end to end on a local Ray instance: actors judge, the driver records everything."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import ray
from typer.testing import CliRunner

from benchmarks.fake_openai import FakeOpenAI, Reply, prefers
from judgegraph import JudgeRequest
from judgegraph.cli import app
from judgegraph.errors import JudgegraphError, RemoteRunError
from judgegraph.serving._ray import RayJudge, ShippingArtifacts
from judgegraph.settings import Settings
from judgegraph.store import TrajectoryStore
from tests.conftest import demo_rows

pytestmark = pytest.mark.ray

ROOT = Path(__file__).resolve().parent.parent
MATH = {"prompt": "What is 2+2?", "candidates": ["It is 4", "It is 5"], "reference": "4", "label": {"winner": 0}}


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_shipping_artifacts_keep_only_what_runs_in_flight_can_need() -> None:
    sink = ShippingArtifacts()
    a = sink.begin()
    old = sink.put_artifact(b"old", "image/png")
    b = sink.begin()
    shared = sink.put_artifact(b"shared", "image/png")
    shipped = sink.end(a, json.dumps({"image": f"artifact:sha256:{old}", "other": shared}))
    assert sorted(x.data for x in shipped) == [b"old", b"shared"]
    # `old` was stored before run b began, so b cannot refer to it; `shared` was stored while b ran.
    assert sink.get_artifact(old) is None and sink.get_artifact(shared) == (b"shared", "image/png")
    assert [x.digest for x in sink.end(b, f'"{shared}"')] == [shared]
    assert sink.held == 0


def test_cli_batch_over_ray_actors_into_one_store(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """`judgegraph judge --ray` starts its own local Ray, spreads the batch, and collects every line and
    trajectory (images included) on the driver."""
    demo = list(demo_rows().values())
    lines = [json.dumps({**MATH, "id": f"m{i}"}) for i in range(6)]
    image = next(r for r in demo if r["id"] == "image-ocr")
    image["images"] = [str(ROOT / "examples" / p) for p in image["images"]]
    lines += [json.dumps(image), '{"id": "broken", ']
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(lines) + "\n")
    out, store = tmp_path / "out.jsonl", tmp_path / "s.db"
    args = ["judge", str(src), "-o", str(out), "--model", fake_openai.url, "--store", str(store)]
    result = CliRunner().invoke(app, [*args, "--ray", "--ray-actors", "2", "--concurrency", "4"])
    assert result.exit_code == 1, result.output  # the broken line fails; the rest are judged
    rows = {r["id"] or "broken": r for r in map(json.loads, out.read_text().splitlines())}
    assert len(rows) == 8 and "invalid JSON" in rows["broken"]["error"]
    judged = [r for r in rows.values() if r["id"] is not None]
    assert all(r["valid"] and r["error"] is None for r in judged)
    assert all(rows[f"m{i}"]["correct"] is True for i in range(6))
    s = TrajectoryStore(store)
    assert s.count() == 7 and not ray.is_initialized()  # the CLI's own Ray instance is shut down
    t = s.get(rows["image-ocr"]["trajectory_id"])
    assert t.status == "complete" and t.request.images == image["images"]
    digests = set(re.findall(r"[0-9a-f]{64}", t.model_dump_json()))
    assert digests and all(s.get_artifact(d) is not None for d in digests)  # the zoomed crop came with its run


async def test_runs_spread_over_actors_and_crashes_come_back_recorded(
    local_ray: None, tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    fake_openai.default = Reply(content='{"winner": "A", "confidence": 0.9, "rationale": "fake"}', delay_s=0.05)
    settings = Settings(model_url=fake_openai.url, store_path=tmp_path / "s.db", max_retries=0)
    open_q = {"prompt": "Greet.", "candidates": ["Hello!", "Hey."]}
    async with RayJudge("evidence", settings, actors=2, concurrency=8) as judge:
        assert judge.actors == 2 and len(judge.nodes) == 2
        trajectories = await asyncio.gather(*(judge.arun({**open_q, "id": f"q{i}"}) for i in range(16)))
        assert sorted(t.request.id or "" for t in trajectories) == sorted(f"q{i}" for i in range(16))

        def break_a_node(worker: object) -> None:  # runs inside the actor: a bug in one of the judge's nodes
            def boom(*a: object) -> None:
                raise RuntimeError("bug in weigh_evidence")

            import judgegraph.graphs.evidence.nodes as nodes

            # the node module imports it by name: the bug goes in there
            nodes.decide_from_evidence = boom  # type: ignore[attr-defined, assignment]

        await asyncio.gather(*(a.__ray_call__.remote(break_a_node) for a in judge._actors))
        with pytest.raises(RemoteRunError, match="bug in weigh_evidence"):
            await judge.arun(JudgeRequest.model_validate({**open_q, "id": "down"}))
    store = TrajectoryStore(tmp_path / "s.db")
    runs = {r.request_id: r for r in store.list_runs(limit=100)}
    assert len(runs) == 17 and runs["down"].status == "incomplete"
    assert all(runs[f"q{i}"].status == "complete" for i in range(16))
    assert store.get(runs["q0"].id).events  # the whole trajectory, not a summary


async def test_a_killed_actor_is_restarted_and_no_run_is_lost(
    local_ray: None, tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    slow_and_consistent = prefers("Hello!")
    fake_openai.responder = lambda body: replace(slow_and_consistent(body), delay_s=1.0)
    settings = Settings(model_url=fake_openai.url, store_path=tmp_path / "s.db")
    open_q = {"prompt": "Greet.", "candidates": ["Hey.", "Hello!"]}
    async with RayJudge("evidence", settings, actors=2, concurrency=8) as judge:
        runs = [asyncio.ensure_future(judge.arun({**open_q, "id": f"q{i}"})) for i in range(12)]
        await asyncio.sleep(0.5)
        ray.kill(judge._actors[0], no_restart=False)  # a worker dies mid-batch
        trajectories = await asyncio.gather(*runs)
    assert all(t.status == "complete" and t.verdict and t.verdict.winner == 1 for t in trajectories)
    assert len(fake_openai.requests) > 2 * 12  # runs in flight on the killed actor were retried
    store = TrajectoryStore(tmp_path / "s.db")
    ids = [r.request_id for r in store.list_runs(limit=100)]
    assert sorted(ids) == sorted(f"q{i}" for i in range(12))  # each once: lost attempts were never recorded


async def test_more_actors_than_the_cluster_holds_is_a_clear_error(local_ray: None, tmp_path: Path) -> None:
    settings = Settings(model_url="http://127.0.0.1:9/v1", store_path=tmp_path / "s.db")
    with pytest.raises(JudgegraphError, match=r"3 judge actors of 1 CPU each do not fit .* \(2 CPUs\)"):
        async with RayJudge("evidence", settings, actors=3):
            pass
    assert ray.is_initialized()  # a Ray instance this process did not start is left running


def test_without_ray_installed_the_flag_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(MATH) + "\n")
    result = CliRunner().invoke(app, ["judge", str(src), "-o", str(tmp_path / "o.jsonl"), "--ray"])
    assert result.exit_code == 2 and "pip install 'judgegraph[ray]'" in result.output
