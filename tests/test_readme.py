"""The README stays true: its two commands are the Makefile's, CI runs the test one, its Python runs."""

from __future__ import annotations

import re

import pytest

from benchmarks.fake_openai import FakeOpenAI
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text()


def test_the_two_commands_exist_and_ci_runs_the_test_one() -> None:
    first_block = re.search(r"```bash\n(.*?)```", README, re.DOTALL)
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
