"""Adding a tool, a judge graph, a sandbox backend and an export format: each is one registration (plus its
own code), and everything that offers a choice (the CLI's help, `sandbox doctor`, `auto`, `Judge.load`, the
checkpoint allow-list, `judgegraph export`) sees it without another edit. CONTRIBUTING.md names the files."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from benchmarks.fake_openai import FakeOpenAI
from judgegraph import Judge
from judgegraph.agents import JudgeSpec, judges
from judgegraph.backends import OpenedModel, backend_profiles, model_backend, model_backends
from judgegraph.cli import app
from judgegraph.errors import ConfigError, SandboxUnavailableError, UnknownComponentError
from judgegraph.graphs import EvidenceFirstGraph, EvidenceOptions, checkpointed_types, graph_kinds, register_graph
from judgegraph.output import exporters
from judgegraph.sandboxes import Limits, auto_order, doctor, sandbox_backends
from judgegraph.schema import JudgeRequest, ModelRequest, ModelTurn, ToolCall, Trajectory
from judgegraph.settings import Settings
from judgegraph.tools import ToolContext, ToolOutput, call_tool, tool, tools


# --- a tool: one decorator ---------------------------------------------------------------------------------
class _EchoArgs(BaseModel):
    candidate: int


@tool("test_echo_length")
async def _echo_length(args: _EchoArgs, ctx: ToolContext) -> ToolOutput:
    """Say how long a candidate is."""
    return ToolOutput(text=str(len(ctx.request.candidates[args.candidate].content)))


# --- a judge graph: one register_graph call, with its own options and checkpointed types -------------------
class _StrictnessOptions(EvidenceOptions):
    """The evidence-first knobs plus one of its own."""

    strictness: int = 1


class _Note(BaseModel):
    text: str


class _NotedGraph(EvidenceFirstGraph):
    """The evidence-first wiring under another name, with an option of its own."""


register_graph("test_noted", _NotedGraph, options=_StrictnessOptions, checkpointed=(_Note,))


# --- a sandbox backend: one registration ------------------------------------------------------------------
class _NeverBackend:
    """A backend that is never available here (so `auto` passes over it)."""

    name = "test_never"
    auto_rank = -1  # tried before every real backend

    def __init__(self, limits: Limits | None = None, **_: object) -> None:
        self.limits = limits

    async def start(self) -> None:
        raise SandboxUnavailableError("this backend never runs")

    async def create(self, slot: int) -> Any:
        raise AssertionError("never started")

    async def close(self) -> None:
        pass

    def describe(self) -> str:
        return "never"


@pytest.fixture
def never_backend() -> Iterator[None]:
    # Registered for one test only: `auto` would otherwise try it first in every other test too.
    sandbox_backends.register("test_never", _NeverBackend)
    yield
    sandbox_backends.unregister("test_never")


# --- an export format: one decorator ---------------------------------------------------------------------
@exporters.decorator("test_ids")
def _ids(trajectories: list[Trajectory]) -> Iterable[dict[str, Any]]:
    return ({"id": t.id, "judge": t.judge} for t in trajectories)


# --- a model backend: one registration (an in-process model: no server, no HTTP) --------------------------
class _InProcess:
    """A model in this process that always prefers response A, and a record of whether its judge let it go."""

    profile = backend_profiles.get("generic")
    model = "in-process"
    stopped = False

    async def connect(self) -> None:
        pass

    async def close(self) -> None:
        pass

    async def chat(self, messages: list[dict[str, Any]], **options: Any) -> ModelTurn:
        reply = '{"winner": "A", "confidence": 0.8, "rationale": "in-process"}'
        return ModelTurn(request=ModelRequest(messages=messages), text=reply, finish_reason="stop", model=self.model)

    async def stop(self) -> None:
        type(self).stopped = True


async def _in_process(settings: Settings) -> OpenedModel:
    model = _InProcess()
    return OpenedModel(model, server=model)


model_backends.register("test_in_process", _in_process)

REQUEST = JudgeRequest(id="ext-1", prompt="2+2?", candidates=["4", "5"], reference="4")


async def test_a_registered_model_backend_is_chosen_by_name() -> None:
    async with Judge.load("llm", store=False, backend="test_in_process") as judge:
        t = await judge.arun(REQUEST.model_copy(update={"reference": None}))
    assert t.verdict is not None and t.verdict.valid and t.verdict.winner is None  # A in both orders: a tie
    assert {turn.model for turn in t.model_turns()} == {"in-process"} and _InProcess.stopped
    with pytest.raises(UnknownComponentError, match="test_in_process"):
        model_backend("nope")


async def test_a_registered_tool_is_callable_and_offered_to_models() -> None:
    result = await call_tool(ToolCall(name="test_echo_length", arguments={"candidate": 1}), ToolContext(REQUEST))
    assert result.ok and result.text == "1"
    assert tools.get("test_echo_length").openai_spec()["function"]["parameters"]["required"] == ["candidate"]


async def test_a_registered_graph_loads_judges_validates_its_options_and_checkpoints_its_types(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    base = judges.get("evidence")
    spec = base.model_copy(update={"name": "test_noted_judge", "graph": "test_noted", "options": {"strictness": 3}})
    judges.register("test_noted_judge", spec, replace=True)
    judge = Judge.load("test_noted_judge", store=tmp_path / "runs.db", model_url=fake_openai.url)
    try:
        assert judge._graph.options == _StrictnessOptions(strictness=3)  # type: ignore[attr-defined]
        verdict = await judge.ajudge(REQUEST)  # the reference decides: the model is never asked
        assert verdict.valid and verdict.winner == 0
    finally:
        await judge.aclose()
    assert "test_noted" in graph_kinds
    assert (_Note.__module__, "_Note") in checkpointed_types()
    bad = JudgeSpec(name="bad", description="", graph="test_noted", options={"strictness": "very"})
    judges.register("test_bad_noted", bad, replace=True)
    try:
        with pytest.raises(ConfigError, match="strictness"):
            Judge.load("test_bad_noted", store=False)
    finally:  # other tests list every registered judge (the viewer compiles each)
        judges.unregister("test_bad_noted")
        judges.unregister("test_noted_judge")


@pytest.mark.usefixtures("never_backend")
async def test_a_registered_sandbox_backend_is_tried_by_auto_and_listed_by_doctor() -> None:
    assert auto_order()[0] == "test_never"
    report = await doctor()
    never = next(b for b in report.backends if b.name == "test_never")
    assert not never.available and "never runs" in never.detail
    assert report.active != "test_never" and "test_never is unavailable" in report.reason


async def test_a_registered_export_format_is_written_by_judgegraph_export(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    async with Judge.load("evidence", store=tmp_path / "runs.db", model_url=fake_openai.url) as judge:
        t = await judge.arun(REQUEST)
    out = tmp_path / "ids.jsonl"
    result = CliRunner().invoke(
        app, ["export", "--format", "test_ids", "-o", str(out), "--store", str(tmp_path / "runs.db")]
    )
    assert result.exit_code == 0, result.output
    assert out.read_text().count(t.id) == 1 and '"judge":"evidence"' in out.read_text().replace(" ", "")
