"""Exploration for self-play: where no plan knows the right call (which region of an image holds the small print,
which page of a large collection holds the fact), a model trained on the teacher never tries it, so sampling
alone never finds the runs that would teach it.

`ExploringModel` opens each conversation of a run with one call a tool proposes to explore (`ToolDef.explore`: each
quarter of an image, read; each page of a document the task names), in place of that tool's planned reading (the
task's retrieval, the whole image's), goes on with the rest of the calls the request's evidence plans (the teacher's
plan: each candidate's claims checked, now against what the opening read), then hands the conversation to the model
for its ruling. So an exploring run reads once, then checks, as a plain run does, and the model sees one shape of
plan whichever read it opens with (trained on exploring runs that read a page and then also retrieved by the task,
the model carried the page read to requests with one single-page document and ruled there after its two reads
without checking: documents 100% -> 33%, EVALS.md). Each proposal is tried in one run; the reward then keeps a run
where the proposal paid off (the evidence decided it, rightly), and SFT on the kept runs teaches the model to make
that call, and the checks after it, itself. The plan is played rather than left to the model because a model trained
on the teacher rules as soon as the teacher would have: after a zoom that read one candidate's number it ruled
before checking the other (measured in `make train`, EVALS.md), and the run that would have taught the zoom was
lost.
The calls played here are recorded as model turns (backend `explore`), so the run replays and exports like any other.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from typing_extensions import Unpack

from judgegraph.backends import BackendProfile, ChatModel, ChatOptions
from judgegraph.graphs import shown_in
from judgegraph.schema import JudgeRequest, ModelRequest, ModelTurn, ToolCall
from judgegraph.tools import tools
from judgegraph.training._teacher import fitted, offered_calls, planned_call

EXPLORE_BACKEND = "explore"


def proposals(request: JudgeRequest, tool_names: Iterable[str]) -> list[ToolCall]:
    """The calls the judge's tools propose to explore for `request`, in the judge's tool order."""
    out: list[ToolCall] = []
    for name in tool_names:
        explore = tools.get(name).explore if name in tools else None
        if explore is not None:
            out += explore(request)
    return out


class ExploringModel:
    """`model`, except that a conversation about one of `openings`' requests starts with the call given there,
    then makes the calls the request's evidence plans, and only then is the model's."""

    def __init__(
        self, model: ChatModel, openings: dict[str, tuple[JudgeRequest, ToolCall]], tool_names: list[str]
    ) -> None:
        """`openings`: request id -> (the request, the call its conversations open with); `tool_names`: the judge's
        tools, in its order (the order the planned calls are made in)."""
        self._model = model
        self._openings = list(openings.values())
        self._tool_names = tool_names

    @property
    def profile(self) -> BackendProfile:
        return self._model.profile

    @property
    def model(self) -> str:
        return self._model.model

    async def connect(self) -> None:
        await self._model.connect()

    async def close(self) -> None:
        await self._model.close()

    async def chat(self, messages: list[dict[str, Any]], **options: Unpack[ChatOptions]) -> ModelTurn:
        schema = options.get("json_schema") or {}
        action = self._played_action(messages, schema)
        if action is None:
            return await self._model.chat(messages, **options)
        request = ModelRequest(
            messages=messages,
            tools=options.get("tools") or [],
            params={"model": self.model, "response_format": {"type": "json_object", "schema": schema}},
        )
        return ModelTurn(
            request=request, text=json.dumps(action), finish_reason="stop", backend=EXPLORE_BACKEND, model=self.model
        )

    def _played_action(self, messages: list[dict[str, Any]], schema: dict[str, Any]) -> dict[str, Any] | None:
        """In a conversation about a request with an opening: the opening call as its first action (no result read
        yet), then each planned call the schema still offers; None when the model's turn has come."""
        opening = next((m.get("content") for m in messages if m.get("role") == "user"), None)
        offered = offered_calls(schema)
        if not isinstance(opening, str) or not offered:
            return None
        for request, call in self._openings:
            shown = shown_in(opening, request)
            if shown is None:
                continue
            if not any(m.get("role") == "assistant" for m in messages):  # its first action
                if call.name not in offered:
                    return None
                return {
                    "action": "call",
                    "tool": call.name,
                    "arguments": fitted(dict(call.arguments), offered[call.name]),
                }
            return planned_call(request, shown, messages, offered, self._tool_names, instead=call.name)
        return None
