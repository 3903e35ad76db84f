from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from benchmarks.fake_openai import FakeOpenAI, Reply
from judgegraph.backends import free_port
from judgegraph.cli import app

runner = CliRunner()

GOOD = {"id": "ok", "prompt": "2+2?", "candidates": ["It is 4", "It is 5"], "reference": "4", "label": {"winner": 0}}
OPEN = {"id": "open", "prompt": "Greet.", "candidates": ["Hello!", "Hey."]}


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def _outputs(path: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return {str(r["id"] if r["id"] is not None else f"line{r['line']}"): r for r in rows}


def test_judge_contract_and_exit_zero(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    src = _write(tmp_path / "in.jsonl", [json.dumps(GOOD), "", json.dumps(OPEN)])
    out = tmp_path / "out.jsonl"
    args = ["judge", str(src), "-o", str(out), "--model", fake_openai.url, "--store", str(tmp_path / "s.db")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = _outputs(out)
    assert set(rows) == {"ok", "open"}
    for row in rows.values():
        assert {"id", "winner", "scores", "valid", "trajectory_id"} <= set(row)
        assert row["valid"] is True and row["error"] is None and str(row["trajectory_id"]).startswith("run_")
    assert rows["ok"]["winner"] == 0 and rows["ok"]["scores"] == [1.0, 0.0] and rows["ok"]["correct"] is True
    assert rows["open"]["decided_by"] == "model"
    assert "judgegraph show run_" in result.output


def test_bad_lines_get_error_lines_and_the_batch_goes_on(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    lines = [
        json.dumps(GOOD),
        '{"id": "broken", "prompt": ',
        json.dumps({"id": "nocands", "prompt": "p"}),
        json.dumps({"id": "wrongtype", "prompt": "p", "candidates": "not a list"}),
        json.dumps({**GOOD, "id": "last"}),
    ]
    src = _write(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    args = ["judge", str(src), "-o", str(out), "--model", fake_openai.url, "--store", str(tmp_path / "s.db")]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    rows = _outputs(out)
    assert set(rows) == {"ok", "line2", "nocands", "wrongtype", "last"}
    assert "invalid JSON" in str(rows["line2"]["error"])
    assert "candidates" in str(rows["nocands"]["error"]) and rows["nocands"]["line"] == 3
    assert rows["wrongtype"]["error"] and rows["wrongtype"]["trajectory_id"] is None
    assert rows["ok"]["valid"] and rows["last"]["valid"]


def test_invalid_verdicts_are_reported_not_failed(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.default = Reply(content="never json")
    src = _write(tmp_path / "in.jsonl", [json.dumps(OPEN)])
    out = tmp_path / "out.jsonl"
    args = ["judge", str(src), "-o", str(out), "--model", fake_openai.url, "--store", str(tmp_path / "s.db")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    row = _outputs(out)["open"]
    assert row["valid"] is False and row["scores"] == [] and "no usable verdict" in str(row["invalid_reason"])


def test_a_judgment_past_its_budget_is_an_invalid_line_that_says_so(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.default = Reply(content="late", delay_s=2.0)
    src = _write(tmp_path / "in.jsonl", [json.dumps(OPEN), json.dumps(GOOD)])
    out = tmp_path / "out.jsonl"
    args = [
        "judge",
        str(src),
        "-o",
        str(out),
        "--model",
        fake_openai.url,
        "--store",
        str(tmp_path / "s.db"),
        "--budget",
        "0.5",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = _outputs(out)
    assert rows["open"]["valid"] is False and "budget of 0.5 s" in str(rows["open"]["invalid_reason"])
    assert rows["ok"]["valid"] is True and rows["ok"]["correct"] is True  # decided by evidence, within budget


def test_endpoint_down_fails_only_the_requests_that_need_the_model(tmp_path: Path) -> None:
    """Rule-decided requests never ask the model; one that needs it is invalid with the reason, the batch goes on."""
    src = _write(tmp_path / "in.jsonl", [json.dumps(GOOD), json.dumps(OPEN)])
    url = f"http://127.0.0.1:{free_port()}/v1"
    out = tmp_path / "o.jsonl"
    result = runner.invoke(app, ["judge", str(src), "-o", str(out), "--model", url, "--store", str(tmp_path / "s.db")])
    assert result.exit_code == 0, result.output
    rows = _outputs(out)
    assert rows["ok"]["valid"] is True and rows["ok"]["correct"] is True
    assert rows["open"]["valid"] is False
    assert (
        "no model is reachable" in rows["open"]["invalid_reason"]
        and "does not answer" in rows["open"]["invalid_reason"]
    )


def test_missing_input_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["judge", str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "o.jsonl")])
    assert result.exit_code == 2 and "nope.jsonl" in result.output


def test_runs_and_show(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    store = tmp_path / "s.db"
    src = _write(tmp_path / "in.jsonl", [json.dumps(GOOD), json.dumps(OPEN)])
    runner.invoke(
        app, ["judge", str(src), "-o", str(tmp_path / "o.jsonl"), "--model", fake_openai.url, "--store", str(store)]
    )
    listed = runner.invoke(app, ["runs", "--store", str(store)], env={"COLUMNS": "200"})
    assert listed.exit_code == 0 and "2 of 2 runs" in listed.output
    only_tool = runner.invoke(app, ["runs", "--store", str(store), "--tool", "match_reference"], env={"COLUMNS": "200"})
    assert "1 of 2 runs" in only_tool.output
    for flags, listed_runs in (
        (["--valid"], 2),  # the model rules the open question
        (["--invalid"], 0),
        (["--correct"], 1),  # only the reference question is labelled
        (["--incorrect"], 0),
        (["--judge", "evidence"], 2),
        (["--judge", "nobody"], 0),
        (["--since", "2999-01-01"], 0),
    ):
        filtered = runner.invoke(app, ["runs", "--store", str(store), *flags], env={"COLUMNS": "200"})
        assert f"{listed_runs} of 2 runs" in filtered.output, (flags, filtered.output)
        exported = tmp_path / "e.jsonl"
        done = runner.invoke(app, ["export", "--format", "rewards", "-o", str(exported), "--store", str(store), *flags])
        assert done.exit_code == 0, done.output  # the same filters, the same runs (complete ones exported)
        assert len(exported.read_text().splitlines()) == listed_runs
    run_id = _outputs(tmp_path / "o.jsonl")["ok"]["trajectory_id"]
    shown = runner.invoke(app, ["show", str(run_id), "--store", str(store)], env={"COLUMNS": "200"})
    assert shown.exit_code == 0
    assert "path: evidence\n" in shown.output
    assert "tool result" in shown.output and "verdict" in shown.output
    as_json = runner.invoke(app, ["show", str(run_id), "--store", str(store), "--json"])
    assert json.loads(as_json.stdout)["id"] == run_id
    missing = runner.invoke(app, ["show", "run_nope", "--store", str(store)])
    assert missing.exit_code == 2 and "no run" in missing.output


def test_graph_drawings_are_offline(tmp_path: Path) -> None:
    mermaid = runner.invoke(app, ["graph", "evidence"])
    assert mermaid.exit_code == 0
    for edge in ("__start__ --> evidence", "evidence -.-> deliberate", "deliberate -.-> deliberate"):
        assert edge in mermaid.output
    svg, png = tmp_path / "g.svg", tmp_path / "g.png"
    assert runner.invoke(app, ["graph", "evidence", "--format", "svg", "-o", str(svg)]).exit_code == 0
    assert svg.read_text().lstrip().startswith("<?xml") and "deliberate" in svg.read_text()
    assert runner.invoke(app, ["graph", "evidence", "--format", "png", "-o", str(png)]).exit_code == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    unknown = runner.invoke(app, ["graph", "nope"])
    assert unknown.exit_code == 2 and "known: " in unknown.output and "evidence" in unknown.output


def test_judges_lists_the_builtin_judge() -> None:
    result = runner.invoke(app, ["judges"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "evidence" in result.output and "match_reference" in result.output


def test_bad_settings_are_a_clear_error(tmp_path: Path) -> None:
    src = _write(tmp_path / "in.jsonl", [json.dumps(GOOD)])
    result = runner.invoke(app, ["judge", str(src), "-o", str(tmp_path / "o.jsonl"), "--checkpoints", "bogus"])
    assert result.exit_code == 2 and "'off', 'incomplete' or 'all'" in result.output


def test_checkpoints_flag(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    src = _write(tmp_path / "in.jsonl", [json.dumps(GOOD)])
    store = tmp_path / "s.db"
    args = ["judge", str(src), "-o", str(tmp_path / "o.jsonl"), "--model", fake_openai.url, "--store", str(store)]
    result = runner.invoke(app, [*args, "--checkpoints", "all", "--sandbox", "process"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "s.checkpoints.db").exists()


def test_resume_skips_finished_lines_and_drops_a_cut_off_one(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    lines = [json.dumps({**GOOD, "id": f"q{i}"}) for i in range(5)]
    src = _write(tmp_path / "in.jsonl", lines[:3])
    out = tmp_path / "out.jsonl"
    args = ["--model", fake_openai.url, "--store", str(tmp_path / "s.db")]
    assert runner.invoke(app, ["judge", str(src), "-o", str(out), *args]).exit_code == 0
    with out.open("a") as f:
        f.write('{"id": "q9", "line": 9, "winn')  # an interrupted write
    _write(src, lines)
    result = runner.invoke(app, ["judge", str(src), "-o", str(out), "--resume", *args])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == ["q0", "q1", "q2", "q3", "q4"]  # nothing lost, nothing twice
    from judgegraph.store import TrajectoryStore

    assert TrajectoryStore(tmp_path / "s.db").count() == 5  # the first three were not judged again
