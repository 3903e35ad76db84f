"""The CLI's own paths leave nothing to the finalizer: run with every ResourceWarning shown, judging code in a
sandbox, listing, showing and exporting runs print none (unclosed sockets to the Docker engine, store files)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

CODE = {
    "id": "c",
    "prompt": "def add(a, b): return a + b",
    "candidates": [
        "```python\ndef add(a, b):\n    return a + b\n```",
        "```python\ndef add(a, b):\n    return a - b\n```",
    ],
    "tests": ["assert add(1, 2) == 3"],
}


def _cli(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-W", "always::ResourceWarning", "-m", "judgegraph", *args]
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


@pytest.mark.parametrize("sandbox", ["process", pytest.param("docker", marks=pytest.mark.docker)])
def test_judging_code_and_reading_runs_leave_no_resource_warning(sandbox: str, tmp_path: Path) -> None:
    (tmp_path / "in.jsonl").write_text(json.dumps(CODE) + "\n")
    env = {**os.environ, "JUDGEGRAPH_SANDBOX": sandbox, "JUDGEGRAPH_STORE": str(tmp_path / "runs.db")}
    env["PYTHONPATH"] = str(ROOT)
    judged = _cli("judge", "in.jsonl", "-o", "out.jsonl", env=env, cwd=tmp_path)
    assert judged.returncode == 0, judged.stderr[-2000:]
    run_id = json.loads((tmp_path / "out.jsonl").read_text())["trajectory_id"]
    for args in (("runs",), ("show", run_id), ("export", "--format", "rewards", "-o", "rewards.jsonl")):
        done = _cli(*args, env=env, cwd=tmp_path)
        assert done.returncode == 0, (args, done.stderr[-2000:])
        assert "ResourceWarning" not in done.stderr, (args, done.stderr[-2000:])
    assert "ResourceWarning" not in judged.stderr, judged.stderr[-2000:]
