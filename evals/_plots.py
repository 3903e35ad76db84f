"""Eval plots (matplotlib, PNG, no display): accuracy per category, tool usage, latency, calibration."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judgegraph.evals._harness import EvalReport


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display, no GUI toolkit
    import matplotlib.pyplot as plt

    return plt


def report_plots(report: EvalReport, out_dir: Path) -> list[Path]:
    plt = _pyplot()
    written = []

    def save(fig, name: str) -> None:  # type: ignore[no-untyped-def]
        fig.tight_layout()
        path = out_dir / name
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    cats = list(report.per_category)
    fig, ax = plt.subplots(figsize=(max(4, 1.1 * len(cats) + 2), 3.2))
    ax.bar(cats, [100 * (report.per_category[c].accuracy or 0) for c in cats], color="#4c78a8")
    ax.set_ylim(0, 100)
    ax.set_ylabel("accuracy %")
    ax.set_title(f"{report.judge} on {report.suite}")
    ax.tick_params(axis="x", labelrotation=30)
    save(fig, "accuracy.png")

    usage = report.metrics.tool_usage
    fig, ax = plt.subplots(figsize=(max(4, 1.1 * len(usage) + 2), 3.2))
    ax.bar(list(usage) or ["(none)"], list(usage.values()) or [0], color="#59a14f")
    ax.set_ylabel("calls per judgment")
    ax.set_title("tool usage")
    ax.tick_params(axis="x", labelrotation=30)
    save(fig, "tools.png")

    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.hist([o.wall_s for o in report.outcomes], bins=20, color="#f28e2b", label="judgment")
    ax.hist([o.model_s for o in report.outcomes], bins=20, color="#76b7b2", alpha=0.7, label="model")
    ax.set_xlabel("seconds")
    ax.set_ylabel("judgments")
    ax.set_title("latency")
    ax.legend()
    save(fig, "latency.png")

    fig, ax = plt.subplots(figsize=(4, 4))
    ax.plot([0, 1], [0, 1], color="#999", linestyle="--", label="calibrated")
    bins = report.calibration
    ax.bar(
        [(b.low + b.high) / 2 for b in bins],
        [b.accuracy for b in bins],
        width=0.09,
        color="#e15759",
        alpha=0.8,
        label="accuracy",
    )
    ax.plot([b.confidence for b in bins], [b.accuracy for b in bins], "o", color="#333", label="mean confidence")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("stated confidence")
    ax.set_ylabel("accuracy")
    ax.set_title("calibration" + (f" (ECE {report.ece:.2f})" if report.ece is not None else ""))
    ax.legend(loc="upper left", fontsize=8)
    save(fig, "calibration.png")
    return written


def comparison_plot(accuracy: dict[str, dict[str, float | None]], path: Path) -> Path:
    """Grouped bars: accuracy per eval set (groups) and judge (bars)."""
    plt = _pyplot()
    judges = list(accuracy)
    sets = sorted({s for per in accuracy.values() for s in per})
    width = 0.8 / max(1, len(judges))
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(sets) + 2), 3.8))
    for k, judge in enumerate(judges):
        xs = [i + k * width for i in range(len(sets))]
        ax.bar(xs, [100 * (accuracy[judge].get(s) or 0) for s in sets], width=width, label=judge)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(sets))], sets, rotation=20)
    ax.set_ylim(0, 100)
    ax.set_ylabel("accuracy %")
    ax.legend(fontsize=8, ncol=min(6, len(judges)))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def training_plot(history: list[dict[str, float]], path: Path) -> Path:
    """A trainer's loss (and reward, where it logged one) per optimizer step."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.2))
    for key in ("loss", "reward"):
        points = [(e["step"], e[key]) for e in history if key in e and "step" in e]
        if points:
            ax.plot([s for s, _ in points], [v for _, v in points], marker=".", label=key)
    ax.set_xlabel("step")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def recipe_plot(stages: list[tuple[str, list[dict[str, float]]]], rewards: list[tuple[str, float]], path: Path) -> Path:
    """The training recipe's curves: each SFT stage's loss per step, one after the other, and beside them the
    self-play reward of each rejection-sampling round (share of sampled runs that ruled right)."""
    plt = _pyplot()
    fig, (loss_ax, reward_ax) = plt.subplots(1, 2, figsize=(9, 3.2), gridspec_kw={"width_ratios": [3, 1]})
    offset = 0
    for name, history in stages:
        points = [(e["step"], e["loss"]) for e in history if "loss" in e and "step" in e]
        if points:
            loss_ax.plot([offset + s for s, _ in points], [v for _, v in points], marker=".", label=f"{name} loss")
            offset += int(max(s for s, _ in points))
    loss_ax.set_xlabel("optimizer step (stages in order)")
    loss_ax.legend(fontsize=8)
    reward_ax.bar([n for n, _ in rewards], [r for _, r in rewards])
    reward_ax.set_ylim(0, 1)
    reward_ax.set_ylabel("self-play reward")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
