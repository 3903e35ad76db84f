"""The judge's own reward as a TRL reward function over the `trl` export, for GRPO on the judge's rulings.

TRL calls a reward function with the prompts, the sampled completions and every dataset column. A completion
is the judge's reply to an exported opening (for the `llm` judge its ruling; for the agentic judge its first
action). A ruling is read with the judge's own verdict parser, mapped from the shown order back to the
request's candidate indices (`shown`), and rewarded like a run (`RewardConfig`: right, wrong, or invalid when
malformed). A tool call has no ruling yet, so no reward from here (None, which TRL leaves out): scoring the
agentic judge's calls needs the whole episode, which is why the recipe trains it by rejection sampling over
real runs of its graph (`_selfplay.py`) rather than with single-turn GRPO."""

from __future__ import annotations

import json
from typing import Any

from judgegraph.errors import VerdictParseError
from judgegraph.graphs import parse_verdict, unshuffle, verdict_format
from judgegraph.runtime import RewardConfig
from judgegraph.schema import Label, Verdict, verdict_correct


def _text(completion: Any) -> str:
    """A completion's text: TRL passes conversational completions as message lists."""
    if isinstance(completion, list):
        return "".join(str(m.get("content") or "") for m in completion if m.get("role") == "assistant")
    return str(completion)


def ruling_score(text: str, label: Label, shown: list[int], mode: str, config: RewardConfig) -> float | None:
    """The reward of one ruling `text` about candidates shown in order `shown`; None for a tool call."""
    try:
        action = json.loads(text)
    except json.JSONDecodeError:
        action = None
    if isinstance(action, dict) and action.get("action") == "call":
        return None
    try:
        ruling = unshuffle(parse_verdict(text, verdict_format(mode), len(shown)), shown)
    except VerdictParseError:
        return config.invalid
    verdict = Verdict(valid=True, winner=ruling.winner, scores=ruling.scores or [])
    return config.correct if verdict_correct(verdict, label) else config.wrong


class RulingReward:
    """`(prompts, completions, label, shown, mode, **columns) -> list[float | None]` for `GRPOTrainer`."""

    __name__ = "judgegraph_ruling"  # TRL logs reward functions by name

    def __init__(self, config: RewardConfig | None = None) -> None:
        self.config = config or RewardConfig()

    def __call__(
        self,
        prompts: list[Any],
        completions: list[Any],
        label: list[str],
        shown: list[list[int]],
        mode: list[str],
        **columns: Any,
    ) -> list[float | None]:
        return [
            ruling_score(_text(c), Label.model_validate(json.loads(lab)), order, m, self.config)
            for c, lab, order, m in zip(completions, label, shown, mode, strict=True)
        ]


ruling_reward = RulingReward()
