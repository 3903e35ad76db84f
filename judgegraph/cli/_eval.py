"""`judgegraph eval`: a judge over an eval set, with a report."""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from judgegraph._gc import tune_gc
from judgegraph.cli._common import fail, load_settings, out, require_extra
from judgegraph.cli._options import BudgetOpt, EmbeddedModelOpt, JudgeOpt, ModelOpt, StoreOpt
from judgegraph.errors import JudgegraphError

if TYPE_CHECKING:
    from judgegraph.evals._attack_card import AttackCard, RewardPath
    from judgegraph.evals._splits import Split
    from judgegraph.settings import Settings


def eval_(
    suite: Annotated[
        str,
        typer.Argument(
            help="A bundled set (code, math, ...), a benchmark (rewardbench, ... with --file), all, or attacks "
            "(responses written to earn reward without being right, through the trainers' reward paths)."
        ),
    ],
    judge_name: JudgeOpt = "evidence",
    model: ModelOpt = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Requests per set (bundled sets: default 20).")] = None,
    file: Annotated[Path | None, typer.Option("--file", help="The benchmark's file (JSON or JSONL).")] = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Report folder (default: evals/ beside the store).")
    ] = None,
    store: StoreOpt = None,
    concurrency: Annotated[int, typer.Option(min=1)] = 4,
    judges_: Annotated[
        str | None, typer.Option("--judges", help="eval all: comma-separated judges (default: every one).")
    ] = None,
    report: Annotated[
        Path, typer.Option("--report", help="eval all: the Markdown file whose comparison section to (re)write.")
    ] = Path("EVALS.md"),
    budget: BudgetOpt = None,
    embedded_model: EmbeddedModelOpt = None,
    split: Annotated[
        str | None,
        typer.Option(help="Bundled sets: only the `eval` or the `train` split (by request id); default: both."),
    ] = None,
    through: Annotated[
        str, typer.Option(help="eval attacks: the reward paths, comma-separated (verl, trl, server).")
    ] = "verl,trl,server",
) -> None:
    """Run a judge over an eval set, record every run, and write a report (JSON, Markdown, plots)."""
    if suite != "attacks":  # the card draws no plots and needs no set's data
        require_extra(f"judgegraph eval {suite}", "evals")
    from judgegraph.evals._compare import run_all
    from judgegraph.evals._harness import run_eval, suites

    if suite not in ("all", "attacks") and suite not in suites():
        raise fail(f"unknown suite {suite!r}; known: all, attacks, {', '.join(suites())}")
    if split not in (None, "train", "eval"):
        raise fail(f"unknown split {split!r}; known: train, eval")
    chosen = cast("Split | None", split)
    settings = load_settings(model_url=model, store_path=store, budget_s=budget, embedded_model=embedded_model)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    root = output or settings.store_path.parent / "evals"
    tune_gc()
    command = "judgegraph eval " + " ".join(sys.argv[2:]) if len(sys.argv) > 2 else f"judgegraph eval {suite}"
    try:
        if suite == "attacks":
            _attacks(settings, judge_name, through.split(","), root / f"attacks-{judge_name}-{stamp}", command)
            return
        if suite == "all":
            names = judges_.split(",") if judges_ else None
            text = asyncio.run(
                run_all(
                    settings,
                    root / f"all-{stamp}",
                    judges=names,
                    limit=limit,
                    concurrency=concurrency,
                    command=command,
                    report=report,
                    split=chosen,
                )
            )
            out.print(text, soft_wrap=True, highlight=False, markup=False)
            out.print(f"wrote {report}")
            return
        result = asyncio.run(
            run_eval(
                suite,
                judge_name,
                settings,
                root / f"{suite}-{judge_name}-{stamp}",
                limit=limit,
                file=file,
                concurrency=concurrency,
                command=command,
                split=chosen,
            )
        )
    except (ValueError, OSError, JudgegraphError) as e:
        raise fail(str(e)) from None
    m = result.metrics
    acc = "–" if m.accuracy is None else f"{100 * m.accuracy:.1f}%"
    out.print(
        f"{judge_name} on {suite}: {m.n} judged, accuracy {acc}, valid {100 * m.valid_rate:.0f}%, failed {m.failed}"
    )
    if result.official is not None:
        out.print(f"official score: {result.official.get('score')}")
    out.print(f"report: {root / f'{suite}-{judge_name}-{stamp}' / 'report.md'}", soft_wrap=True)


def _attacks(settings: Settings, judge_name: str, paths: list[str], out_dir: Path, command: str) -> None:
    """The attack card: print it, and write it (Markdown and JSON) to `out_dir`."""
    import json

    from judgegraph.evals._attack_card import REWARD_PATHS, run_card
    from judgegraph.evals._harness import one_model

    unknown = [p for p in paths if p not in REWARD_PATHS]
    if unknown:
        raise fail(f"unknown reward path {', '.join(unknown)}; known: {', '.join(REWARD_PATHS)}")

    async def card() -> AttackCard:
        async with one_model(settings) as shared:
            return await run_card(shared, judge_name, cast("list[RewardPath]", paths))

    result = asyncio.run(card())
    text = f"# Attack card\n\nMeasured with `{command}`.\n\n{result.markdown()}"
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "report.md").write_text(text)
    (out_dir / "card.json").write_text(json.dumps(result.facts(), indent=2))
    out.print(text, soft_wrap=True, highlight=False, markup=False)
    out.print(f"report: {out_dir / 'report.md'}", soft_wrap=True)
