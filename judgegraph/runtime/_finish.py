"""The one place a run's end is written into its trajectory: how it ended (status, verdict, end time,
duration, from the graph's `RunEnd`), which model answered it, and its reward; then the store has it, and a
crash or cancellation the graph returned is raised."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from judgegraph.backends import ChatModel
from judgegraph.graphs import RunEnd
from judgegraph.runtime._reward import RewardConfig, judge_reward
from judgegraph.schema import Trajectory
from judgegraph.store import TrajectoryStore


async def finish(
    trajectory: Trajectory,
    end: RunEnd,
    *,
    store: TrajectoryStore | None,
    client: ChatModel | None = None,
    reward: RewardConfig | None = None,
) -> Trajectory:
    """Finish `trajectory` from how its run ended, store it (shielded: a cancelled caller still leaves the run on
    disk), and raise the run's crash or cancellation if it had one.

    Args:
        client: the model endpoint the run could ask; recorded as the run's backend and model when the run did
            ask it and the trajectory does not already name one (a replay keeps its original's).
        reward: how to reward the run (a judged run); None leaves the reward unset (a replay).
    """
    trajectory.status = end.status
    trajectory.verdict = end.verdict
    trajectory.ended_at = datetime.now(UTC)
    trajectory.duration_s = end.duration_s
    if client is not None and trajectory.model_turns() and not trajectory.versions.model:
        versions = {"backend": client.profile.name, "model": client.model}
        trajectory.versions = trajectory.versions.model_copy(update=versions)
    if reward is not None:
        trajectory.reward = judge_reward(trajectory, reward)
    if store is not None:
        await asyncio.shield(store.afinish_run(trajectory))
    if end.error is not None:
        raise end.error
    return trajectory
