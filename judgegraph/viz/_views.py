"""What the viewer's pages show, computed from trajectories: timeline rows, crop boxes, diffs, eval reports."""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgegraph.runtime._replay import first_divergence
from judgegraph.schema import (
    ErrorEvent,
    Event,
    ModelTurn,
    NodeEvent,
    ToolCallEvent,
    ToolResult,
    ToolResultEvent,
    Trajectory,
    VerdictEvent,
)

PAGE_EVENTS = 100
"""Events per page of a run's timeline."""
BIG_TEXT = 4000
"""Longer texts are cut in the timeline; the whole event loads on demand."""


@dataclass
class Crop:
    """Where a zoom was taken: its source image's URL and the box as fractions of that image."""

    source: str
    source_url: str | None
    box: tuple[float, float, float, float] | None
    """left, top, width, height in [0, 1]; None when the source's size is unknown."""


@dataclass
class Row:
    """One event of the timeline, as shown."""

    seq: int
    t: float
    node: str
    kind: str
    title: str
    text: str = ""
    cut: bool = False
    """`text` was cut (the whole event is one click away)."""
    fields: dict[str, Any] = field(default_factory=dict)
    images: list[str] = field(default_factory=list)
    """Artifact hashes."""
    crop: Crop | None = None
    ok: bool | None = None


def _cut(text: str | None) -> tuple[str, bool]:
    text = text or ""
    return (text[:BIG_TEXT], True) if len(text) > BIG_TEXT else (text, False)


def _json(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False, default=str)


class ImageSizes:
    """Pixel sizes of the images a run can zoom into: its inputs (each read once, when first needed) and its
    earlier observations."""

    def __init__(self, trajectory: Trajectory, input_size: Callable[[int], tuple[int, int] | None]) -> None:
        self.run_id = trajectory.id
        self._inputs = trajectory.request.images
        self._input_size = functools.cache(input_size)
        self.observations: dict[str, tuple[str, tuple[int, int]]] = {}
        """observation name -> (artifact hash, pixel size)."""

    def source(self, name: str) -> tuple[str | None, tuple[int, int] | None]:
        if name in self.observations:
            digest, size = self.observations[name]
            return f"/artifacts/{digest}", size
        index = 0 if name == "original_image" else int(name.split("_")[1]) if name.startswith("image_") else None
        if index is None or index >= len(self._inputs):
            return None, None
        return f"/runs/{self.run_id}/inputs/{index}", self._input_size(index)


def _crop(result: Any, sizes: ImageSizes) -> Crop | None:
    data = result.data or {}
    if result.name != "zoom_image" or "crop_px" not in data or "source" not in data:
        return None
    url, size = sizes.source(str(data["source"]))
    box = None
    if size and size[0] and size[1]:
        x0, y0, x1, y1 = data["crop_px"]
        box = (x0 / size[0], y0 / size[1], (x1 - x0) / size[0], (y1 - y0) / size[1])
    if result.images and "observation" in data and "size" in data:
        width, height = data["size"]
        sizes.observations[str(data["observation"])] = (result.images[0], (int(width), int(height)))
    return Crop(source=str(data["source"]), source_url=url, box=box)


def _row(event: Event, **fields: Any) -> Row:
    return Row(seq=event.seq, t=event.t, node=event.node, **fields)


def row(event: Event, sizes: ImageSizes | None = None) -> Row:
    """One event as a timeline row."""
    fields: dict[str, Any]
    if isinstance(event, NodeEvent):
        title = f"{event.phase} {event.node}"
        text = event.error or ""
        return _row(event, kind=f"node-{event.phase}", title=title, text=text, fields={"update": event.update})
    if isinstance(event, ModelTurn):
        text, cut = _cut(event.text)
        usage = event.usage
        fields = {
            "latency": f"{event.latency_s * 1000:.0f} ms",
            "tokens": f"{usage.prompt_tokens} in / {usage.completion_tokens} out",
            "finish": event.finish_reason,
            "messages": len(event.request.messages),
        }
        if event.tool_calls:
            fields["tool calls"] = ", ".join(f"{c.name}({_json(c.arguments)})" for c in event.tool_calls)
        if event.error:
            fields["error"] = event.error
        return _row(
            event,
            kind="model",
            title=f"model turn ({event.model or event.backend})",
            text=text,
            cut=cut,
            fields=fields,
            ok=event.error is None,
        )
    if isinstance(event, ToolCallEvent):
        call = event.call
        fields = {"by": call.source, "reason": call.reason, "arguments": _json(call.arguments)}
        return _row(event, kind="tool-call", title=f"call {call.name}", fields=fields)
    if isinstance(event, ToolResultEvent):
        result = event.result
        text, cut = _cut(result.text)
        fields = {"duration": f"{result.duration_s * 1000:.0f} ms"}
        if not result.ok:
            fields["error"] = f"{result.error_kind}: {result.error}"
        data = result.data or {}
        for stream in ("stdout", "stderr"):  # sandbox output, where the tool reports it
            value = data.get(stream) or data.get(f"{stream}_tail")
            if value:
                fields[stream] = str(value)[:BIG_TEXT]
        crop = _crop(result, sizes) if sizes is not None else None
        return _row(
            event,
            kind="tool-result",
            title=f"{result.name} {'ok' if result.ok else 'failed'}",
            text=text,
            cut=cut,
            fields=fields,
            images=list(result.images),
            crop=crop,
            ok=result.ok,
        )
    if isinstance(event, VerdictEvent):
        v = event.verdict
        title = f"verdict: winner {v.winner}" if v.valid else "verdict: invalid"
        return _row(
            event,
            kind="verdict",
            title=title,
            text=v.rationale or (v.error or ""),
            fields={"scores": v.scores, "decided by": v.decided_by, "consistent": v.consistent},
        )
    assert isinstance(event, ErrorEvent)
    return _row(event, kind="error", title=f"error ({event.kind})", text=event.message, ok=False)


@dataclass
class Claim:
    candidate: int
    claim: str
    status: str
    checker: str
    detail: str


def claims(results: Iterable[ToolResult]) -> list[Claim]:
    """Per-claim results of the proposition checker among `results`."""
    from judgegraph.tools.claims.propositions import PropositionsResult

    out = []
    for result in results:
        if result.name != "check_propositions" or not result.ok or not result.data:
            continue
        data = PropositionsResult.model_validate(result.data)
        for c in data.claims:
            detail = f"{c.span} ({c.source})" if c.source else c.span
            out.append(
                Claim(candidate=data.candidate, claim=c.claim.text, status=c.verdict, checker=c.method, detail=detail)
            )
    return out


@dataclass(frozen=True)
class MadeCheck:
    """One check the judge made itself: a statement example run, a disagreement input, a program it ran."""

    kind: str
    """`statement`, `disagreement`, `derived` (an oracle's output or a derived reference answer), `computation`
(a response's arithmetic recomputed) or `python`."""
    candidate: str
    input: str
    expected: str
    got: str
    outcome: str


def made_evidence(results: Iterable[ToolResult]) -> list[MadeCheck]:
    """The statement's examples as each candidate ran them, the inputs on which candidates disagreed, the outputs
    the model's reference programs derived there, a derived reference answer, each response's computations
    recomputed, and the programs the model wrote with what they printed (issue #21's evidence, shown apart from
    the timeline)."""
    from judgegraph.tools import (
        CheckComputationsResult,
        DerivedReferenceResult,
        DifferentialResult,
        OracleCheckResult,
        PythonResult,
        RunExamplesResult,
    )

    out = []
    for result in results:
        if not result.ok or not result.data:
            continue
        if result.name == "run_examples":
            ran = RunExamplesResult.model_validate(result.data)
            for c in ran.cases:
                outcome = c.outcome if c.decisive else f"{c.outcome} (informs only)"
                out.append(MadeCheck("statement", str(ran.candidate), c.input, c.expected, c.got, outcome))
        elif result.name == "differential_test":
            diff = DifferentialResult.model_validate(result.data)
            for d in diff.disagreements:
                got = "\n".join(f"{i}: {o}" for i, o in enumerate(d.outputs))
                said = "outputs differ" + (" (an input the model's generator wrote)" if d.origin == "model" else "")
                out.append(MadeCheck("disagreement", "all", d.input, "", got, said))
        elif result.name == "oracle_check":
            oracle = OracleCheckResult.model_validate(result.data)
            for o in oracle.cases:
                expected = f"{o.expected} ({o.votes}/{oracle.samples} programs)" if o.expected is not None else ""
                outcome = "no majority" if o.agrees is None else "agrees" if o.agrees else "differs"
                out.append(MadeCheck("derived", str(oracle.candidate), o.input, expected, o.got, outcome))
        elif result.name == "derived_reference":
            ref = DerivedReferenceResult.model_validate(result.data)
            derivation = ref.derived
            expected = (
                f"{derivation.answer} ({derivation.votes}/{derivation.samples} programs)"
                if derivation.answer is not None
                else "no answer"
            )
            outcome = ("matches" if ref.matches else "differs") + ("" if ref.decisive else " (no majority)")
            out.append(
                MadeCheck("derived", str(ref.candidate), "the final answer", expected, ref.extracted or "", outcome)
            )
        elif result.name == "check_computations":
            checked = CheckComputationsResult.model_validate(result.data)
            for comp in checked.computations:
                out.append(MadeCheck("computation", str(checked.candidate), comp.written, comp.value, "", comp.finding))
        elif result.name == "python":
            ran_py = PythonResult.model_validate(result.data)
            outcome = "timed out" if ran_py.timed_out else f"exit {ran_py.exit_code}"
            out.append(MadeCheck("python", "", ran_py.code, "", (ran_py.stdout + ran_py.error)[-1000:], outcome))
    return out


_IDS = re.compile(r"\b(call|turn|run)_[0-9a-f]{20}\b")
_TIMINGS = frozenset({"t", "seq", "duration_s", "latency_s", "attempts"})


def _scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items() if k not in _TIMINGS}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


def event_signature(event: Event) -> str:
    """What must match for two runs to have done the same thing at this step: the event without its timings
    and with its generated ids (`call_…`, `turn_…`, which differ in every run) blanked."""
    data = _scrub(event.model_dump(mode="json"))
    if isinstance(event, ModelTurn):  # the reply, not the transport details
        data = {k: data[k] for k in ("event", "node", "text", "tool_calls", "error")}
    return _IDS.sub(r"\1_*", json.dumps(data, sort_keys=True, default=str))


@dataclass
class Diff:
    a: Trajectory
    b: Trajectory
    divergence: str | None
    pairs: list[tuple[Row | None, Row | None, bool]]
    """Events side by side, and whether that pair differs."""
    first: int | None
    """Index in `pairs` of the first step one run took and the other did not."""


def _first_unmatched(xs: list[str], ys: list[str]) -> int | None:
    """The index of the first of `xs` that `ys` has no (further) copy of."""
    left = Counter(ys)
    for i, x in enumerate(xs):
        if left[x]:
            left[x] -= 1
        else:
            return i
    return None


def diff(a: Trajectory, b: Trajectory) -> Diff:
    """Two runs side by side, aligned event by event; the first step one run took and the other did not is
    marked (parallel branches may interleave differently, so a reordered event is not a divergence)."""
    sa, sb = [event_signature(e) for e in a.events], [event_signature(e) for e in b.events]
    pairs: list[tuple[Row | None, Row | None, bool]] = []
    where_a: dict[int, int] = {}
    where_b: dict[int, int] = {}
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=sa, b=sb, autojunk=False).get_opcodes():
        for k in range(max(i2 - i1, j2 - j1)):
            ia = i1 + k if i1 + k < i2 else None
            jb = j1 + k if j1 + k < j2 else None
            if ia is not None:
                where_a[ia] = len(pairs)
            if jb is not None:
                where_b[jb] = len(pairs)
            pairs.append(
                (
                    row(a.events[ia]) if ia is not None else None,
                    row(b.events[jb]) if jb is not None else None,
                    op != "equal",
                )
            )
    extra_b, extra_a = _first_unmatched(sb, sa), _first_unmatched(sa, sb)
    candidates = [where_b[extra_b]] if extra_b is not None else []
    candidates += [where_a[extra_a]] if extra_a is not None else []
    return Diff(a=a, b=b, divergence=first_divergence(a, b), pairs=pairs, first=min(candidates, default=None))


@dataclass
class EvalReport:
    name: str
    path: Path
    report: dict[str, Any]
    plots: list[str]


def eval_reports(root: Path | None) -> list[EvalReport]:
    """Eval runs under `root` (at any depth, as `eval all` nests them): each a folder with `report.json` and
    its plots (PNG), named by its path under `root`."""
    if root is None or not root.is_dir():
        return []
    out = []
    for report in sorted(root.glob("**/report.json")):
        try:
            data = json.loads(report.read_text())
        except (OSError, ValueError):
            continue
        plots = sorted(p.name for p in report.parent.glob("*.png"))
        name = report.parent.relative_to(root).as_posix()
        out.append(EvalReport(name=name, path=report.parent, report=data, plots=plots))
    return out
