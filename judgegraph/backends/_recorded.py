"""A model that answers from a recording: replay runs a judge again with no model behind it."""

from __future__ import annotations

import json
from typing import Any

from typing_extensions import Unpack

from judgegraph.backends._client import ChatModel, ChatOptions
from judgegraph.backends._profiles import BackendProfile, backend_profiles
from judgegraph.schema._artifacts import images_to_refs
from judgegraph.schema._trajectory import ModelTurn


def _key(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
    # Recorded requests hold images by hash; live ones inline: compare them the same way.
    canonical = [images_to_refs(m) for m in messages]
    return json.dumps([canonical, tools or []], sort_keys=True)


class RecordedModel:
    """Serves a trajectory's model turns back, each to the request it answered (order does not matter:
    parallel nodes may ask in a different order). A request that was never made is recorded as a miss."""

    def __init__(
        self, turns: list[ModelTurn], *, backend: str = "generic", model: str = "", live: ChatModel | None = None
    ) -> None:
        """`live`: a model client that answers what the recording does not (replay from a step, live)."""
        self.live = live
        self._turns: dict[str, list[ModelTurn]] = {}
        for turn in turns:
            self._turns.setdefault(_key(turn.request.messages, turn.request.tools), []).append(turn)
        self.profile: BackendProfile = (
            backend_profiles.get(backend) if backend in backend_profiles else backend_profiles.get("generic")
        )
        self.model = model
        self.misses: list[str] = []

    async def chat(self, messages: list[dict[str, Any]], **options: Unpack[ChatOptions]) -> ModelTurn:
        queue = self._turns.get(_key(messages, options.get("tools")))
        if not queue and self.live is not None:
            return await self.live.chat(messages, **options)
        if not queue:
            last = messages[-1].get("content") if messages else ""
            self.misses.append(f"a model request the recording does not have (last message: {str(last)[:160]!r})")
            return ModelTurn.model_validate(
                {
                    "request": {"messages": messages, "tools": options.get("tools") or []},
                    "error": "replay: this request is not in the recording",
                }
            )
        turn = queue.pop(0)
        return turn.model_copy(update={"seq": 0, "t": 0.0, "node": ""})  # the recorder re-numbers it

    def unused(self) -> int:
        """Recorded turns nobody asked for again."""
        return sum(len(q) for q in self._turns.values())

    async def connect(self) -> None:
        """Nothing to reach: the recording answers (a live model, if any, is connected by its owner)."""

    async def close(self) -> None:
        return None
