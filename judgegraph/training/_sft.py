"""Supervised fine-tuning of the judge on its own exported runs, with TRL, on the CPU.

The base weights are the embedded GGUF, dequantized by transformers (no model hub). Each assistant turn of an
exported conversation becomes one prompt/completion example: the prompt is everything before the turn (the
task, the tool results so far), the completion is the turn, and the loss is on the completion only, so tool
outputs and prompts are never learned as the model's own words."""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from judgegraph.errors import PrerequisiteError, UsageError

INSTALL_HINT = "pip install 'judgegraph[train]' (with torch==2.13.0, the CPU build, installed first)"


class SFTSettings(BaseModel):
    """One SFT run's configuration (written to the run folder)."""

    epochs: float = Field(default=1.0, gt=0)
    max_steps: int = Field(default=-1)
    """Stop after this many optimizer steps (-1: run the epochs)."""
    learning_rate: float = Field(default=5e-5, gt=0)
    batch_size: int = Field(default=1, ge=1)
    grad_accumulation: int = Field(default=4, ge=1)
    max_length: int = Field(default=2048, ge=64)
    """Examples longer than this (in tokens) are left out, never cut (a cut completion teaches a broken reply)."""
    save_steps: int = Field(default=20, ge=1)
    seed: int = 0
    only_correct: bool = True
    """Keep only conversations of runs whose verdict agreed with the label."""


def examples(rows: Iterable[dict[str, Any]], *, only_correct: bool = True) -> list[dict[str, Any]]:
    """Prompt/completion examples, one per assistant turn of each exported `sft` row."""
    out = []
    for row in rows:
        if only_correct and row.get("correct") is not True:
            continue
        messages = row["messages"]
        for k, message in enumerate(messages):
            if message["role"] == "assistant" and isinstance(message.get("content"), str) and message["content"]:
                out.append(
                    {"prompt": messages[:k], "completion": [{"role": "assistant", "content": message["content"]}]}
                )
    return out


def read_rows(path: Path) -> tuple[list[dict[str, Any]], str]:
    """The exported rows and the SHA-256 of the file they came from (one read)."""
    try:
        raw = path.read_bytes()
        return [json.loads(line) for line in raw.decode().splitlines() if line.strip()], hashlib.sha256(raw).hexdigest()
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise UsageError(f"cannot read the training data {path}: {e}") from e


def load_base(gguf: Path, dtype: str = "float32") -> tuple[Any, Any]:
    """The model and tokenizer from a GGUF file, dequantized (to float32 for training on the CPU)."""
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as e:
        raise PrerequisiteError(f"training needs transformers and torch: {INSTALL_HINT}") from e
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=getattr(torch, dtype))
    # Loaded from GGUF it is marked quantized (not trainable, not serializable); it is plain floats now.
    model.hf_quantizer = None
    model.is_quantized = False
    if getattr(model.config, "quantization_config", None) is not None:
        del model.config.quantization_config
    model.config.architectures = [type(model).__name__]
    return model, tokenizer


def train_sft(data: Path, base: Path, run_dir: Path, settings: SFTSettings | None = None) -> dict[str, Any]:
    """Fine-tune `base` (a GGUF file or a Hugging Face folder) on the `sft` export `data`; resumable.

    `run_dir` gets config.json (the settings, the data's hash, the base), checkpoints/ while training (resumed
    from the latest when the run is started again, e.g. after Ctrl-C; removed once the model is saved: with the
    optimizer state one checkpoint of the 135M model is 1.6 GB), metrics.jsonl (the trainer's log) and model/ (the
    final weights and tokenizer, ready for conversion to GGUF)."""
    settings = settings or SFTSettings()
    try:
        from datasets import Dataset
        from trl import SFTConfig, SFTTrainer
    except ImportError as e:
        raise PrerequisiteError(f"training needs TRL and datasets: {INSTALL_HINT}") from e
    rows, sha256 = read_rows(data)
    found = examples(rows, only_correct=settings.only_correct)
    if not found:
        raise UsageError(f"{data} has no usable training turns (correct runs with assistant replies)")
    run_dir.mkdir(parents=True, exist_ok=True)
    config = {"settings": settings.model_dump(), "data": str(data), "data_sha256": sha256, "base": str(base)}
    previous = run_dir / "config.json"
    if previous.exists() and json.loads(previous.read_text())["data_sha256"] != config["data_sha256"]:
        raise UsageError(f"{run_dir} holds a run on other data; use a new run folder")
    previous.write_text(json.dumps(config, indent=1))
    if base.suffix == ".gguf":
        model, tokenizer = load_base(base)
    else:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        model, tokenizer = AutoModelForCausalLM.from_pretrained(base), AutoTokenizer.from_pretrained(base)

    def fits(example: dict[str, Any]) -> bool:
        text = tokenizer.apply_chat_template(example["prompt"] + example["completion"], tokenize=False)
        return len(tokenizer(text)["input_ids"]) <= settings.max_length

    kept = [e for e in found if fits(e)]
    if not kept:
        raise UsageError(f"every training turn is longer than max_length={settings.max_length} tokens")
    checkpoints = run_dir / "checkpoints"
    args = SFTConfig(
        output_dir=str(checkpoints),
        num_train_epochs=settings.epochs,
        max_steps=settings.max_steps,
        learning_rate=settings.learning_rate,
        per_device_train_batch_size=settings.batch_size,
        gradient_accumulation_steps=settings.grad_accumulation,
        max_length=settings.max_length,
        completion_only_loss=True,
        use_cpu=True,
        bf16=False,
        fp16=False,
        logging_steps=1,
        save_strategy="steps",
        save_steps=settings.save_steps,
        save_total_limit=1,  # resuming needs only the latest
        report_to="none",
        seed=settings.seed,
        dataloader_num_workers=0,
        disable_tqdm=False,
    )
    trainer = SFTTrainer(model=model, args=args, train_dataset=Dataset.from_list(kept), processing_class=tokenizer)
    resume = any(checkpoints.glob("checkpoint-*"))
    start = time.perf_counter()
    trainer.train(resume_from_checkpoint=True if resume else None)
    wall = time.perf_counter() - start
    out = run_dir / "model"
    trainer.model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    shutil.rmtree(checkpoints, ignore_errors=True)
    history = trainer.state.log_history
    with (run_dir / "metrics.jsonl").open("w") as f:
        for entry in history:
            f.write(json.dumps(entry) + "\n")
    from judgegraph.evals._plots import training_plot

    training_plot(history, run_dir / "training.png")
    losses = [e["loss"] for e in history if "loss" in e]
    summary = {
        "examples": len(kept),
        "left_out_too_long": len(found) - len(kept),
        "steps": trainer.state.global_step,
        "first_loss": losses[0] if losses else None,
        "last_loss": losses[-1] if losses else None,
        "wall_s": wall,
        "resumed": resume,
        "model": str(out),
    }
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary
