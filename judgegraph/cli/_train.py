"""`judgegraph train`: the agentic judge trained on its own runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from judgegraph.cli._common import fail, out, require_extra
from judgegraph.errors import JudgegraphError


def train_run(
    run: Annotated[Path, typer.Option("--run", help="The run folder (resumed if it exists).")] = Path(
        ".judgegraph/train"
    ),
    sets: Annotated[
        str | None, typer.Option(help="Comma-separated bundled sets (default: the verifiable ones).")
    ] = None,
    per_set: Annotated[int, typer.Option(min=1, help="Training-split requests per set.")] = 4,
    epochs: Annotated[float, typer.Option(min=0.01)] = 1.0,
    max_steps: Annotated[int, typer.Option(help="Stop SFT after this many steps (-1: the epochs).")] = -1,
    rounds: Annotated[int, typer.Option(min=0, help="Rejection-sampling rounds after SFT (0: SFT only).")] = 1,
    samples: Annotated[
        int,
        typer.Option(
            min=1, help="Self-play runs per request in each round, at most (until one is settled by its evidence)."
        ),
    ] = 2,
    temperature: Annotated[float, typer.Option(min=0.0, help="Self-play sampling temperature.")] = 0.8,
    explore: Annotated[
        bool,
        typer.Option(
            help="Self-play also tries each call the tools propose to explore (an image's quarters, a named "
            "document's pages) where no sample settled the request."
        ),
    ] = True,
    evaluate: Annotated[
        int, typer.Option(min=0, help="Evaluation-split pairs a set to judge before and after training (0: none).")
    ] = 3,
    report: Annotated[
        Path | None, typer.Option(help="Also write the before/after table as a section of this Markdown file.")
    ] = None,
) -> None:
    """Collect teacher runs on the training split, fine-tune the embedded model on them (SFT), convert to GGUF;
    then rejection-sampling rounds: the trained judge samples its own runs, the best right run per request is
    kept, SFT again on those and the teacher's runs, convert again; then judge the evaluation split with the
    agentic judge before and after training, and with the trained model without tools (RUN/eval.md).

    Then judge with it: `judgegraph judge --judge agentic --embedded-model RUN/judge.gguf ...`."""
    require_extra("judgegraph train run", "train")
    from judgegraph.training import SFTSettings, recipe

    try:
        summary = recipe(
            run,
            sets=sets.split(",") if sets else None,
            per_set=per_set,
            sft=SFTSettings(epochs=epochs, max_steps=max_steps),
            rounds=rounds,
            samples=samples,
            temperature=temperature,
            explore=explore,
            evaluate=evaluate,
            report=report,
        )
    except (ValueError, OSError, JudgegraphError) as e:
        raise fail(str(e)) from None

    out.print(json.dumps(summary, indent=1), soft_wrap=True, highlight=False, markup=False)
    if "evaluation" in summary:
        out.print(f"before and after training: {run / 'eval.md'}" + (f" (and {report})" if report else ""))
    out.print(f"judge with it: judgegraph judge INPUT --judge agentic --embedded-model {summary['gguf']}")
