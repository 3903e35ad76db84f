"""`judgegraph eval all`: every judge on every bundled set with one model, compared in one Markdown file."""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime
from pathlib import Path

from judgegraph.evals._harness import EvalReport, one_model, pct, run_eval
from judgegraph.evals._sets import eval_sets
from judgegraph.evals._splits import Split
from judgegraph.settings import Settings


def comparison(reports: list[EvalReport], command: str, plot: str | None) -> str:
    model = next((r.model for r in reports if r.model), "?")
    lines = [
        "# Judges on the bundled eval sets",
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M UTC} with `{command}`, model `{model}`. Every judge judges",
        "every pairwise request in both candidate orders; orders that disagree are a tie (wrong, and not",
        "consistent). Invalid verdicts count as wrong. Each (judge, set) has its own report with per-category",
        "tables and plots (accuracy, tool usage, latency, calibration) under the eval folder the command names.",
        "",
        "| judge | set | n | accuracy | consistent | valid | by evidence | tool calls | call validity | tool choice "
        "| tokens | s / judgment |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in reports:
        m = r.metrics
        lines.append(
            f"| {r.judge} | {r.suite} | {m.n} | {pct(m.accuracy)} | {pct(m.consistency)} | {pct(m.valid_rate)} "
            f"| {pct(m.decided_by_evidence)} | {m.tool_calls_per_judgment:.2f} | {pct(m.tool_call_validity)} "
            f"| {pct(m.tool_choice)} | {m.tokens_per_judgment:.0f} | {m.wall_s_per_judgment:.2f} |"
        )
    lines += [
        "",
        "Reading it: where a deterministic check decides (`by evidence`), the verdict does not depend on the",
        "model. Everywhere else the model rules, in both orders; a model that prefers whichever answer comes",
        "first gives two rulings that disagree, a tie, counted wrong. The `llm` row is the same model without",
        "tools. `propositions` rules only from documents or images and is invalid without them, by design.",
    ]
    if plot:
        lines += ["", f"![accuracy per set and judge]({plot})"]
    return "\n".join(lines) + "\n"


async def run_all(
    settings: Settings,
    out_dir: Path,
    *,
    judges: list[str] | None,
    limit: int | None,
    concurrency: int,
    command: str,
    report: Path,
    split: Split | None = None,
) -> str:
    """Every judge x every bundled set; writes its section of `report` (Markdown) and its plot."""
    from judgegraph.agents import judges as registry

    names = judges or registry.names()
    reports: list[EvalReport] = []
    plot = plot_path(report, "accuracy")
    await asyncio.to_thread(plot.parent.mkdir, parents=True, exist_ok=True)
    text = ""
    async with one_model(settings) as served:
        for judge in names:
            for suite in eval_sets.names():
                reports.append(
                    await run_eval(
                        suite,
                        judge,
                        served,
                        out_dir / judge / suite,
                        limit=limit,
                        concurrency=concurrency,
                        command=command,
                        split=split,
                    )
                )
                text = await asyncio.to_thread(_write, reports, command, report, plot)  # rewritten as it goes
    return text


def plot_path(report: Path, name: str) -> Path:
    """A section's plot: `docs/evals/<report>-<name>.png` from the report's folder, or beside the report when it
    already lies in docs/evals; named after the report so that two reports never share one."""
    folder = report.parent if report.parent.parts[-2:] == ("docs", "evals") else report.parent / "docs" / "evals"
    return folder / f"{report.stem.lower()}-{name}.png"


def with_section(existing: str, section: str, owner: str = "eval all") -> str:
    """`existing` with the section `owner` wrote replaced by `section` (prepended when it has none). A command
    owns only the part of the report between its markers: whatever else the file says (how a model was trained,
    real-data checks, another command's section) is kept when it measures again."""
    begin, end_marker = f"<!-- judgegraph {owner}: begin -->", f"<!-- judgegraph {owner}: end -->"
    block = f"{begin}\n{section}{end_marker}\n"
    start, end = existing.find(begin), existing.find(end_marker)
    if start >= 0 and end > start:
        return existing[:start] + block + existing[end + len(end_marker) :].removeprefix("\n")
    return block + ("\n" + existing if existing else "")


def _write(reports: list[EvalReport], command: str, report: Path, plot: Path) -> str:
    from judgegraph.evals._plots import comparison_plot

    accuracy: dict[str, dict[str, float | None]] = {}
    for r in reports:
        accuracy.setdefault(r.judge, {})[r.suite] = r.metrics.accuracy
    comparison_plot(accuracy, plot)
    text = comparison(reports, command, os.path.relpath(plot, report.parent))
    existing = report.read_text() if report.exists() else ""
    report.write_text(with_section(existing, text))
    return text
