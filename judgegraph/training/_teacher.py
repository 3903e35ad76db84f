"""A teacher for the agentic judge: the evidence judge's deterministic tool plan, played in the agentic judge's
own action format, so its runs are agentic-judge trajectories (the same messages, JSON actions, tool results
and verdicts the graph produces for any model) and its SFT export is in the student's format.

The teacher is a `ChatModel`: the agentic graph runs unchanged with it in place of the model. Each turn it
reads which request and candidate order the conversation is about, then answers with the next call the evidence
judge made on the same request (its plans, then the follow-ups it ran while undecided: differential testing,
an oracle), or, for a lesson without its calls, the next one the request's evidence plans (tools in the
judge's order, candidates A, B, ...); when none is left, the verdict the evidence judge reached. A conversation
that is no lesson's (a tool asking the model: an oracle's reference programs) goes to the `fallback` model,
the one the evidence judge asked. Its runs carry the model name `teacher:evidence`."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from typing_extensions import Unpack

from judgegraph.backends import BackendProfile, ChatModel, ChatOptions, backend_profiles
from judgegraph.graphs import LETTERS, RATIONALE_CHARS, as_shown, shown_in
from judgegraph.schema import JudgeRequest, ModelRequest, ModelTurn, ToolCall, ToolCallEvent, Trajectory, Verdict
from judgegraph.tools import tools

TEACHER_MODEL = "teacher:evidence"


@dataclass(frozen=True)
class Lesson:
    """One request and the evidence judge's verdict on it (in the request's candidate indices)."""

    request: JudgeRequest
    verdict: Verdict | None
    calls: tuple[ToolCall, ...] | None = None
    """The evidence judge's tool calls on the request, in order (None: play the request's plans)."""

    @classmethod
    def of(cls, run: Trajectory) -> Lesson:
        """The lesson an evidence judge's run teaches: its request, its calls and its verdict."""
        return cls(run.request, run.verdict, tuple(e.call for e in run.events if isinstance(e, ToolCallEvent)))


class TeacherModel:
    """Plays each lesson's tool plan and verdict as JSON actions (the embedded model's format)."""

    def __init__(self, lessons: Iterable[Lesson], tool_names: list[str], fallback: ChatModel | None = None) -> None:
        """`tool_names`: the agentic judge's tools, in its order (the order the teacher calls them in).
        `fallback`: the model for conversations that are no lesson's (None: they get an error turn)."""
        self._lessons = list(lessons)
        self._tool_names = tool_names
        self._fallback = fallback

    @property
    def profile(self) -> BackendProfile:
        return backend_profiles.get("llama_cpp")

    @property
    def model(self) -> str:
        return TEACHER_MODEL

    async def connect(self) -> None:
        """Nothing to reach."""

    async def close(self) -> None:
        """Nothing to release."""

    async def chat(self, messages: list[dict[str, Any]], **options: Unpack[ChatOptions]) -> ModelTurn:
        schema = options.get("json_schema") or {}
        request = ModelRequest(
            messages=messages,
            tools=options.get("tools") or [],
            params={"model": TEACHER_MODEL, "response_format": {"type": "json_object", "schema": schema}},
        )
        found = self._lesson(messages)
        if found is None:
            if self._fallback is not None:
                return await self._fallback.chat(messages, **options)
            return ModelTurn(
                request=request, error="the teacher has no lesson for this conversation", model=TEACHER_MODEL
            )
        lesson, shown = found
        offered = offered_calls(schema)
        action = planned_call(lesson.request, shown, messages, offered, self._tool_names, calls=lesson.calls)
        if action is None:
            action = self._verdict(
                lesson, shown, with_action="anyOf" in schema or "action" in schema.get("properties", {})
            )
        text = json.dumps(action)
        return ModelTurn(request=request, text=text, finish_reason="stop", backend="teacher", model=TEACHER_MODEL)

    def _lesson(self, messages: list[dict[str, Any]]) -> tuple[Lesson, list[int]] | None:
        """The lesson this conversation is about, and its candidate order (request index at each position)."""
        opening = next((m.get("content") for m in messages if m.get("role") == "user"), None)
        if not isinstance(opening, str):
            return None
        for lesson in self._lessons:
            shown = shown_in(opening, lesson.request)
            if shown is not None:
                return lesson, shown
        return None

    def _verdict(self, lesson: Lesson, shown: list[int], *, with_action: bool) -> dict[str, Any]:
        v = lesson.verdict
        head: dict[str, Any] = {"action": "verdict"} if with_action else {}
        rationale = as_shown(v.rationale, shown)[:RATIONALE_CHARS] if v is not None else ""
        confidence = v.confidence if v is not None and v.confidence is not None else 0.5
        if lesson.request.mode == "pairwise":
            winner = "tie" if v is None or v.winner is None else LETTERS[shown.index(v.winner)]
            return {**head, "winner": winner, "confidence": confidence, "rationale": rationale}
        scores = v.scores if v is not None and v.valid and v.scores else [0.5] * len(shown)
        letters = {LETTERS[pos]: round(1 + 9 * scores[i]) for pos, i in enumerate(shown)}
        return {**head, "scores": letters, "confidence": confidence, "rationale": rationale}


def planned_call(
    request: JudgeRequest,
    shown: list[int],
    messages: list[dict[str, Any]],
    offered: dict[str, dict[str, Any]],
    tool_names: list[str],
    instead: str | None = None,
    calls: Sequence[ToolCall] | None = None,
) -> dict[str, Any] | None:
    """The first call the request's evidence plans (tools in `tool_names`' order, candidates A, B, ...) that this
    conversation has not made, as an action the schema offers; None when every planned call is made. `instead`:
    a tool the conversation already called in place of its planned reading (an exploring opening: a page or a
    region rather than the task's retrieval or the whole image), so its planned calls that name no candidate
    count as made. `calls`: the calls to make, in order (an evidence judge's, follow-ups included), instead of
    the plans."""
    said = "\n".join(str(m.get("content")) for m in messages if m.get("role") == "user")
    if calls is None:
        calls = [c for name in tool_names if (plan := _plan(name, offered)) is not None for c in plan(request)]
    for call in calls:
        name = call.name
        if name not in offered:
            continue
        arguments = fitted(dict(call.arguments), offered[name])
        if "candidate" in arguments:
            arguments["candidate"] = shown.index(int(arguments["candidate"]))
            if arguments["candidate"] not in offered[name]["properties"]["candidate"]["enum"]:
                continue  # checked already in this conversation
        elif name == instead or f"Result of {name}({json.dumps(arguments)})" in said:
            continue
        return {"action": "call", "tool": name, "arguments": arguments}
    return None


def _plan(name: str, offered: dict[str, dict[str, Any]]) -> Callable[[JudgeRequest], list[ToolCall]] | None:
    return tools.get(name).plan if name in offered and name in tools else None


def offered_calls(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """tool -> the argument schema of each call the action schema still offers."""
    out = {}
    for alternative in schema.get("anyOf", [schema]):
        props = alternative.get("properties", {})
        if props.get("action", {}).get("const") == "call":
            out[props["tool"]["const"]] = props["arguments"]
    return out


def fitted(arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """A planned call's arguments stated the way the narrowed schema asks: the alternative (of an `anyOf`)
    that takes these arguments, its required ones that the plan left to their defaults filled in, strings
    cut to the schema's length. What the teacher says is then what a constrained student could say."""
    branches = schema.get("anyOf", [schema])
    branch = next(
        (b for b in branches if _takes(b.get("properties", {}), arguments)),
        next((b for b in branches if set(arguments) <= set(b.get("properties", {}))), branches[0]),
    )
    props = branch.get("properties", {})
    out = {k: v for k, v in arguments.items() if k in props}
    for name in branch.get("required", []):
        if name not in out and "default" in props[name]:
            out[name] = props[name]["default"]
    for name, value in out.items():
        if isinstance(value, str) and "maxLength" in props[name]:
            out[name] = value[: props[name]["maxLength"]]
    return out


def _takes(props: dict[str, Any], arguments: dict[str, Any]) -> bool:
    """Whether a branch has every argument and each fixed value it states (`retrieve`'s page of one document)."""
    return set(arguments) <= set(props) and all(
        ("const" not in props[k] or props[k]["const"] == v) and ("enum" not in props[k] or v in props[k]["enum"])
        for k, v in arguments.items()
    )
