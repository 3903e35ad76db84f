"""verl's own reward loop, run in the trainers' environment (`scripts/trainers-env.sh`, judgegraph installed there as
in a user's verl environment): verl's reward-manager loader reads a config naming judgegraph's reward function as a
user names it, and verl's `RewardLoopWorker.compute_score_batch` (the trainer's colocated reward path: a task per
rollout, all at once, each through verl's `NaiveRewardManager.run_single`) scores a batch with it.

argv: NAME REWARD_KWARGS_JSON. Prints `RESULT {...}`: each rollout's reward and extra info as verl keeps them, and
the row sums of verl's assembled reward tensor.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from _verl_batch_manager import _batch, _plain
from omegaconf import OmegaConf
from verl.experimental.reward_loop.reward_loop import RewardLoopWorker
from verl.trainer.ppo.reward import load_reward_manager


async def main(name: str, reward_kwargs: dict[str, Any]) -> None:
    config = OmegaConf.create(
        {
            "reward": {
                "custom_reward_function": {
                    "path": "pkg://judgegraph.adapters.verl",
                    "name": name,
                    "reward_kwargs": reward_kwargs,
                },
                "reward_manager": {"source": "register", "name": "naive"},
                "reward_model": {"enable": False},
            }
        }
    )
    data, tokenizer = _batch()
    # The worker as verl builds it, less the model tokenizer it would load from the config's model path.
    worker = RewardLoopWorker.__new__(RewardLoopWorker)
    worker.config = config
    worker.reward_router_address = None
    worker.reward_manager = load_reward_manager(config, tokenizer)
    outputs = await worker.compute_score_batch(data)
    scores = [o["reward_score"] for o in outputs]
    tensor = type(worker.reward_manager).assemble_rm_scores(data, scores)
    result = {
        "scores": scores,
        "extra": [_plain(o["reward_extra_info"]) for o in outputs],
        "tensor_rows": tensor.sum(dim=-1).tolist(),
    }
    print("RESULT " + json.dumps(result, default=str))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], json.loads(sys.argv[2])))
