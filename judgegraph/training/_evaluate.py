"""The recipe's last stage: the agentic judge before training (the base model, its actions constrained) and after
(the trained file), and the trained model without tools (the `llm` judge), on the evaluation split of the sets it
trained on (ids it never saw), both candidate orders. Each (row, set) is an ordinary `judgegraph eval` report in
the run folder, kept, so a stopped stage resumes; from them the stage writes the before/after table and plot."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from judgegraph.evals._compare import plot_path, with_section
from judgegraph.evals._harness import EvalReport, one_model, pct, run_eval
from judgegraph.evals._metrics import Metrics, metrics
from judgegraph.settings import Settings

EVAL_CONCURRENCY = 2
"""Judgments in flight against the embedded server, as the agentic rows of EVALS.md were measured."""


@dataclass(frozen=True)
class Row:
    key: str
    """Its folder under the stage's own (`eval/<key>/<set>`)."""
    label: str
    judge: str
    trained: bool
    """Served by the trained file (else by the base model)."""


ROWS = (
    Row("base", "agentic, base model", "agentic", trained=False),
    Row("trained", "agentic, trained", "agentic", trained=True),
    Row("llm-trained", "LLM-only, trained model", "llm", trained=True),
)
"""Before, after, and the control that shows the gain is the tool use: the trained model without tools."""

Reports = dict[str, dict[str, EvalReport]]
"""Row key -> set -> report."""


async def evaluate(
    base: Path | None, trained: Path, sets: list[str], per_set: int, settings: Settings, out_dir: Path
) -> Reports:
    """Every row on the first `per_set` evaluation-split requests of each set, recorded in `out_dir/runs.db`; a
    (row, set) whose report is in `out_dir` already (for as many requests) is read back, not judged again. One
    embedded server per model, only when something is left to judge with it. `base` None: the bundled model."""
    reports: Reports = {}
    for model, rows in ((base, [r for r in ROWS if not r.trained]), (trained, [r for r in ROWS if r.trained])):
        done = {(r.key, s): _done(out_dir / r.key / s, per_set) for r in rows for s in sets}
        served = settings.model_copy(
            update={"embedded_model": model, "model_url": None, "store_path": out_dir / "runs.db"}
        )
        left = any(v is None for v in done.values())  # else every report is read back: no server to start
        async with one_model(served) if left else contextlib.nullcontext(served) as served:
            for row in rows:
                for s in sets:
                    report = done[(row.key, s)] or await run_eval(
                        s,
                        row.judge,
                        served,
                        out_dir / row.key / s,
                        limit=per_set,
                        concurrency=EVAL_CONCURRENCY,
                        command=f"judgegraph train run (evaluation stage: {row.label})",
                        split="eval",
                    )
                    reports.setdefault(row.key, {})[s] = report
    return reports


def _done(folder: Path, per_set: int) -> EvalReport | None:
    path = folder / "report.json"
    if not path.exists():
        return None
    report = EvalReport.model_validate_json(path.read_text())
    return report if report.metrics.n == per_set else None


def overall(by_set: dict[str, EvalReport]) -> Metrics:
    """One row's metrics over all its sets' requests."""
    return metrics([o for r in by_set.values() for o in r.outcomes])


def _arrow(before: str, after: str) -> str:
    return after if before == after else f"{before} → {after}"


def table(reports: Reports, run_dir: Path, plot: str) -> str:
    """The before/after section (Markdown)."""
    base, trained, llm = (reports[r.key] for r in ROWS)
    sets = list(trained)
    first = next(iter(trained.values()))
    models = {r.key: next(iter(reports[r.key].values())).model or "?" for r in ROWS}
    lines = [
        "## The agentic judge before and after training (the recipe's evaluation stage)",
        "",
        f"Measured {first.started_at:%Y-%m-%d %H:%M UTC} by the recipe's evaluation stage (`judgegraph train run`,",
        f"run folder `{run_dir}`): the first {first.metrics.n} evaluation-split pairs of each set (ids training",
        "never reads), both candidate orders; orders that disagree are a tie, and a tie or an invalid verdict",
        f"counts as wrong. Before: the base model `{models['base']}`, its actions constrained; after: the trained",
        f"file `{models['trained']}`. The LLM-only column is the trained model without tools: if training had",
        "taught it answers rather than tool use, it would be right there too.",
        "",
        "| set | n | before | after | after: consistent | after: by evidence | call validity | tool choice | calls "
        "| tokens | LLM-only, trained |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    rows: list[tuple[str, Metrics, Metrics, Metrics]] = [
        (s, base[s].metrics, trained[s].metrics, llm[s].metrics) for s in sets
    ]
    rows.append(("all", overall(base), overall(trained), overall(llm)))
    for name, b, a, c in rows:
        lines.append(
            f"| {name} | {a.n} | {pct(b.accuracy)} | {pct(a.accuracy)} | {pct(a.consistency)} "
            f"| {pct(a.decided_by_evidence)} | {_arrow(pct(b.tool_call_validity), pct(a.tool_call_validity))} "
            f"| {_arrow(pct(b.tool_choice), pct(a.tool_choice))} "
            f"| {_arrow(f'{b.tool_calls_per_judgment:.2f}', f'{a.tool_calls_per_judgment:.2f}')} "
            f"| {_arrow(f'{b.tokens_per_judgment:.0f}', f'{a.tokens_per_judgment:.0f}')} | {pct(c.accuracy)} |"
        )
    lines += [
        "",
        "Call validity: share of the model's own tool calls the tool accepted. Tool choice: share of judgments whose",
        "calls covered the tools the request's evidence names (run_code for tests, match_reference for references,",
        "verify_constraints for constraints, retrieve or check_propositions for documents, zoom_image for images).",
        "Each (row, set) has its full report (per category, plots) in the run folder's `eval/`.",
        "",
        f"![accuracy before and after training]({plot})",
    ]
    return "\n".join(lines) + "\n"


def write_evaluation(reports: Reports, run_dir: Path, report: Path | None) -> str:
    """`eval.md` and `eval.png` in the run folder; with `report`, the same section in that Markdown file (its
    plot under docs/evals beside it), replacing what an earlier run wrote there."""
    from judgegraph.evals._plots import comparison_plot

    accuracy = {r.label: {s: rep.metrics.accuracy for s, rep in reports[r.key].items()} for r in ROWS}
    png = comparison_plot(accuracy, run_dir / "eval.png")
    text = table(reports, run_dir, png.name)
    (run_dir / "eval.md").write_text(text)
    if report is not None:
        plot = plot_path(report, "trained")
        plot.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(png, plot)
        linked = table(reports, run_dir, os.path.relpath(plot, report.parent))
        existing = report.read_text() if report.exists() else ""
        report.write_text(with_section(existing, linked, owner="train run"))
    return text


def run_evaluation(
    base: Path | None, trained: Path, sets: list[str], per_set: int, settings: Settings, run_dir: Path
) -> Reports:
    """`evaluate` from blocking code (the recipe), into `run_dir/eval`."""
    return asyncio.run(evaluate(base, trained, sets, per_set, settings, run_dir / "eval"))
