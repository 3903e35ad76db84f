"""The README stays true: its two commands are the Makefile's, CI runs the test one, its Python runs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.fake_openai import FakeOpenAI
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text()


def test_the_two_commands_exist_and_ci_runs_the_test_one() -> None:
    section = README.split("## Two commands", 1)[1]
    first_block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines() if line.strip()]
    assert commands == ["make demo", "make test"]
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^demo: ", makefile, re.MULTILINE) and re.search(r"^test: ", makefile, re.MULTILINE)
    ci = [
        line
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if line and not line.startswith(("#", "set ", "cd "))
    ]
    assert ci == ["make test"]


def test_python_example_runs(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("JUDGEGRAPH_MODEL_URL", fake_openai.url)
    (code,) = re.findall(r"```python\n(.*?)```", README, re.DOTALL)
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip() == "1 [0.0, 1.0] evidence"


@pytest.mark.llm
def test_the_install_sections_first_verdict_takes_three_commands(tmp_path: Path) -> None:
    """The Install section's commands, as a newcomer types them: the first installs (done here: this
    environment has the embedded extra), the others give a verdict from the embedded model."""
    section = README.split("## Install", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```bash\n(.*?)```", section, re.DOTALL)
    commands = [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]
    assert len(commands) <= 3 and commands[0] == "pip install 'judgegraph[embedded]'"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env["JUDGEGRAPH_STORE"] = str(tmp_path / "runs.db")
    for command in commands[1:]:
        done = subprocess.run(command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, (command, done.stderr[-2000:])
    (line,) = [json.loads(x) for x in (tmp_path / "verdicts.jsonl").read_text().splitlines()]
    assert line["valid"] and line["decided_by"] == "model"
