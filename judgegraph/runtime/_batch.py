"""Judging a JSONL file: every input line yields an output line; a bad line costs only itself."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, Self

from pydantic import BaseModel, ValidationError
from rich.progress import Progress

from judgegraph.errors import field_problems
from judgegraph.runtime._judge import Judge
from judgegraph.schema._request import JudgeRequest
from judgegraph.schema._trajectory import Trajectory
from judgegraph.settings import Settings


class JudgeRunner(Protocol):
    """What judges a batch: a `Judge`, or a `RayJudge` spreading it over a cluster."""

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, *exc: Any) -> None: ...

    async def arun(self, request: JudgeRequest | Mapping[str, object]) -> Trajectory: ...


_FROM_VERDICT = {"winner", "scores", "ranking", "valid", "confidence", "decided_by", "rationale"}
"""The output line's fields that are the verdict's, as it has them."""


class OutputLine(BaseModel):
    """One line of `judgegraph judge` output."""

    id: str | None
    line: int
    """1-based line number in the input."""
    winner: int | None = None
    scores: list[float] = []
    ranking: list[int] = []
    valid: bool = False
    confidence: float | None = None
    decided_by: str | None = None
    rationale: str = ""
    correct: bool | None = None
    """Agreement with the request's label, when it has one."""
    trajectory_id: str | None = None
    invalid_reason: str | None = None
    """Why the verdict is invalid (the model never produced a usable one)."""
    error: str | None = None
    """Why this line failed (bad input, or the judge crashed)."""

    @classmethod
    def from_trajectory(cls, line: int, t: Trajectory) -> OutputLine:
        v = t.verdict
        assert v is not None
        return cls(
            id=t.request.id,
            line=line,
            **v.model_dump(include=_FROM_VERDICT),
            correct=t.correct,
            trajectory_id=t.id,
            invalid_reason=v.error,
        )


class JudgeFileResult(BaseModel):
    output: Path
    lines: list[OutputLine]

    @property
    def failed(self) -> int:
        return sum(1 for line in self.lines if line.error is not None)

    @property
    def judged(self) -> int:
        return len(self.lines) - self.failed


def resolve_paths(request: JudgeRequest, base: Path) -> JudgeRequest:
    """Relative image and document paths are read relative to the input file (where they exist there)."""

    def fix(src: str) -> str:
        if src.startswith("data:") or "://" in src or Path(src).is_absolute():
            return src
        return str(base / src) if (base / src).exists() else src

    return request.model_copy(
        update={
            "images": [fix(s) for s in request.images],
            "candidates": [c.model_copy(update={"images": [fix(s) for s in c.images]}) for c in request.candidates],
            "documents": [d.model_copy(update={"path": fix(d.path)}) if d.path else d for d in request.documents],
        }
    )


def _parse(number: int, text: str, base: Path) -> JudgeRequest | OutputLine:
    raw: Any = None
    try:
        raw = json.loads(text)
        return resolve_paths(JudgeRequest.model_validate(raw), base)
    except json.JSONDecodeError as e:
        return OutputLine(id=None, line=number, error=f"invalid JSON: {e.msg} (column {e.colno})")
    except ValidationError as e:
        rid = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else None
        return OutputLine(id=rid, line=number, error=f"invalid request: {field_problems(e, whole='request')}")


def _read_lines(path: Path) -> list[str]:
    if str(path) == "-":
        return sys.stdin.read().splitlines()
    return path.read_text().splitlines()


def _load(input: Path) -> list[tuple[int, JudgeRequest | OutputLine]]:
    texts = _read_lines(input)
    base = Path.cwd() if str(input) == "-" else input.resolve().parent
    return [(i + 1, _parse(i + 1, t, base)) for i, t in enumerate(texts) if t.strip()]


def _finished(output: Path) -> list[OutputLine]:
    """Result lines already in `output` that need no rerun (judged, not failed). A line cut off by an
    interrupted run is dropped, and the file is rewritten without it."""
    if not output.exists():
        return []
    kept_text, done = [], []
    for text in output.read_text().splitlines():
        try:
            line = OutputLine.model_validate_json(text)
        except ValueError:
            continue
        if line.error is None:
            kept_text.append(text)
            done.append(line)
    output.write_text("".join(t + "\n" for t in kept_text))
    return done


async def judge_file(
    input: Path,
    output: Path,
    judge_name: str,
    settings: Settings,
    *,
    concurrency: int = 4,
    resume: bool = False,
    progress: Progress | None = None,
    runner: JudgeRunner | None = None,
) -> JudgeFileResult:
    """Judge each line of `input` with `concurrency` in flight, writing result lines as they finish.

    With `resume`, lines whose id already has a result in `output` are skipped and new results are appended,
    so an interrupted batch continues without losing or duplicating a line. `runner` judges instead of a
    `Judge` loaded here (e.g. a `RayJudge`); it is entered and closed here.
    """
    parsed = await asyncio.to_thread(_load, input)
    output.parent.mkdir(parents=True, exist_ok=True)
    previous = await asyncio.to_thread(_finished, output) if resume else []
    done_ids = {line.id for line in previous}
    todo = [(n, item) for n, item in parsed if not (isinstance(item, JudgeRequest) and item.id in done_ids)]
    results: list[OutputLine] = list(previous)
    sem = asyncio.Semaphore(concurrency)
    write_lock = asyncio.Lock()
    judge = runner or Judge.load(judge_name, settings=settings)
    task = progress.add_task("judging", total=len(todo), failed=0) if progress else None
    failed = 0
    with output.open("a" if resume else "w") as sink:

        async def emit(line: OutputLine) -> None:
            nonlocal failed
            async with write_lock:
                results.append(line)
                sink.write(line.model_dump_json() + "\n")  # one whole line per write, flushed
                sink.flush()
                failed += line.error is not None
                if progress is not None and task is not None:
                    progress.update(task, advance=1, failed=failed)

        async def one(number: int, item: JudgeRequest | OutputLine) -> None:
            if isinstance(item, OutputLine):
                await emit(item)
                return
            async with sem:
                try:
                    trajectory = await judge.arun(item)
                except Exception as e:  # the run is recorded as incomplete; this line fails, the batch goes on
                    await emit(OutputLine(id=item.id, line=number, error=f"{type(e).__name__}: {e}"))
                    return
            await emit(OutputLine.from_trajectory(number, trajectory))

        async with judge:
            await asyncio.gather(*(one(n, item) for n, item in todo))
    results.sort(key=lambda line: line.line)
    return JudgeFileResult(output=output, lines=results)
