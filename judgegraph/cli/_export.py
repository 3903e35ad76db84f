"""`judgegraph export`: recorded runs as training data."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from judgegraph.cli._common import existing_store, fail, out
from judgegraph.cli._options import StoreOpt, with_run_filters
from judgegraph.output import exporters

if TYPE_CHECKING:
    from judgegraph.store import RunFilter


@with_run_filters
def export(
    fmt: Annotated[str, typer.Option("--format", help=" | ".join(exporters))],
    output: Annotated[Path, typer.Option("-o", "--output", help="A .jsonl or .parquet file.")],
    store: StoreOpt = None,
    limit: Annotated[int, typer.Option(min=1)] = 100_000,
    *,
    where: RunFilter,
) -> None:
    """Export recorded runs as training data for the judge (JSONL, or Parquet by the file's suffix)."""
    from judgegraph.output import export as write_export
    from judgegraph.store import TrajectoryStore

    if fmt not in exporters:
        raise fail(f"unknown format {fmt!r}; known: {', '.join(exporters)}")
    path = existing_store(store)
    with TrajectoryStore(path) as st:
        found = st.list_runs(where=where, limit=limit)
        trajectories = [st.get(r.id) for r in found if r.status == "complete"]
    rows = write_export(trajectories, fmt, output)
    out.print(f"wrote {rows} {fmt} rows from {len(trajectories)} runs to {output}")
