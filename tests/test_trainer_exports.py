"""The exports load into the trainers they are for, and a training step runs on them (TRL, on the CPU)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.fake_openai import FakeOpenAI, prefers
from judgegraph import Judge
from judgegraph.output import export
from judgegraph.store import TrajectoryStore

pytestmark = [pytest.mark.llm, pytest.mark.timeout(900)]

OPEN = {
    "id": "o",
    "prompt": "Greet a guest politely.",
    "candidates": ["Hello, and welcome!", "go away"],
    "label": {"winner": 0},
}


@pytest.fixture(scope="module")
def base() -> Iterator[tuple[Any, Any]]:
    from judgegraph.backends._embedded import embedded_model_path
    from judgegraph.training._sft import load_base

    yield load_base(embedded_model_path())


async def _runs(fake_openai: FakeOpenAI, store: Path) -> list[Any]:
    """Two runs of the same request by the llm judge: one right (its model prefers the polite answer), one
    wrong (it prefers the rude one)."""
    async with Judge.load("llm", store=store, model_url=fake_openai.url) as judge:
        fake_openai.responder = prefers("Hello")
        await judge.arun(OPEN)
        fake_openai.responder = prefers("go away")
        await judge.arun(OPEN)
    st = TrajectoryStore(store)
    runs = [st.get(r.id) for r in st.list_runs()]
    st.close()
    assert sorted(bool(t.correct) for t in runs) == [False, True]
    return runs


async def _exported(fake_openai: FakeOpenAI, tmp_path: Path, fmt: str, rows: int) -> tuple[list[Any], Any]:
    """The two runs, exported in `fmt` (`rows` rows) and read back as a user would: the file, by `datasets`."""
    from datasets import load_dataset

    runs = await _runs(fake_openai, tmp_path / "runs.db")
    assert export(runs, fmt, tmp_path / f"{fmt}.jsonl") == rows
    return runs, load_dataset("json", data_files=str(tmp_path / f"{fmt}.jsonl"), split="train")


def _trains_one_step(trainer: Any) -> None:
    trainer.train()
    losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
    assert trainer.state.global_step == 1 and losses and losses[0] > 0


def _args(tmp_path: Path, cls: Any, **extra: Any) -> Any:
    return cls(
        output_dir=str(tmp_path / "out"),
        max_steps=1,
        use_cpu=True,
        report_to="none",
        save_strategy="no",
        logging_steps=1,
        **{"per_device_train_batch_size": 1, **extra},
    )


async def test_the_sft_export_trains_with_trls_sft_trainer(
    base: tuple[Any, Any], fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    from trl import SFTConfig, SFTTrainer

    _, dataset = await _exported(fake_openai, tmp_path, "sft", 4)  # two runs, each judged in both orders
    model, tokenizer = base
    trainer = SFTTrainer(
        model=copy.deepcopy(model),
        args=_args(tmp_path, SFTConfig, max_length=1024),
        train_dataset=dataset,
        processing_class=tokenizer,
    )
    _trains_one_step(trainer)


async def test_the_dpo_export_trains_with_trls_dpo_trainer(
    base: tuple[Any, Any], fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    from trl import DPOConfig, DPOTrainer

    _, dataset = await _exported(fake_openai, tmp_path, "dpo", 1)
    model, tokenizer = base
    trainer = DPOTrainer(
        model=copy.deepcopy(model),
        ref_model=copy.deepcopy(model),
        args=_args(tmp_path, DPOConfig, max_length=1024),
        train_dataset=dataset,
        processing_class=tokenizer,
    )
    _trains_one_step(trainer)


async def test_the_trl_export_trains_with_trls_grpo_trainer_rewarded_by_the_judges_own_rule(
    base: tuple[Any, Any], fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    from trl import GRPOConfig, GRPOTrainer

    from judgegraph.training import ruling_reward

    runs, dataset = await _exported(fake_openai, tmp_path, "trl", 4)  # each run's two candidate orders
    assert sorted(map(tuple, dataset["shown"])) == [(0, 1), (0, 1), (1, 0), (1, 0)]
    # The judge's own rule on the exported rows: each recorded ruling scores as its run did.
    by_id = {t.id: t for t in runs}
    replies = [
        [{"role": "assistant", "content": turn.text}]
        for row in dataset
        for turn in by_id[row["trajectory_id"]].model_turns()
        if turn.request.messages[:2] == row["prompt"]
    ]
    columns = {k: dataset[k] for k in ("label", "shown", "mode")}
    scores = ruling_reward(dataset["prompt"], replies, **columns)
    assert scores == [1.0 if by_id[i].correct else 0.0 for i in dataset["trajectory_id"]]
    model, tokenizer = base
    trainer = GRPOTrainer(
        model=copy.deepcopy(model),
        reward_funcs=[ruling_reward],
        args=_args(tmp_path, GRPOConfig, num_generations=2, max_completion_length=24, per_device_train_batch_size=2),
        train_dataset=dataset.remove_columns(["tools"]),
        processing_class=tokenizer,
    )
    trainer.train()
    assert trainer.state.global_step == 1
    assert any("reward" in e for e in trainer.state.log_history)


def test_trls_grpo_trainer_scores_each_prompts_generations_as_one_group(
    base: tuple[Any, Any], fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """TRL's own GRPOTrainer, rewarded by judgegraph's reward function: each prompt's `num_generations` completions
    are one group judgment (one run a prompt, a score a completion)."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from judgegraph.adapters import JudgeReward
    from judgegraph.store import TrajectoryStore

    dataset = Dataset.from_dict(
        {
            "prompt": ["What is 2 + 2? Answer with a number.", "What is 3 + 3? Answer with a number."],
            "reference": ["4", "6"],
        }
    )
    reward = JudgeReward("evidence", store=tmp_path / "r.db", model_url=fake_openai.url)
    model, tokenizer = base
    try:
        trainer = GRPOTrainer(
            model=copy.deepcopy(model),
            reward_funcs=[reward],
            args=_args(
                tmp_path, GRPOConfig, num_generations=2, max_completion_length=16, per_device_train_batch_size=2
            ),
            train_dataset=dataset,
            processing_class=tokenizer,
        )
        trainer.train()
    finally:
        reward.close()
    assert trainer.state.global_step == 1
    runs = [TrajectoryStore(tmp_path / "r.db").get(r.id) for r in TrajectoryStore(tmp_path / "r.db").list_runs()]
    assert runs and all(len(t.request.candidates) == 2 and t.request.mode == "pointwise" for t in runs)
    assert any("reward" in e for e in trainer.state.log_history)
