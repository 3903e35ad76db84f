"""Exploration for self-play: where no plan knows the right call (which region of an image holds the small print),
a model trained on the teacher never tries it, so sampling alone never finds the runs that would teach it.

`ExploringModel` opens each conversation of a run with one call a tool proposes to explore (`ToolDef.explore`:
each quarter of an image, read), then hands the conversation to the model, which goes on as it would after any
call of its own. Each proposal is tried in one run; the reward then keeps a run where the proposal paid off
(the evidence decided it, rightly), and SFT on the kept runs teaches the model to make that call itself.
The opening call is recorded as a model turn (backend `explore`), so the run replays and exports like any other.
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
from judgegraph.training._teacher import fitted, offered_calls

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
    """`model`, except that a conversation about one of `openings`' requests starts with the call given there."""

    def __init__(self, model: ChatModel, openings: dict[str, tuple[JudgeRequest, ToolCall]]) -> None:
        """`openings`: request id -> (the request, the call its conversations open with)."""
        self._model = model
        self._openings = list(openings.values())

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
        call = self._opening_call(messages, options.get("json_schema") or {})
        if call is None:
            return await self._model.chat(messages, **options)
        schema = options.get("json_schema")
        request = ModelRequest(
            messages=messages,
            tools=options.get("tools") or [],
            params={"model": self.model, "response_format": {"type": "json_object", "schema": schema}},
        )
        action = {"action": "call", "tool": call.name, "arguments": call.arguments}
        return ModelTurn(
            request=request, text=json.dumps(action), finish_reason="stop", backend=EXPLORE_BACKEND, model=self.model
        )

    def _opening_call(self, messages: list[dict[str, Any]], schema: dict[str, Any]) -> ToolCall | None:
        """The exploring call, stated as the action schema asks, where this is a conversation's first action
        (no result read yet) about a request with an opening that the schema offers."""
        user = [m.get("content") for m in messages if m.get("role") == "user"]
        if len(user) != 1 or not isinstance(user[0], str):
            return None
        offered = offered_calls(schema)
        for request, call in self._openings:
            if call.name in offered and shown_in(user[0], request) is not None:
                return call.model_copy(update={"arguments": fitted(dict(call.arguments), offered[call.name])})
        return None
