"""`judgegraph judge --workers N`: one batch over several processes of this machine, one output file and one
store on the driver; the workers end with the driver, `kill -9` included."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

from typer.testing import CliRunner

from benchmarks.fake_openai import FakeOpenAI, Reply
from judgegraph.cli import app
from judgegraph.serving import ProcessJudge
from judgegraph.settings import Settings
from judgegraph.store import TrajectoryStore
from tests.owners import owner_process, wait_until

MATH = {"prompt": "What is 6*7?", "candidates": ["It is 41.", "6*7 = 42"], "reference": "42", "label": {"winner": 1}}


def test_cli_batch_over_worker_processes_into_one_store(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    lines = [json.dumps({**MATH, "id": f"m{i}"}) for i in range(10)]
    lines += [json.dumps({"id": "open", "prompt": "Greet.", "candidates": ["Hello!", "Hey."]}), '{"id": "broken", ']
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(lines) + "\n")
    out, store = tmp_path / "out.jsonl", tmp_path / "s.db"
    args = ["judge", str(src), "-o", str(out), "--model", fake_openai.url, "--store", str(store)]
    result = CliRunner().invoke(app, [*args, "--workers", "2", "--concurrency", "8"])
    assert result.exit_code == 1, result.output  # the broken line fails; the rest are judged
    rows = {r["id"] or "broken": r for r in map(json.loads, out.read_text().splitlines())}
    assert len(rows) == 12 and "invalid JSON" in rows["broken"]["error"]
    assert all(rows[f"m{i}"]["correct"] is True and rows[f"m{i}"]["decided_by"] == "evidence" for i in range(10))
    assert rows["open"]["valid"] and fake_openai.requests  # the model-decided one reached the model
    s = TrajectoryStore(store)
    assert s.count() == 11 and all(s.get(r["trajectory_id"]).status == "complete" for r in rows.values() if r["id"])
    s.close()


async def test_requests_spread_over_the_processes(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.default = Reply(content='{"winner": "A", "confidence": 0.9, "rationale": "fake"}', delay_s=0.2)
    settings = Settings(model_url=fake_openai.url, store_path=tmp_path / "s.db", max_retries=0)
    async with ProcessJudge("llm", settings, workers=2) as judge:
        assert len(set(judge.pids)) == 2 and os.getpid() not in judge.pids
        start = time.perf_counter()
        runs = await asyncio.gather(*(judge.arun({**MATH, "id": f"q{i}", "reference": None}) for i in range(8)))
        wall = time.perf_counter() - start
    assert sorted(t.request.id or "" for t in runs) == sorted(f"q{i}" for i in range(8))
    assert all(t.verdict is not None and t.verdict.valid for t in runs)
    assert wall < 8 * 2 * 0.2  # in flight together, not one after another (2 model calls each)


def test_workers_end_with_their_driver_killed(tmp_path: Path) -> None:
    script = (
        "import asyncio, sys\n"
        "from judgegraph.serving import ProcessJudge\n"
        "from judgegraph.settings import Settings\n"
        "async def main():\n"
        f"    settings = Settings(store_path={str(tmp_path / 's.db')!r})\n"
        "    async with ProcessJudge('evidence', settings, workers=2) as judge:\n"
        "        print(*judge.pids, flush=True)\n"
        "        await asyncio.sleep(3600)\n"
        "asyncio.run(main())\n"
    )
    with owner_process(script) as line:
        pids = [int(p) for p in line.split()]
        assert len(pids) == 2
    assert wait_until(lambda: not any(_alive(p) for p in pids), 20, 0.1)


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def test_workers_load_a_spec_given_in_python_and_say_why_a_judge_cannot_load(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    import pytest

    from judgegraph.agents import judges
    from judgegraph.errors import JudgegraphError

    settings = Settings(model_url=fake_openai.url, store_path=tmp_path / "s.db", max_retries=0)
    spec = judges.get("evidence").model_copy(update={"name": "evidence-one-order", "both_orders": False})
    async with ProcessJudge(spec, settings, workers=2) as judge:  # a spec the workers' registry does not hold
        t = await judge.arun({**MATH, "id": "s"})
    assert t.judge == "evidence-one-order" and t.correct and t.verdict is not None
    with pytest.raises(JudgegraphError, match="unknown judge 'nope'"):
        async with ProcessJudge("nope", settings, workers=1):
            pass
