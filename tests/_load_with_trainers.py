"""Load judgegraph's exports with the RL trainers' own dataset classes; print what they read, as JSON.

Runs in the trainers' environment (`scripts/trainers-env.sh`), not the project's: it imports verl and OpenRLHF,
never judgegraph. Usage: python _load_with_trainers.py VERL_PARQUET OPENRLHF_JSONL TOKENIZER_DIR
"""

from __future__ import annotations

import json
import sys
import tempfile
from types import SimpleNamespace
from typing import Any


def verl_rl(parquet: str, tokenizer: Any) -> list[dict[str, Any]]:
    """verl's RLHFDataset, as its PPO/GRPO trainers build it (prompt key `prompt`)."""
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset

    config = OmegaConf.create(
        {
            "prompt_key": "prompt",
            "max_prompt_length": 4096,
            "filter_overlong_prompts": True,
            "filter_overlong_prompts_workers": 1,
            "cache_dir": tempfile.mkdtemp(),
        }
    )
    dataset = RLHFDataset(data_files=[parquet], tokenizer=tokenizer, config=config)
    out = []
    for k in range(len(dataset)):
        row = dataset[k]
        out.append(
            {
                "raw_prompt": row["raw_prompt"],
                "data_source": row["data_source"],
                "reward_model": row["reward_model"],
                "index": int(row["index"]),
            }
        )
    return out


def verl_sft(parquet: str, tokenizer: Any) -> list[dict[str, Any]]:
    """verl's MultiTurnSFTDataset: it tokenizes every turn on its own, checks the concatenation against the
    whole conversation's template (an AssertionError when they differ) and masks all but assistant turns."""
    from omegaconf import OmegaConf
    from verl.utils.dataset.multiturn_sft_dataset import MultiTurnSFTDataset

    config = OmegaConf.create(
        {"messages_key": "messages", "tools_key": "tools", "max_length": 8192, "truncation": "error"}
    )
    dataset = MultiTurnSFTDataset(parquet_files=parquet, tokenizer=tokenizer, config=config)
    out = []
    for k in range(len(dataset)):
        row = dataset[k]
        mask = row["loss_mask"].tolist()
        ids = row["input_ids"].tolist()
        trained = tokenizer.decode([t for t, m in zip(ids, mask, strict=True) if m])
        out.append({"tokens": int(row["attention_mask"].sum()), "trained_tokens": sum(mask), "trained": trained})
    return out


def openrlhf_prompts(jsonl: str, tokenizer: Any) -> list[dict[str, Any]]:
    """OpenRLHF's PromptDataset, configured as `--data.input_key prompt --data.label_key label
    --data.apply_chat_template` configures it."""
    from datasets import load_dataset
    from openrlhf.datasets import PromptDataset

    data = SimpleNamespace(input_key="prompt", label_key="label", apply_chat_template=True)
    strategy = SimpleNamespace(args=SimpleNamespace(data=data), is_rank_0=lambda: False)
    dataset = PromptDataset(load_dataset("json", data_files=jsonl, split="train"), tokenizer, strategy)
    return [
        {"datasource": d, "prompt": p, "label": label} for d, p, label, _ in (dataset[k] for k in range(len(dataset)))
    ]


def main() -> None:
    from transformers import AutoTokenizer

    parquet, jsonl, tokenizer_dir = sys.argv[1:4]
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    result = {
        "verl_rl": verl_rl(parquet, tokenizer),
        "verl_sft": verl_sft(parquet, tokenizer),
        "openrlhf": openrlhf_prompts(jsonl, tokenizer),
    }
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
