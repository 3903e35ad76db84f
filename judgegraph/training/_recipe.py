"""The whole recipe in one call: collect teacher runs on the training split, export them as SFT data through
the store, fine-tune the embedded model with TRL, convert the result to GGUF for the embedded server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from judgegraph.backends._embedded import embedded_model_path
from judgegraph.output import export
from judgegraph.settings import Settings
from judgegraph.store import TrajectoryStore
from judgegraph.training._collect import VERIFIABLE, collect_teacher_runs
from judgegraph.training._gguf import to_gguf
from judgegraph.training._sft import SFTSettings, train_sft


def export_sft(store: Path, out: Path, judge: str = "agentic") -> int:
    """The store's complete runs of `judge` as the `sft` export (what `judgegraph export --format sft` writes)."""
    st = TrajectoryStore(store)
    try:
        runs = [st.get(r.id) for r in st.list_runs(judge=judge, limit=1_000_000) if r.status == "complete"]
    finally:
        st.close()
    return export(runs, "sft", out)


def recipe(
    run_dir: Path,
    *,
    sets: list[str] | None = None,
    per_set: int = 4,
    sft: SFTSettings | None = None,
    settings: Settings | None = None,
    base: Path | None = None,
) -> dict[str, Any]:
    """collect -> export -> SFT -> GGUF, each stage's output in `run_dir`; a stage whose output exists is
    skipped, so a run stopped midway (Ctrl-C) resumes where it was. Blocking: call it from a thread when an
    event loop is running."""
    run_dir.mkdir(parents=True, exist_ok=True)
    settings = settings or Settings.from_env()
    store = run_dir / "runs.db"
    data = run_dir / "sft.jsonl"
    summary: dict[str, Any] = {}
    if not data.exists():
        collected = asyncio.run(collect_teacher_runs(sets or VERIFIABLE, per_set, settings, store))
        summary["collected"] = collected.model_dump(mode="json")
        rows = export_sft(store, data.with_suffix(".partial.jsonl"))
        data.with_suffix(".partial.jsonl").rename(data)
        summary["sft_rows"] = rows
    trained = run_dir / "sft"
    if not (trained / "summary.json").exists():
        summary["sft"] = train_sft(data, base or embedded_model_path(), trained, sft)
    gguf = run_dir / "judge.gguf"
    if not gguf.exists():
        to_gguf(trained / "model", gguf)
    summary["gguf"] = str(gguf)
    (run_dir / "recipe.json").write_text(json.dumps(summary, indent=1))
    return summary
