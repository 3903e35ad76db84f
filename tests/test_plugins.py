"""Plugins: the example plugin package (examples/plugin, installed by `make setup` as a user would with pip) adds a
tool and a judge by entry point, and the CLI, the server, the viewer and the evals see them with no change to
judgegraph; a broken plugin is reported by name and breaks nothing else; `--judge` takes a judge folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from benchmarks.fake_openai import FakeOpenAI, Reply
from judgegraph import Judge
from judgegraph.agents import judges, resolve_judge
from judgegraph.cli import app
from judgegraph.errors import ConfigError
from judgegraph.registry import Registry
from judgegraph.schema import JudgeRequest, ToolCall, ToolCallEvent
from judgegraph.serving import ServerConfig, create_app
from judgegraph.tools import ToolContext, call_tool, tools
from tests.conftest import ROOT, demo_rows

runner = CliRunner()
REQUEST = {
    "id": "limit",
    "prompt": "In at most 5 words: what colour is the sky on a clear day?",
    "candidates": ["Blue.", "The sky on a clear day is a bright and lovely shade of blue."],
    "label": {"winner": 0},
}


def _counts_then_rules(body: dict[str, Any]) -> Reply:
    """An agentic model that counts words once, then rules for the response within the limit."""
    said = json.dumps(body["messages"])
    if "has 1 words" not in said and "has 14 words" not in said:
        call = {"action": "call", "tool": "count_words", "arguments": {"candidate": 0, "max_words": 5}}
        return Reply(content=json.dumps(call))
    first = body["messages"][1]["content"]
    short = "A" if first.find("Blue.") < first.find("bright and lovely") else "B"
    return Reply(content=json.dumps({"action": "verdict", "winner": short, "confidence": 0.9, "rationale": "counted"}))


def test_the_installed_plugin_adds_its_tool_and_judge() -> None:
    assert "concise" in judges and "count_words" in tools
    plugins = {p.name: p for p in Registry.by_group["judgegraph.judges"].plugins()}
    assert plugins["concise"].distribution == "judgegraph-example-plugin" and plugins["concise"].error is None
    spec = judges.get("concise")
    assert spec.graph == "agentic" and "count_words" in spec.tools and "count_words" in spec.prompts["agent_system"]
    listed = runner.invoke(app, ["plugins"])
    assert listed.exit_code == 0 and "count_words" in listed.output and "concise" in listed.output
    assert "concise" in runner.invoke(app, ["judges"]).output
    assert "count_words" in runner.invoke(app, ["tools"]).output


async def test_the_plugin_tool_runs_like_a_builtin() -> None:
    request = JudgeRequest.model_validate(REQUEST)
    ctx = ToolContext(request=request)
    result = await call_tool(ToolCall(name="count_words", arguments={"candidate": 1, "max_words": 5}), ctx)
    assert result.ok and result.data == {"candidate": 1, "words": 14, "within_limit": False}
    bad = await call_tool(ToolCall(name="count_words", arguments={"candidate": 7}), ctx)
    assert not bad.ok and "candidate 7 does not exist" in (bad.error or "")


def test_the_plugin_judge_in_the_cli_server_viewer_and_evals(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = _counts_then_rules
    requests = tmp_path / "in.jsonl"
    requests.write_text(json.dumps(REQUEST) + "\n")
    store = tmp_path / "runs.db"
    args = ["--judge", "concise", "--model", fake_openai.url, "--store", str(store)]
    judged = runner.invoke(app, ["judge", str(requests), "-o", str(tmp_path / "out.jsonl"), *args])
    assert judged.exit_code == 0, judged.output
    (line,) = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert line["winner"] == 0 and line["correct"] is True

    from judgegraph.store import TrajectoryStore

    trajectory = TrajectoryStore(store).get(line["trajectory_id"])
    assert trajectory.judge == "concise"
    assert any(isinstance(e, ToolCallEvent) and e.call.name == "count_words" for e in trajectory.events)

    with TestClient(create_app(ServerConfig(judge="concise"), model_url=fake_openai.url, store=False)) as client:
        reply = client.post("/v1/judge", json=REQUEST)
        assert reply.status_code == 200 and reply.json()["verdict"]["winner"] == 0

    from judgegraph.viz import create_app as viewer

    with TestClient(viewer(store)) as client:
        assert 'id="judge-concise"' in client.get("/judges").text
        assert "count_words" in client.get(f"/runs/{trajectory.id}").text

    evaluated = runner.invoke(app, ["eval", "math", "--limit", "1", "-o", str(tmp_path / "evals"), *args])
    assert evaluated.exit_code == 0, evaluated.output
    assert "concise on math: 1 judged" in evaluated.output


def _fake_distribution(root: Path, name: str, entry_points: str, module: str) -> None:
    """An installed distribution as importlib.metadata finds one on sys.path: a dist-info folder and a module."""
    info = root / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)
    (root / f"{name}.py").write_text(module)


def _cli(*args: str, path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{path}{os.pathsep}{ROOT}", "COLUMNS": "400"}
    return subprocess.run(
        [sys.executable, "-m", "judgegraph.cli", *args], capture_output=True, text=True, env=env, timeout=120
    )


def _listed_with_failing_plugin(root: Path, name: str, entry_points: str, module: str) -> str:
    """`judgegraph plugins` with a distribution whose entry points fail installed: it exits 1 (a plugin failed);
    its table, on one line."""
    _fake_distribution(root, name, entry_points, module)
    listed = _cli("plugins", path=root)
    assert listed.returncode == 1, listed.stderr
    return " ".join(listed.stdout.split())


def test_a_broken_plugin_is_named_and_breaks_nothing_else(tmp_path: Path) -> None:
    entry_points = (
        "[judgegraph.judges]\nbroken = broken_plugin:JUDGE\n[judgegraph.tools]\nwrong = broken_plugin:NOT_A_TOOL\n"
    )
    module = "NOT_A_TOOL = 3\nraise ImportError('needs a package that is not installed')\n"
    listed = _listed_with_failing_plugin(tmp_path, "broken_plugin", entry_points, module)
    assert "broken_plugin" in listed and "needs a package that is not installed" in listed
    assert "concise" in listed  # the working plugin still loads
    assert _cli("judges", path=tmp_path).returncode == 0
    assert "count_words" in _cli("tools", path=tmp_path).stdout
    drawn = _cli("graph", "broken", path=tmp_path)
    assert drawn.returncode == 2 and "plugin broken_plugin" in drawn.stderr and "failed to load" in drawn.stderr


def test_an_entry_point_that_names_no_component_is_refused(tmp_path: Path) -> None:
    entry_points = (
        "[judgegraph.tools]\nodd = odd_plugin:NOT_A_TOOL\n[judgegraph.judges]\nodd_judge = odd_plugin:NOT_A_JUDGE\n"
    )
    module = "NOT_A_TOOL = 3\nNOT_A_JUDGE = {'graph': 'evidence'}\n"
    listed = _listed_with_failing_plugin(tmp_path, "odd_plugin", entry_points, module)
    assert "the tools entry point 'odd' names 3, not a tool registered as 'odd' with @tool" in listed
    assert "a judges entry point names a JudgeSpec or a judge folder, not dict" in listed


def test_judge_takes_a_judge_folder(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    folder = tmp_path / "strict_math"
    folder.mkdir()
    (folder / "judge.toml").write_text(
        'extends = "evidence"\ndescription = "Math only, from a folder."\ntools = ["match_reference"]\n'
        "[prompts]\nsystem = 'system.md'\n"
    )
    (folder / "system.md").write_text("You judge math answers strictly.\n")
    spec = resolve_judge(str(folder))
    assert spec.name == "strict_math" and spec.tools == ["match_reference"]
    assert spec.prompts["system"].startswith("You judge math") and "pairwise" in spec.prompts  # the rest inherited
    math = demo_rows()["math-mult"]
    requests = tmp_path / "in.jsonl"
    requests.write_text(json.dumps(math) + "\n")
    out = tmp_path / "out.jsonl"
    store = str(tmp_path / "runs.db")
    done = runner.invoke(
        app,
        ["judge", str(requests), "-o", str(out), "--judge", str(folder), "--model", fake_openai.url, "--store", store],
    )
    assert done.exit_code == 0, done.output
    assert json.loads(out.read_text())["correct"] is True
    assert runner.invoke(app, ["graph", str(folder)]).exit_code == 0
    run_id = json.loads(out.read_text())["trajectory_id"]
    unknown = runner.invoke(app, ["replay", run_id, "--store", store])
    assert unknown.exit_code == 2 and "unknown judge 'strict_math'" in unknown.output
    replayed = runner.invoke(app, ["replay", run_id, "--store", store, "--judge", str(folder)])
    assert replayed.exit_code == 0 and "identical" in replayed.output
    with pytest.raises(ConfigError, match=r"no judge\.toml"):
        from judgegraph.agents import load_judge_folder

        load_judge_folder(tmp_path)
    assert "unknown judge" in runner.invoke(app, ["graph", str(tmp_path / "nowhere")]).output


async def test_a_folder_judge_replays_from_its_record(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = _counts_then_rules
    async with Judge.load("concise", store=tmp_path / "r.db", model_url=fake_openai.url) as judge:
        t = await judge.arun(JudgeRequest.model_validate(REQUEST))
        report = await judge.areplay(t)
    assert report.identical


def test_a_judge_naming_an_unknown_tool_fails_at_load_and_lists_the_known(tmp_path: Path) -> None:
    folder = tmp_path / "typo"
    folder.mkdir()
    (folder / "judge.toml").write_text('extends = "evidence"\ndescription = "A typo."\ntools = ["run_cod"]\n')
    with pytest.raises(ConfigError, match=r"names unknown tool run_cod; known: .*match_reference.*run_code"):
        resolve_judge(str(folder))
    _fake_distribution(
        tmp_path,
        "typo_plugin",
        "[judgegraph.judges]\ntypo = typo_plugin:JUDGE\n",
        "from pathlib import Path\nJUDGE = Path(__file__).parent / 'typo'\n",
    )
    listed = _cli("plugins", path=tmp_path)
    assert listed.returncode == 1 and "unknown tool run_cod" in " ".join(listed.stdout.split())


async def test_the_plugins_deciding_tool_decides_without_a_model(tmp_path: Path) -> None:
    """`concise_rules` (evidence first) with the plugin's `count_words`, which it imports from the public
    `judgegraph.tools` only: the tool's plan counts both answers against the stated limit and its criterion
    decides, so no model is asked (none is reachable here). Without a stated limit it plans nothing."""
    import importlib

    plugin = importlib.import_module("judgegraph_example_plugin")  # installed beside judgegraph, as a user would
    plan_count_words, word_limit = plugin.plan_count_words, plugin.word_limit

    async with Judge.load("concise_rules", store=tmp_path / "r.db", model_url="http://127.0.0.1:9/v1") as judge:
        trajectory = await judge.arun(REQUEST)
    verdict = trajectory.verdict
    assert verdict is not None and verdict.winner == 0 and verdict.decided_by == "evidence", verdict
    assert [c.name for c in verdict.criteria] == ["within_word_limit", "within_word_limit"]
    assert not [e for e in trajectory.events if e.event == "model_turn"]
    assert word_limit("Answer in fewer than 50 words.") == 49 and word_limit("Say it in at most 5 words") == 5
    assert plan_count_words(JudgeRequest.model_validate({**REQUEST, "prompt": "What colour is the sky?"})) == []
    source = Path(str(plugin.__file__)).read_text()
    assert "judgegraph.tools._" not in source  # the public API suffices
