"""Supervised fine-tuning of the judge on its own exported runs, with TRL, on the CPU.

The base weights are the embedded GGUF, dequantized by transformers (no model hub). Each exported conversation
is one example, rendered by the model's chat template as the model saw it, and the loss is on its assistant
replies only, so tool outputs and prompts are never learned as the model's own words. One pass over a
conversation teaches all its replies: a reply's prompt is everything before it, which the conversation already
holds, so training each reply as its own prompt/completion example would re-read every earlier turn once per
reply (the cost grows with the square of the turns). A template that renders a reply's prompt differently from
the same messages inside the longer conversation (e.g. one that drops earlier reasoning) gets one example per
reply instead, each exactly as the model saw it."""

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
    grad_accumulation: int = Field(default=1, ge=1)
    """Examples per optimizer step; an example is a whole conversation, which holds several replies (3 in an
    agentic run that checks both candidates), so one already averages over several."""
    max_length: int = Field(default=2048, ge=64)
    """A conversation longer than this (in tokens) is cut after the last reply that fits, never inside a reply (a
    cut reply teaches a broken one); the replies after the cut are left out."""
    save_steps: int = Field(default=20, ge=1)
    seed: int = 0
    only_correct: bool = True
    """Keep only conversations of runs whose verdict agreed with the label."""


Example = dict[str, list[int]]
"""One pre-tokenized training sequence: `input_ids`, and `completion_mask` (1 on the tokens learned)."""


class _NotAPrefix(Exception):
    """The chat template renders a reply's prompt differently from the same messages in the longer conversation."""


def replies(messages: list[dict[str, Any]]) -> list[int]:
    """Indices of the assistant replies to learn: those with text (the JSON actions and verdicts)."""
    return [
        k
        for k, m in enumerate(messages)
        if m["role"] == "assistant" and isinstance(m.get("content"), str) and m["content"]
    ]


def tokenized(messages: list[dict[str, Any]], learn: list[int], tokenizer: Any) -> Example:
    """`messages` rendered by the tokenizer's chat template and tokenized, `completion_mask` 1 on the replies at
    `learn` (each with its end-of-turn marker, so the model learns to stop)."""

    def render(part: list[dict[str, Any]], prompt: bool = False) -> str:
        return str(tokenizer.apply_chat_template(part, tokenize=False, add_generation_prompt=prompt))

    text = render(messages)
    spans = []
    for k in learn:
        before, through = render(messages[:k], prompt=True), render(messages[: k + 1])
        if not (through.startswith(before) and text.startswith(through)):
            raise _NotAPrefix
        spans.append((len(before), len(through)))
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    mask = [int(any(s <= start < e for s, e in spans)) for start, _ in encoded["offset_mapping"]]
    return {"input_ids": list(encoded["input_ids"]), "completion_mask": mask}


def _learned(mask: list[int]) -> int:
    """How many replies a mask learns (its runs of ones)."""
    return sum(1 for i, bit in enumerate(mask) if bit and (i == 0 or not mask[i - 1]))


def _fit(example: Example, max_length: int) -> Example | None:
    """`example` if it fits `max_length` tokens, else cut after the last reply that ends within it (a reply is never
    cut: a cut reply teaches a broken one); None if no reply fits."""
    mask = example["completion_mask"]
    if len(mask) <= max_length:
        return example
    ends = [i + 1 for i in range(max_length) if mask[i] and not mask[i + 1]]
    if not ends:
        return None
    return {"input_ids": example["input_ids"][: ends[-1]], "completion_mask": mask[: ends[-1]]}


def examples(
    rows: Iterable[dict[str, Any]], tokenizer: Any, *, max_length: int = 2048, only_correct: bool = True
) -> tuple[list[Example], int]:
    """The training sequences of exported `sft` rows (one per conversation; one per reply where the template needs
    it), and how many replies were left out as longer than `max_length` tokens."""
    out: list[Example] = []
    left_out = 0
    for row in rows:
        if only_correct and row.get("correct") is not True:
            continue
        messages = row["messages"]
        learn = replies(messages)
        if not learn:
            continue
        try:
            found = [tokenized(messages, learn, tokenizer)]
        except _NotAPrefix:
            found = [tokenized(messages[: k + 1], [k], tokenizer) for k in learn]
        for example in found:
            kept = _fit(example, max_length)
            left_out += _learned(example["completion_mask"]) - (_learned(kept["completion_mask"]) if kept else 0)
            if kept:
                out.append(kept)
    return out, left_out


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
    config = {"settings": settings.model_dump(), "data": str(data), "data_sha256": sha256, "base": str(base)}
    previous = run_dir / "config.json"
    if previous.exists() and json.loads(previous.read_text())["data_sha256"] != config["data_sha256"]:
        raise UsageError(f"{run_dir} holds a run on other data; use a new run folder")
    if base.suffix == ".gguf":
        model, tokenizer = load_base(base)
    else:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        model, tokenizer = AutoModelForCausalLM.from_pretrained(base), AutoTokenizer.from_pretrained(base)
    kept, left_out = examples(rows, tokenizer, max_length=settings.max_length, only_correct=settings.only_correct)
    if not kept:
        why = f" ({left_out} longer than max_length={settings.max_length} tokens)" if left_out else ""
        raise UsageError(f"{data} has no usable training replies (correct runs with assistant replies){why}")
    run_dir.mkdir(parents=True, exist_ok=True)
    previous.write_text(json.dumps(config, indent=1))
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
        "replies": sum(_learned(e["completion_mask"]) for e in kept),
        "left_out_too_long": left_out,
        "steps": trainer.state.global_step,
        "first_loss": losses[0] if losses else None,
        "last_loss": losses[-1] if losses else None,
        "wall_s": wall,
        "resumed": resume,
        "model": str(out),
    }
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary
