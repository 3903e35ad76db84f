"""verl's own advantage code, run in the trainers' environment (`scripts/trainers-env.sh`), never judgegraph's:
`compute_advantage` (the function verl's trainers call) with judgegraph's estimator, which verl found through its
plugin group (nothing here imports judgegraph), over two groups one of whose rollouts abstained (its reward
`nan`), and with verl's own GRPO over the same groups without that rollout. Prints both, as JSON."""

from __future__ import annotations

import json
import math

import numpy as np
import torch
from verl import DataProto
from verl.trainer.config import AlgoConfig
from verl.trainer.ppo.core_algos import AdvantageEstimator
from verl.trainer.ppo.ray_trainer import compute_advantage

LENGTH = 5


def _batch(scores: list[float], uids: list[str]) -> DataProto:
    """Outcome rewards on each response's last token, as verl's reward managers place them."""
    rewards = torch.zeros(len(scores), LENGTH)
    rewards[:, -1] = torch.tensor(scores)
    mask = torch.ones(len(scores), LENGTH)
    return DataProto.from_dict(
        tensors={"token_level_rewards": rewards, "response_mask": mask},
        non_tensors={"uid": np.array(uids, dtype=object)},
    )


def main() -> None:
    scores = [1.0, 0.0, math.nan, 1.0, 0.0, 1.0, 0.0]
    uids = ["a", "a", "a", "a", "b", "b", "b"]
    ours = compute_advantage(_batch(scores, uids), adv_estimator="judgegraph_grpo", config=AlgoConfig())
    kept = [i for i, s in enumerate(scores) if not math.isnan(s)]
    theirs = compute_advantage(
        _batch([scores[i] for i in kept], [uids[i] for i in kept]),
        adv_estimator=AdvantageEstimator.GRPO,
        config=AlgoConfig(),
    )
    print(
        json.dumps(
            {
                "ours": ours.batch["advantages"].tolist(),
                "mask": ours.batch["response_mask"].tolist(),
                "rewards": ours.batch["token_level_rewards"].tolist(),
                "kept": kept,
                "theirs": theirs.batch["advantages"].tolist(),
            }
        )
    )


if __name__ == "__main__":
    main()
