"""The prompts of the tools that ask the model are files (`tools/prompts/<tool>/<role>.md`), each rendered
strictly from what its code passes, and recorded by hash in the trajectory of every judge that may use the tool."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from judgegraph import Judge
from judgegraph.tools._prompts import PROMPTS, tool_prompt, tool_prompt_hashes
from tests.conftest import ROOT


def _calls() -> list[tuple[str, str, set[str]]]:
    """Every `tool_prompt(tool, role, **variables)` in the tools' code, with constant tool and role names."""
    found = []
    for path in (ROOT / "tools").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "tool_prompt":
                tool, role = node.args[0], node.args[1]
                assert isinstance(tool, ast.Constant), path
                roles = [role.value] if isinstance(role, ast.Constant) else []
                if isinstance(role, ast.Name):  # a role chosen just above: both spellings are files
                    roles = [
                        n.value
                        for n in ast.walk(ast.parse(path.read_text()))
                        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.endswith("_task")
                    ]
                for r in roles:
                    found.append((str(tool.value), str(r), {k.arg for k in node.keywords if k.arg}))
    return found


def test_every_prompt_the_code_asks_for_is_a_file_that_renders_with_what_it_is_given() -> None:
    calls = _calls()
    assert {(t, r) for t, r, _ in calls} >= {("derived_reference", "system"), ("oracle_check", "call_task")}
    for tool, role, variables in calls:
        text = tool_prompt(tool, role, **dict.fromkeys(variables, "X"))
        assert text and "{{" not in text, (tool, role)
    files = {f"{d.name}/{f.name.removesuffix('.md')}" for d in PROMPTS.iterdir() if d.is_dir() for f in d.iterdir()}
    assert files == {f"{t}/{r}" for t, r, _ in calls}  # no file the code never asks for
    with pytest.raises(Exception, match="undefined"):
        tool_prompt("oracle_check", "call_task", prompt="p")  # a missing variable is an error


async def test_a_trajectory_records_the_prompts_of_the_tools_its_judge_may_use(tmp_path: Path) -> None:
    request = {"id": "m", "prompt": "6*7?", "candidates": ["41", "42"], "reference": "42"}
    async with Judge.load("evidence", store=tmp_path / "r.db", model_url="http://127.0.0.1:9/v1") as judge:
        t = await judge.arun(request)
    hashes = tool_prompt_hashes(["derived_reference", "oracle_check", "differential_test"])
    assert hashes and all(t.versions.prompts[k] == v for k, v in hashes.items())
    async with Judge.load("llm", store=tmp_path / "r.db", model_url="http://127.0.0.1:9/v1") as judge:
        alone = await judge.arun(request)
    assert not any("/" in k for k in alone.versions.prompts)  # a judge with no tools records none
