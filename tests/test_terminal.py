"""The terminal at 80 columns (a pipe, a CI log, `make demo`'s table): help keeps every option name whole and
no line runs past the width; tables keep their headers whole, leave out what does not fit and say so."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import typer
from typer.testing import CliRunner

from judgegraph.cli import app

runner = CliRunner()
NARROW = {"COLUMNS": "80", "LINES": "40"}


def _commands(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for name, command in group.commands.items():
        out.append((*prefix, name))
        if hasattr(command, "commands"):
            out += _commands(command, (*prefix, name))
    return out


def test_every_help_reads_whole_at_80_columns() -> None:
    root = typer.main.get_group(app)
    for path in [(), *_commands(root)]:
        done = runner.invoke(app, [*path, "--help"], env=NARROW)
        assert done.exit_code == 0, (path, done.output)
        assert max(len(line) for line in done.output.splitlines()) <= 80, (path, done.output)
        assert "…" not in done.output, (path, done.output)  # no name or value cut short
        command: Any = root
        for name in path:
            command = command.commands[name]
        for param in getattr(command, "params", []):
            for option in getattr(param, "opts", []):
                if option.startswith("--"):
                    assert re.search(rf"{re.escape(option)}\b", done.output), (path, option)


def test_the_verdict_table_and_the_runs_table_fit_80_columns(tmp_path: Path) -> None:
    requests = tmp_path / "in.jsonl"
    request = {"id": "a-rather-long-request-id", "prompt": "2 + 2?", "candidates": ["4", "5"], "reference": "4"}
    requests.write_text(json.dumps(request) + "\n")
    store = str(tmp_path / "runs.db")
    judged = runner.invoke(
        app, ["judge", str(requests), "-o", str(tmp_path / "out.jsonl"), "--store", store], env=NARROW
    )
    assert judged.exit_code == 0, judged.output
    listed = runner.invoke(app, ["runs", "--store", store], env=NARROW)
    for output, headers in (
        (judged.output, ["id", "winner", "scores", "valid", "label"]),
        (listed.output, ["trajectory", "valid", "winner"]),
    ):
        table = [line for line in output.splitlines() if line[:1] in "┏┃┡│└"]
        assert table and max(len(line) for line in table) <= 80, output
        head = next(line for line in table if line.startswith("┃"))
        cells = [cell.strip() for cell in head.strip("┃").split("┃")]
        assert set(headers) <= set(cells), (headers, cells)  # whole, never split over lines
    assert "not shown at this width:" in listed.output  # what was left out is named
    assert "a-rather-long-request-id" in judged.output or "a-rather-long-reque…" in judged.output
