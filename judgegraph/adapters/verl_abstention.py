"""verl's advantage estimator that honours judgegraph's abstentions: `algorithm.adv_estimator=judgegraph_grpo`.

verl needs a number for every rollout, and nothing in verl reads the `valid` or `abstained` its reward function
returns beside it: an abstained rollout's 0.0 is trained on as a wrong answer and pulls its group's baseline
down. With this estimator and the reward function's `abstained_score` set to `nan` (verl's config:
`reward.custom_reward_function.reward_kwargs.abstained_score=nan`), an abstained rollout is what it is: no
number. GRPO's baseline is then its group's other rollouts alone (verl's own `compute_grpo_outcome_advantage` over
them), and the abstained rollout gets no advantage and no token in the loss (its response mask is cleared, so
the policy, entropy and KL terms skip it); its reward reads 0.0 in verl's metrics.

verl imports this module itself: judgegraph declares it in verl's plugin group (`verl.plugins`), which verl loads
on import in every process, the trainer's included. Nothing else in judgegraph imports it (verl is not a
dependency of judgegraph's).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from verl.trainer.ppo.core_algos import compute_grpo_outcome_advantage, register_adv_est

ESTIMATOR = "judgegraph_grpo"


def compute_judgegraph_grpo_advantage(
    token_level_rewards: torch.Tensor,
    response_mask: torch.Tensor,
    index: np.ndarray,
    epsilon: float = 1e-6,
    config: Any = None,
    **kwargs: Any,
) -> tuple[torch.Tensor, torch.Tensor]:
    """GRPO's advantages over each group's rollouts that are not abstentions (a reward that is not a number); an
    abstained rollout's advantage is 0 and its response mask cleared, in place (verl's batch holds both tensors)."""
    scores = token_level_rewards.sum(dim=-1)
    abstained = ~torch.isfinite(scores)
    token_level_rewards.nan_to_num_(nan=0.0, posinf=0.0, neginf=0.0)  # the batch's metrics read numbers
    response_mask[abstained] = 0
    advantages = torch.zeros_like(token_level_rewards)
    kept = (~abstained).nonzero(as_tuple=True)[0]
    if len(kept):
        norm = bool(config.get("norm_adv_by_std_in_grpo", True)) if config is not None else True
        ruled, _ = compute_grpo_outcome_advantage(
            token_level_rewards=token_level_rewards[kept],
            response_mask=response_mask[kept],
            index=np.asarray(index, dtype=object)[kept.cpu().numpy()],
            epsilon=epsilon,
            norm_adv_by_std_in_grpo=norm,
            config=config,
        )
        advantages[kept] = ruled
    return advantages, advantages


register_adv_est(ESTIMATOR)(compute_judgegraph_grpo_advantage)
