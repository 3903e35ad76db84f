"""Tool results served from a recording (replay): no tool runs; a call the recording lacks is a miss."""

from __future__ import annotations

import json

from judgegraph.schema import Event, ModelTurn, ToolCall, ToolCallEvent, ToolResult, ToolResultEvent


def _key(name: str, arguments: dict[str, object]) -> str:
    return f"{name}:{json.dumps(arguments, sort_keys=True)}"


class RecordedTools:
    """Each recorded (tool, arguments) answers as it did, in the order it was called."""

    def __init__(
        self, pairs: list[tuple[ToolCall, ToolResult]], live: bool = False, turns: list[ModelTurn] | None = None
    ) -> None:
        """`live`: calls the recording lacks run for real (replay from a step, live). `turns`: the model turns
        tools made (`for_call` set), given back with their call's result."""
        self.live = live
        self._results: dict[str, list[ToolResult]] = {}
        for call, result in pairs:
            self._results.setdefault(_key(call.name, call.arguments), []).append(result)
        self._turns: dict[str, list[ModelTurn]] = {}
        for turn in turns or []:
            if turn.for_call is not None:
                self._turns.setdefault(turn.for_call, []).append(turn)
        self.misses: list[str] = []

    @classmethod
    def from_events(
        cls, events: list[Event], overrides: dict[int, ToolResult] | None = None, before: int | None = None
    ) -> RecordedTools:
        """Pairs of calls and results from a trajectory; `overrides` swaps the result recorded at an event seq;
        `before` keeps only what was recorded before that event (the rest runs live)."""
        waiting: dict[str, list[ToolCall]] = {}  # call ids need not be unique across a run (models reuse them)
        pairs = []
        for e in events:
            if isinstance(e, ToolCallEvent):
                waiting.setdefault(e.call.id, []).append(e.call)
            elif isinstance(e, ToolResultEvent) and waiting.get(e.result.call_id):
                call = waiting[e.result.call_id].pop(0)
                if before is None or e.seq < before:
                    pairs.append((call, (overrides or {}).get(e.seq, e.result)))
        turns = [e for e in events if isinstance(e, ModelTurn) and (before is None or e.seq < before)]
        return cls(pairs, live=before is not None, turns=turns)

    def take(self, call: ToolCall) -> ToolResult | None:
        queue = self._results.get(_key(call.name, call.arguments))
        if not queue and self.live:
            return None
        if not queue:
            self.misses.append(f"a tool call the recording does not have: {call.name}({call.arguments})")
            return None
        return queue.pop(0).model_copy(update={"call_id": call.id})

    def take_with_turns(self, call: ToolCall) -> tuple[ToolResult | None, list[ModelTurn]]:
        """The recorded result (as `take`) and the model turns the tool made for it."""
        queue = self._results.get(_key(call.name, call.arguments))
        original = queue[0].call_id if queue else None
        result = self.take(call)
        return result, (self._turns.get(original, []) if result is not None and original else [])

    def unused(self) -> int:
        return sum(len(q) for q in self._results.values())
