"""verl's own BatchRewardManager, run in the trainers' environment (`scripts/trainers-env.sh`), never judgegraph's.

`record OUT`: call the manager on a batch of rollouts (the rollouts of two prompts, interleaved) with a reward
function that writes the keyword arguments verl passes it to OUT (as JSON) and scores nothing.
`replay SCORES`: call it again with a reward function that returns the dicts in SCORES (what judgegraph's
`compute_score_batch` answered to those arguments) and print the reward tensor's row sums and the extra info verl
keeps, as JSON.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np
import torch
from verl import DataProto
from verl.workers.reward_manager.batch import BatchRewardManager

PROMPTS = ["Natalia sold clips to 48 friends in April, and half as many in May. How many in all?", "What is 2 + 3?"]
ROLLOUTS = [
    (0, "She sold 48 + 24 = 72 clips. The answer is 72.", "72"),
    (1, "2 + 3 = 5, so #### 5", "5"),
    (0, "48 + 48 = 96, so 96.", "72"),
    (1, "The answer is 6.", "5"),
    (0, "April 48, May 24: 72", "72"),
    (1, "The answer is 4.", "5"),
]


class _Tokenizer:
    """Token i decodes to text i: enough for the manager to decode prompts and responses."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts

    def decode(self, ids: Any, skip_special_tokens: bool = True) -> str:
        return "".join(self.texts[int(i)] for i in ids if int(i) > 0)


def _batch() -> tuple[DataProto, _Tokenizer]:
    texts = ["<pad>", *PROMPTS, *(r for _, r, _ in ROLLOUTS)]
    n = len(ROLLOUTS)
    prompts = torch.tensor([[1 + p] for p, _, _ in ROLLOUTS])
    responses = torch.tensor([[1 + len(PROMPTS) + i, 0] for i in range(n)])  # one token, then padding
    mask = torch.tensor([[1, 1, 0]] * n)
    data = DataProto.from_dict(
        tensors={"prompts": prompts, "responses": responses, "attention_mask": mask},
        non_tensors={
            "data_source": np.array(["gsm8k"] * n, dtype=object),
            "reward_model": np.array([{"ground_truth": g} for _, _, g in ROLLOUTS], dtype=object),
            "extra_info": np.array([{"index": 100 + p, "prompt": PROMPTS[p]} for p, _, _ in ROLLOUTS], dtype=object),
        },
    )
    return data, _Tokenizer(texts)


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def main() -> None:
    mode, path = sys.argv[1], sys.argv[2]
    data, tokenizer = _batch()
    if mode == "record":

        def record(**kwargs: Any) -> list[float]:
            with open(path, "w") as f:
                json.dump(_plain(kwargs), f)
            return [0.0] * len(kwargs["solution_strs"])

        BatchRewardManager(tokenizer, num_examine=0, compute_score=record)(data)
        return
    with open(path) as f:
        answers = json.load(f)
    out = BatchRewardManager(tokenizer, num_examine=0, compute_score=lambda **_: answers)(data, return_dict=True)
    rewards = out["reward_tensor"].sum(dim=-1).tolist()
    print(json.dumps({"rewards": rewards, "extra": {k: list(v) for k, v in out["reward_extra_info"].items()}}))


if __name__ == "__main__":
    main()
