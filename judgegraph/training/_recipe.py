"""The whole recipe in one call: collect teacher runs on the training split, export them as SFT data through
the store, fine-tune the embedded model with TRL, convert to GGUF; then rejection-sampling rounds (the trained
judge samples its own runs, the reward keeps the best right one per request, SFT again on them and on the teacher's
run where no sample was right, convert again). The last stage's GGUF is `judge.gguf`; the evaluation stage then
measures the agentic judge before and after on the evaluation split (`eval.md`)."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from judgegraph.backends import embedded_model_path
from judgegraph.output import export
from judgegraph.settings import Settings
from judgegraph.training._collect import VERIFIABLE, collect_teacher_runs, stored_runs
from judgegraph.training._evaluate import ROWS, overall, run_evaluation, write_evaluation
from judgegraph.training._gguf import to_gguf
from judgegraph.training._selfplay import best_runs, explored, self_play, weighted
from judgegraph.training._sft import SFTSettings, train_sft

T = TypeVar("T")


def export_sft(store: Path, out: Path, judge: str = "agentic") -> int:
    """The store's complete runs of `judge` as the `sft` export (what `judgegraph export --format sft` writes)."""
    return export(stored_runs(store, judge), "sft", out)


def _written(out: Path, write: Callable[..., T], *args: Any) -> T:
    """`write(*args, partial)`, then rename to `out`: a stage's output exists only once it is whole (resumable)."""
    partial = out.with_name(out.name + ".partial")
    result = write(*args, partial)
    partial.rename(out)
    return result


def recipe(
    run_dir: Path,
    *,
    sets: list[str] | None = None,
    per_set: int = 4,
    sft: SFTSettings | None = None,
    rounds: int = 1,
    samples: int = 2,
    temperature: float = 0.8,
    explore: bool = True,
    evaluate: int = 3,
    report: Path | None = None,
    settings: Settings | None = None,
    base: Path | None = None,
) -> dict[str, Any]:
    """collect -> export -> SFT -> GGUF, then `rounds` of self-play -> keep the best -> SFT -> GGUF, then the
    agentic judge before and after (and the trained model without tools) on `evaluate` evaluation-split pairs a
    set (0: no evaluation), written to `eval.md` and, with `report`, as a section of that Markdown file. Each
    stage's output is in `run_dir`. A stage whose output exists is skipped, so a run stopped midway (Ctrl-C)
    resumes where it was. Blocking: call it from a thread when an event loop is running."""
    run_dir.mkdir(parents=True, exist_ok=True)
    settings = settings or Settings.from_env()
    sets = sets or VERIFIABLE
    summary_path = run_dir / "recipe.json"
    summary: dict[str, Any] = json.loads(summary_path.read_text()) if summary_path.exists() else {}

    def save() -> None:
        """After each stage, so a run stopped later keeps the counts of the stages it finished; whole or not at
        all, since the next run reads it back."""
        _written(summary_path, lambda partial: partial.write_text(json.dumps(summary, indent=1)))

    store = run_dir / "runs.db"
    data = run_dir / "sft.jsonl"
    if not data.exists():
        collected = asyncio.run(collect_teacher_runs(sets, per_set, settings, store))
        summary["collected"] = collected.model_dump(mode="json")
        summary["sft_rows"] = _written(data, export_sft, store)
        save()
    stage = run_dir / "sft"
    if not (stage / "summary.json").exists():
        summary["sft"] = train_sft(data, base or embedded_model_path(), stage, sft)
        save()
    gguf = run_dir / "sft.gguf"
    if not gguf.exists():
        _written(gguf, to_gguf, stage / "model")
    for r in range(1, rounds + 1):
        name = f"rs{r}"
        played = run_dir / f"{name}.db"
        rs_data = run_dir / f"{name}.jsonl"
        if not rs_data.exists():  # a round stopped midway samples only what its store does not hold yet
            sampled = asyncio.run(
                self_play(
                    gguf, sets, per_set, settings, played, samples=samples, temperature=temperature, explore=explore
                )
            )
            runs = stored_runs(played)
            kept = best_runs(runs)
            # The teacher's right runs stand in for requests no sample solved, so a round loses no request.
            solved = {t.request.id for t in kept}
            teacher = [t for t in best_runs(stored_runs(store)) if t.request.id not in solved]
            rows = _written(rs_data, export, weighted(kept, runs) + teacher, "sft")
            summary[name] = {
                "self_play": sampled.model_dump(mode="json"),
                "kept": len(kept),
                "explored": sum(explored(t) for t in kept),
                "teacher": len(teacher),
                "rows": rows,
            }
            save()
        previous, stage = stage, run_dir / name
        if not (stage / "summary.json").exists():
            summary.setdefault(name, {})["sft"] = train_sft(rs_data, previous / "model", stage, sft)
            save()
        gguf = run_dir / f"{name}.gguf"
        if not gguf.exists():
            _written(gguf, to_gguf, stage / "model")
    _plot(run_dir, summary, rounds)
    final = run_dir / "judge.gguf"
    final.unlink(missing_ok=True)
    shutil.copyfile(gguf, final)
    summary["gguf"] = str(final)
    summary["from"] = gguf.name
    save()
    if evaluate:
        reports = run_evaluation(base, final, sets, evaluate, settings, run_dir)
        write_evaluation(reports, run_dir, report)
        summary["evaluation"] = {
            "per_set": evaluate,
            "accuracy": {
                r.key: {
                    **{s: rep.metrics.accuracy for s, rep in reports[r.key].items()},
                    "all": overall(reports[r.key]).accuracy,
                }
                for r in ROWS
            },
            "wall_s": round(sum(rep.wall_s for by_set in reports.values() for rep in by_set.values()), 1),
        }
        save()
    return summary


def _plot(run_dir: Path, summary: dict[str, Any], rounds: int) -> None:
    """`training.png`: every SFT stage's loss and each round's self-play reward, from the run folder's logs."""
    from judgegraph.evals._plots import recipe_plot

    names = ["sft", *(f"rs{r}" for r in range(1, rounds + 1))]
    stages = []
    for name in names:
        metrics = run_dir / name / "metrics.jsonl"
        if metrics.exists():
            stages.append((name, [json.loads(line) for line in metrics.read_text().splitlines() if line.strip()]))
    rewards = []
    for name in names[1:]:
        played = summary.get(name, {}).get("self_play")
        if played and played["runs"]:
            rewards.append((name, played["correct"] / played["runs"]))
    recipe_plot(stages, rewards, run_dir / "training.png")
