from __future__ import annotations

import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from judgegraph.errors import RunNotFoundError, StoreError
from judgegraph.graphs._recorder import Recorder
from judgegraph.schema import JudgeRequest, ToolCall, ToolResult, Trajectory, Verdict
from judgegraph.store import SCHEMA_VERSION, TrajectoryStore


def _trajectory(i: int, *, tool: str | None = None, winner: int = 0) -> Trajectory:
    request = JudgeRequest(id=f"r{i}", prompt="p", candidates=["a", "b"], label=0)
    t = Trajectory(judge="evidence" if i % 2 == 0 else "other", request=request, label=request.label)
    recorder = Recorder(t)  # the events as a run records them
    if tool:
        call = ToolCall(name=tool)
        recorder.tool_call(call, "tools")
        recorder.tool_result(ToolResult(call_id=call.id, name=tool, ok=True), "tools")
    verdict = Verdict(valid=True, winner=winner, scores=[1.0, 0.0] if winner == 0 else [0.0, 1.0], decided_by="model")
    recorder.verdict(verdict, "finalize")
    t.verdict, t.status, t.ended_at, t.duration_s = verdict, "complete", datetime.now(UTC), 0.1
    return t


def test_schema_is_versioned_and_wal(store_path: Path) -> None:
    store = TrajectoryStore(store_path)
    assert store.schema_version == SCHEMA_VERSION
    assert sqlite3.connect(store_path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()
    TrajectoryStore(store_path).close()  # reopening migrates nothing and fails nothing


def test_an_older_store_is_migrated_with_its_runs_and_events(tmp_path: Path) -> None:
    """A store of schema 1 (events in a WITHOUT ROWID table) opens at the current schema, every run and event
    as it was."""
    from judgegraph.store._sqlite import MIGRATIONS

    written = [_trajectory(i, tool="match_reference") for i in range(3)]
    current = TrajectoryStore(tmp_path / "current.db")
    for t in written:
        current.start_run(t)
        current.finish_run(t)
    current.close()
    old = tmp_path / "old.db"
    conn = sqlite3.connect(old)
    conn.executescript(MIGRATIONS[0] + "PRAGMA user_version=1;")
    conn.execute("ATTACH DATABASE ? AS current", (str(tmp_path / "current.db"),))
    conn.execute("INSERT INTO main.runs SELECT * FROM current.runs")
    conn.execute("INSERT INTO main.events SELECT * FROM current.events")
    conn.commit()
    conn.close()
    assert "WITHOUT ROWID" in _events_table_sql(old)

    store = TrajectoryStore(old)
    assert store.schema_version == SCHEMA_VERSION
    assert "WITHOUT ROWID" not in _events_table_sql(old)
    for t in written:
        assert store.get(t.id) == t
    assert len(store.list_runs(tool="match_reference")) == 3
    store.close()


def _events_table_sql(path: Path) -> str:
    conn = sqlite3.connect(path)
    (sql,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'events'").fetchone()
    conn.close()
    return str(sql)


def test_a_newer_schema_is_refused(store_path: Path) -> None:
    TrajectoryStore(store_path).close()
    conn = sqlite3.connect(store_path)
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        TrajectoryStore(store_path)


def test_round_trip_and_prefix_lookup(store_path: Path) -> None:
    store = TrajectoryStore(store_path)
    t = _trajectory(0, tool="match_reference")
    store.start_run(t)
    store.finish_run(t)
    assert store.get(t.id) == t
    assert store.get(t.id[:10]).id == t.id
    with pytest.raises(RunNotFoundError):
        store.get("run_nope")


def test_a_run_that_never_finished_says_so(store_path: Path) -> None:
    store = TrajectoryStore(store_path)
    t = Trajectory(judge="evidence", request=JudgeRequest(id="r", prompt="p", candidates=["a", "b"]))
    store.start_run(t)  # the process dies here
    store.close()
    again = TrajectoryStore(store_path)
    (summary,) = again.list_runs()
    assert summary.status == "running" and summary.valid is None
    assert again.get(t.id).events == []


def test_filters(store_path: Path) -> None:
    store = TrajectoryStore(store_path)
    for i in range(6):
        t = _trajectory(i, tool="match_reference" if i < 2 else None, winner=0 if i < 4 else 1)
        store.start_run(t)
        store.finish_run(t)
    assert store.count() == 6
    assert len(store.list_runs(judge="evidence")) == 3
    assert len(store.list_runs(correct=False)) == 2
    assert len(store.list_runs(correct=True, judge="other")) == 2
    assert len(store.list_runs(tool="match_reference")) == 2
    assert len(store.list_runs(since=datetime.now(UTC) + timedelta(hours=1))) == 0
    assert len(store.list_runs(limit=4)) == 4


def test_concurrent_writers_from_threads_and_connections(store_path: Path) -> None:
    stores = [TrajectoryStore(store_path) for _ in range(3)]
    errors: list[BaseException] = []

    def write(store: TrajectoryStore, k: int) -> None:
        try:
            for i in range(20):
                t = _trajectory(k * 100 + i, tool="match_reference")
                store.start_run(t)
                store.finish_run(t)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=write, args=(stores[k % 3], k)) for k in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    assert stores[0].count() == 120
    assert sqlite3.connect(store_path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_artifacts_are_content_addressed(store_path: Path) -> None:
    store = TrajectoryStore(store_path)
    h1 = store.put_artifact(b"\x89PNG...", "image/png")
    h2 = store.put_artifact(b"\x89PNG...", "image/png")
    assert h1 == h2 and store.get_artifact(h1) == (b"\x89PNG...", "image/png")
    assert store.get_artifact("0" * 64) is None


def _write_runs(path: str, k: int) -> None:
    store = TrajectoryStore(path)
    for i in range(25):
        t = _trajectory(k * 1000 + i, tool="match_reference")
        store.start_run(t)
        store.finish_run(t)
    store.close()


def test_concurrent_writer_processes(store_path: Path) -> None:
    import multiprocessing

    TrajectoryStore(store_path).close()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write_runs, args=(str(store_path), k)) for k in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    store = TrajectoryStore(store_path)
    assert store.count() == 100 and all(r.status == "complete" for r in store.list_runs(limit=200))
    assert sqlite3.connect(store_path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


async def test_runs_finished_together_commit_together_and_a_bad_one_fails_alone(store_path: Path) -> None:
    import asyncio

    store = TrajectoryStore(store_path)
    started = [_trajectory(i) for i in range(20)]
    for t in started:
        await store.astart_run(t)
    stray = _trajectory(99)  # never started: its finish has no row to update
    outcomes = await asyncio.gather(
        *(store.afinish_run(t) for t in [*started[:10], stray, *started[10:]]), return_exceptions=True
    )
    assert [type(o).__name__ for o in outcomes] == ["NoneType"] * 10 + ["StoreError"] + ["NoneType"] * 10
    assert store.count() == 20 and all(store.get(t.id).verdict == t.verdict for t in started)
    store.close()


def test_writers_take_turns_across_processes_on_the_stores_lock_file(store_path: Path) -> None:
    import fcntl
    import time

    store = TrajectoryStore(store_path)
    with open(f"{store_path}.lock") as other:  # another process's write turn, as far as flock can tell
        fcntl.flock(other, fcntl.LOCK_EX)
        writer = threading.Thread(target=store.start_run, args=(_trajectory(1),))
        writer.start()
        time.sleep(0.3)
        assert writer.is_alive()  # waiting for its turn, not racing SQLite's lock
        fcntl.flock(other, fcntl.LOCK_UN)
        writer.join(timeout=10)
    assert not writer.is_alive() and store.count() == 1
    store.close()
