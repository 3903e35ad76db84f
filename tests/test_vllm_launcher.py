from __future__ import annotations

import pytest
from typer.testing import CliRunner

from judgegraph.backends import VllmLaunch, tool_parser_for, vllm_command
from judgegraph.cli import app


@pytest.mark.parametrize(
    ("model", "parser"),
    [
        ("Qwen/Qwen2.5-7B-Instruct", "hermes"),
        ("/models/Qwen3-Coder-30B-A3B", "qwen3_xml"),
        ("meta-llama/Llama-3.1-8B-Instruct", "llama3_json"),
        ("meta-llama/Llama-4-Scout-17B", "llama4_pythonic"),
        ("mistralai/Mistral-Small-3.2", "mistral"),
        ("openai/gpt-oss-20b", "openai"),
        ("some/unknown-model", "hermes"),
    ],
)
def test_tool_parser_follows_the_model_family(model: str, parser: str) -> None:
    assert tool_parser_for(model) == parser


def test_command_has_tool_calling_flags_and_only_the_options_given() -> None:
    cmd = vllm_command(VllmLaunch(model="/m/Qwen2.5-7B", port=8100, max_model_len=8192, tensor_parallel_size=2))
    assert cmd[:3] == ["vllm", "serve", "/m/Qwen2.5-7B"]
    joined = " ".join(cmd)
    assert "--enable-auto-tool-choice --tool-call-parser hermes" in joined
    assert "--port 8100" in joined and "--host 127.0.0.1" in joined
    assert "--max-model-len 8192" in joined and "--tensor-parallel-size 2" in joined
    assert "--generation-config vllm" in joined
    assert "--chat-template" not in joined and "--gpu-memory-utilization" not in joined
    assert "--block-size" not in joined  # vLLM's own on GPU


def test_the_cpu_build_caches_prompts_in_small_blocks() -> None:
    """vLLM's CPU default (128-token blocks) shares nothing of a shorter common prefix; judgegraph asks for 32."""
    cpu = vllm_command(VllmLaunch(model="x", cpu=True))
    assert cpu[cpu.index("--block-size") + 1] == "32"
    chosen = vllm_command(VllmLaunch(model="x", cpu=True, block_size=128))
    assert chosen[chosen.index("--block-size") + 1] == "128"


def test_explicit_parser_and_images_limit() -> None:
    cmd = vllm_command(VllmLaunch(model="x", tool_call_parser="pythonic", max_images_per_prompt=4))
    assert cmd[cmd.index("--tool-call-parser") + 1] == "pythonic"
    assert cmd[cmd.index("--limit-mm-per-prompt") + 1] == '{"image": 4}'


def test_cli_dry_run_prints_the_command() -> None:
    result = CliRunner().invoke(app, ["model", "vllm", "Qwen/Qwen2.5-7B-Instruct", "--port", "9000", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "vllm serve Qwen/Qwen2.5-7B-Instruct" in result.output and "--port 9000" in result.output
