"""Launching `vllm serve` on a GPU machine with the flags a tool-calling judge needs."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

# Model-name patterns -> vLLM tool-call parser, first match wins (vLLM docs, features/tool_calling.md).
TOOL_PARSERS: tuple[tuple[str, str], ...] = (
    (r"qwen3-?coder", "qwen3_xml"),
    (r"qwen|qwq|hermes", "hermes"),
    (r"llama-?4", "llama4_pythonic"),
    (r"llama-?3", "llama3_json"),
    (r"mistral|mixtral|ministral|devstral", "mistral"),
    (r"granite-?4", "granite4"),
    (r"granite", "granite"),
    (r"internlm", "internlm"),
    (r"deepseek-?v3\.1", "deepseek_v31"),
    (r"deepseek-?v3", "deepseek_v3"),
    (r"gpt-oss", "openai"),
    (r"kimi-?k2", "kimi_k2"),
    (r"glm-?4\.[57]", "glm45"),
    (r"xlam", "xlam"),
    (r"jamba", "jamba"),
    (r"olmo-?3", "olmo3"),
    (r"hunyuan", "hunyuan_a13b"),
)
DEFAULT_TOOL_PARSER = "hermes"


def tool_parser_for(model: str) -> str:
    """The tool-call parser for a model name (`hermes` when nothing more specific matches)."""
    name = model.lower()
    for pattern, parser in TOOL_PARSERS:
        if re.search(pattern, name):
            return parser
    return DEFAULT_TOOL_PARSER


class VllmLaunch(BaseModel):
    """How to serve a model with vLLM for judgegraph."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    model: str
    """A local model folder or a model id the machine already has."""
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    served_model_name: str | None = None
    tool_call_parser: str | None = None
    """Defaults to the parser for the model's family."""
    chat_template: str | None = None
    """A tool-aware chat template, for models whose own template ignores tools."""
    max_model_len: int | None = None
    gpu_memory_utilization: float | None = Field(default=None, gt=0, le=1)
    tensor_parallel_size: int = Field(default=1, ge=1)
    dtype: str | None = None
    reasoning_parser: str | None = None
    max_images_per_prompt: int | None = Field(default=None, ge=0)
    """Images a prompt may carry (vision judges)."""
    extra_args: list[str] = Field(default_factory=list)


def vllm_command(launch: VllmLaunch) -> list[str]:
    """The `vllm serve` command line for `launch`.

    Auto tool choice with the family's parser lets the judge's tools work; `--generation-config vllm`
    keeps the model folder's sampling defaults from overriding the judge's own (temperature 0, seeds).
    """
    cmd = ["vllm", "serve", launch.model, "--host", launch.host, "--port", str(launch.port)]
    cmd += ["--enable-auto-tool-choice", "--tool-call-parser", launch.tool_call_parser or tool_parser_for(launch.model)]
    cmd += ["--generation-config", "vllm"]
    optional: list[tuple[str, object]] = [
        ("--served-model-name", launch.served_model_name),
        ("--chat-template", launch.chat_template),
        ("--max-model-len", launch.max_model_len),
        ("--gpu-memory-utilization", launch.gpu_memory_utilization),
        ("--dtype", launch.dtype),
        ("--reasoning-parser", launch.reasoning_parser),
    ]
    for flag, value in optional:
        if value is not None:
            cmd += [flag, str(value)]
    if launch.tensor_parallel_size > 1:
        cmd += ["--tensor-parallel-size", str(launch.tensor_parallel_size)]
    if launch.max_images_per_prompt is not None:
        cmd += ["--limit-mm-per-prompt", f'{{"image": {launch.max_images_per_prompt}}}']
    return cmd + list(launch.extra_args)
