"""`judgegraph eval`: a judge over an eval set through the batch runner, recorded, scored, reported."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from rich.progress import Progress

from judgegraph.backends import ModelEndpoint
from judgegraph.evals._benchmarks import benchmarks
from judgegraph.evals._metrics import CalibrationBin, Metrics, Outcome, calibration, metrics, per_category
from judgegraph.evals._sets import build_set, eval_sets
from judgegraph.evals._splits import MAX_BUILD, Split, split_of
from judgegraph.runtime._batch import OutputLine, judge_file
from judgegraph.schema import JudgeRequest
from judgegraph.settings import Settings
from judgegraph.store import TrajectoryStore

DEFAULT_N = 20
"""Requests per bundled set when no limit is given."""


class EvalReport(BaseModel):
    suite: str
    judge: str
    model: str
    """The model that served the judge (as its endpoint reported it)."""
    command: str
    started_at: datetime
    wall_s: float
    metrics: Metrics
    per_category: dict[str, Metrics]
    calibration: list[CalibrationBin]
    ece: float | None
    """Expected calibration error of the judge's stated confidence."""
    official: dict[str, Any] | None = None
    """The benchmark's own numbers, scored by its rules (standard benchmarks only)."""
    outcomes: list[Outcome]


def suites() -> list[str]:
    """Every suite `judgegraph eval` knows: the bundled sets, then the standard benchmarks (need --file)."""
    return [*eval_sets.names(), *benchmarks.names()]


async def load_suite(
    suite: str, *, limit: int | None, file: Path | None, seed: int = 0, split: Split | None = None
) -> list[JudgeRequest]:
    """The suite's requests: a bundled set (the first `limit`, or the first `limit` of one split), or a
    benchmark's file."""
    if suite in eval_sets:
        if file is not None:
            raise ValueError(f"{suite!r} is a bundled set: it takes no --file")
        n = limit or DEFAULT_N
        if split is None:
            return await build_set(suite, n, seed)
        built = await build_set(suite, n * MAX_BUILD, seed)
        return [r for r in built if split_of(r.id) == split][:n]
    if split is not None:
        raise ValueError(f"{suite!r} is a standard benchmark: splits are for the bundled sets")
    bench = benchmarks.get(suite) if suite in benchmarks else None
    if bench is None:
        raise ValueError(f"unknown suite {suite!r}; known: {', '.join(suites())}")
    if file is None:
        raise ValueError(f"{suite!r} is a standard benchmark: give its file with --file (nothing is downloaded)")
    requests = await asyncio.to_thread(bench.load, file)
    return requests[:limit] if limit else requests


@asynccontextmanager
async def one_model(settings: Settings) -> AsyncIterator[Settings]:
    """`settings` for many evaluations that share one model: without a URL, one embedded server for all of them
    (not one per run), stopped on exit."""
    if settings.model_url is not None:
        yield settings
        return
    endpoint = ModelEndpoint(settings)
    await endpoint.open()
    try:
        assert endpoint.served_url is not None
        # the embedded model keeps its trust (none, unless set) behind the URL it is now reached at
        trusted = bool(settings.model_trusted)
        yield settings.model_copy(update={"model_url": endpoint.served_url, "model_trusted": trusted})
    finally:
        await endpoint.close()


async def run_eval(
    suite: str,
    judge: str,
    settings: Settings,
    out_dir: Path,
    *,
    limit: int | None = None,
    file: Path | None = None,
    concurrency: int = 4,
    command: str = "",
    progress: Progress | None = None,
    split: Split | None = None,
) -> EvalReport:
    """Judge `suite` with `judge` through the batch runner (every run recorded in `settings.store_path`), then
    write `report.json`, `report.md` and the plots into `out_dir`."""
    requests = await load_suite(suite, limit=limit, file=file, split=split)
    src = await asyncio.to_thread(_write_requests, out_dir, requests)
    started, t0 = datetime.now(UTC), time.perf_counter()
    result = await judge_file(
        src, out_dir / "results.jsonl", judge, settings, concurrency=concurrency, progress=progress
    )
    wall = time.perf_counter() - t0
    outcomes, model = await asyncio.to_thread(_outcomes, settings.store_path, suite, requests, result.lines)
    bins, ece = calibration(outcomes)
    official = benchmarks.get(suite).score(requests, outcomes) if suite in benchmarks else None
    report = EvalReport(
        suite=suite,
        judge=judge,
        model=model,
        command=command,
        started_at=started,
        wall_s=wall,
        metrics=metrics(outcomes),
        per_category=per_category(outcomes),
        calibration=bins,
        ece=ece,
        official=official,
        outcomes=outcomes,
    )
    await asyncio.to_thread(write_report, report, out_dir)
    return report


def _write_requests(out_dir: Path, requests: list[JudgeRequest]) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    src = out_dir / "requests.jsonl"
    src.write_text("".join(r.model_dump_json() + "\n" for r in requests))  # whole: defaults include tags
    return src


def _outcomes(
    store_path: Path, suite: str, requests: list[JudgeRequest], lines: list[OutputLine]
) -> tuple[list[Outcome], str]:
    """Each request's outcome (from its recorded trajectory), in request order; and the model that judged."""
    store = TrajectoryStore(store_path)
    try:
        outcomes, model = [], ""
        by_line = {line.line: line for line in lines}
        for i, request in enumerate(requests):
            line = by_line[i + 1]
            t = store.get(line.trajectory_id) if line.trajectory_id else None
            model = model or (t.versions.model if t else "")
            category = str(request.metadata.get("category", suite))
            outcomes.append(Outcome.of(str(request.id), category, request.label is not None, t, line.error))
    finally:
        store.close()
    return outcomes, model


def pct(x: float | None) -> str:
    """A share as the reports print it."""
    return "–" if x is None else f"{100 * x:.1f}%"


def markdown(report: EvalReport) -> str:
    m = report.metrics
    lines = [
        f"# Eval: {report.judge} on {report.suite}",
        "",
        f"{report.started_at:%Y-%m-%d %H:%M UTC}, model `{report.model or '?'}`"
        + (f", with `{report.command}`" if report.command else "")
        + f". {m.n} requests in {report.wall_s:.1f} s; {m.failed} failed.",
        "",
        "| category | n | accuracy | consistent | valid | by evidence | tool calls | call validity | tool choice "
        "| tokens | wall s | model s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, c in [*report.per_category.items(), ("all", m)]:
        lines.append(
            f"| {name} | {c.n} | {pct(c.accuracy)} | {pct(c.consistency)} | {pct(c.valid_rate)} "
            f"| {pct(c.decided_by_evidence)} | {c.tool_calls_per_judgment:.2f} | {pct(c.tool_call_validity)} "
            f"| {pct(c.tool_choice)} | {c.tokens_per_judgment:.0f} | {c.wall_s_per_judgment:.2f} "
            f"| {c.model_s_per_judgment:.2f} |"
        )
    lines += ["", "Tool calls per judgment: " + (", ".join(f"{k} {v:.2f}" for k, v in m.tool_usage.items()) or "none")]
    lines += [f"Expected calibration error of stated confidence: {report.ece:.3f}" if report.ece is not None else ""]
    if report.official is not None:
        lines += ["", "Official scoring:", "", "```json", json.dumps(report.official, indent=1), "```"]
    lines += [
        "",
        "![accuracy](accuracy.png) ![tools](tools.png) ![latency](latency.png) ![calibration](calibration.png)",
        "",
    ]
    return "\n".join(lines)


def write_report(report: EvalReport, out_dir: Path) -> None:
    from judgegraph.evals._plots import report_plots

    (out_dir / "report.json").write_text(report.model_dump_json(indent=1))
    (out_dir / "report.md").write_text(markdown(report))
    report_plots(report, out_dir)
