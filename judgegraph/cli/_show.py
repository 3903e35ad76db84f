"""Rendering one trajectory for the terminal."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from judgegraph.schema import (
    ErrorEvent,
    ModelTurn,
    NodeEvent,
    ToolCallEvent,
    ToolResultEvent,
    Trajectory,
    VerdictEvent,
)


def _clip(text: str, n: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _summary(event: object) -> tuple[str, str]:
    if isinstance(event, NodeEvent):
        return f"node {event.phase}", event.error or (", ".join(event.update) if event.update else "")
    if isinstance(event, ModelTurn):
        what = event.error or (event.text or "") or f"{len(event.tool_calls)} tool call(s)"
        usage = f"[{event.usage.prompt_tokens}+{event.usage.completion_tokens} tok, {event.latency_s:.2f}s] "
        return "model turn", usage + _clip(what)
    if isinstance(event, ToolCallEvent):
        return "tool call", f"{event.call.name}({event.call.arguments}) {event.call.reason}"
    if isinstance(event, ToolResultEvent):
        r = event.result
        return "tool result", ("" if r.ok else "FAILED ") + _clip(r.text)
    if isinstance(event, VerdictEvent):
        v = event.verdict
        return "verdict", f"winner={v.winner} scores={v.scores} valid={v.valid} by {v.decided_by}"
    if isinstance(event, ErrorEvent):
        return "error", event.message
    return "event", ""


def render_trajectory(t: Trajectory, console: Console) -> None:
    """Header, request, timeline of events, verdict."""
    console.print(f"[bold]{t.id}[/bold]  judge {t.judge} ({t.versions.judge})  status {t.status}")
    console.print(f"model {t.versions.model or '-'} via {t.versions.backend or '-'}  duration {t.duration_s or 0:.2f}s")
    r = t.request
    console.print(f"request {r.id} ({r.mode}): {_clip(r.prompt)}")
    for i, c in enumerate(r.candidates):
        console.print(f"  candidate {i}: {_clip(c.content)}")
    if r.reference:
        console.print(f"  reference: {_clip(r.reference)}")
    console.print("path: " + " -> ".join(t.path))
    table = Table()
    for col in ("#", "t (s)", "node", "event", "detail"):
        table.add_column(col)
    for e in t.events:
        kind, detail = _summary(e)
        table.add_row(str(e.seq), f"{e.t:.3f}", e.node, kind, detail)
    console.print(table)
    if t.verdict is not None:
        v = t.verdict
        console.print(f"verdict: winner={v.winner} scores={v.scores} valid={v.valid} decided by {v.decided_by}")
        if v.rationale:
            console.print(f"  rationale: {_clip(v.rationale, 400)}")
        if v.error:
            console.print(f"  [red]invalid:[/red] {v.error}")
    if t.label is not None:
        console.print(f"label: {t.label.model_dump(exclude_defaults=True)}  correct: {t.correct}")
