"""The judge's own reward for a run, for training the judge (TIR-Judge's rule, ARM-Thinker's tool bonus)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from judgegraph.schema._trajectory import ToolCallEvent, Trajectory


class RewardConfig(BaseModel):
    """How a run is rewarded. TIR-Judge: full credit only when the verdict is right and well-formed."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    correct: float = 1.0
    """Reward for a valid verdict that agrees with the label."""
    wrong: float = 0.0
    """Reward for a valid verdict that does not."""
    invalid: float = 0.0
    """Reward when no well-formed verdict was produced (format failure)."""
    tool_bonus: float = Field(default=0.0, ge=0)
    """ARM-Thinker's option: added to a correct run for each tool call the model itself made that succeeded."""
    max_tool_bonus: float = Field(default=0.1, ge=0)
    """Cap on the total tool bonus."""


def judge_reward(t: Trajectory, config: RewardConfig | None = None) -> float | None:
    """The reward of run `t`; None when it has no label to be right or wrong about."""
    config = config or RewardConfig()
    if t.label is None or t.verdict is None:
        return None
    if not t.verdict.valid:
        return config.invalid
    if not t.correct:
        return config.wrong
    reward = config.correct
    if config.tool_bonus:
        results = {r.call_id: r for r in t.tool_results()}
        # Only calls the model chose, and only those that worked: a failed call is never rewarded.
        good = sum(
            1
            for e in t.events
            if isinstance(e, ToolCallEvent)
            and e.call.source == "model"
            and results.get(e.call.id) is not None
            and results[e.call.id].ok
        )
        reward += min(config.max_tool_bonus, config.tool_bonus * good)
    return reward
