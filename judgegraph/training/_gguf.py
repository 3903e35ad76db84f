"""Model files between the two servers' formats: a trained checkpoint to a GGUF file the embedded server loads,
with llama.cpp's own converter; a GGUF to a Hugging Face folder vLLM serves (it cannot load GGUF on the CPU).

`convert_hf_to_gguf.py` ships in llama-cpp-python's source distribution (the version installed here, so the
file matches the llama.cpp that will load it); it is fetched once with pip into judgegraph's cache and run with
its own `gguf-py`."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import platformdirs

from judgegraph.errors import PrerequisiteError

OUTTYPE = "q8_0"
"""8-bit weights: a quarter of float32's size, next to no loss for a model this small."""


def converter_dir(cache: Path | None = None) -> Path:
    """The folder holding llama.cpp's converter for the installed llama-cpp-python (fetched on first use)."""
    try:
        wanted = version("llama-cpp-python")
    except PackageNotFoundError as e:
        raise PrerequisiteError("llama-cpp-python is not installed: run `make setup`") from e
    root = (cache or Path(platformdirs.user_cache_dir("judgegraph"))) / f"llama-cpp-python-{wanted}"
    tree = root / "llama.cpp"
    if (tree / "convert_hf_to_gguf.py").is_file():
        return tree
    root.mkdir(parents=True, exist_ok=True)
    fetch = [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps", "-d", str(root)]
    done = subprocess.run([*fetch, f"llama-cpp-python=={wanted}"], capture_output=True, text=True, timeout=600)
    archives = list(root.glob("llama_cpp_python-*.tar.gz"))
    if done.returncode != 0 or not archives:
        raise PrerequisiteError(f"could not fetch llama-cpp-python {wanted}'s sources: {done.stderr[-500:]}")
    prefix = f"llama_cpp_python-{wanted}/vendor/llama.cpp/"
    wanted_parts = ("convert_hf_to_gguf.py", "conversion/", "gguf-py/")
    with tarfile.open(archives[0]) as tar:
        members = [
            m for m in tar.getmembers() if m.name.startswith(prefix) and m.name[len(prefix) :].startswith(wanted_parts)
        ]
        for m in members:
            m.name = m.name[len(prefix) :]
        tar.extractall(tree, members=members, filter="data")
    archives[0].unlink()
    return tree


def to_gguf(model_dir: Path, out: Path, *, outtype: str = OUTTYPE) -> Path:
    """Convert a Hugging Face model folder (weights, config, tokenizer, chat template) to one GGUF file."""
    tree = converter_dir()
    env = {**os.environ, "PYTHONPATH": str(tree / "gguf-py")}
    cmd = [sys.executable, str(tree / "convert_hf_to_gguf.py"), str(model_dir), "--outfile", str(out)]
    done = subprocess.run([*cmd, "--outtype", outtype], capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode != 0 or not out.is_file():
        raise PrerequisiteError(f"converting {model_dir} to GGUF failed:\n{done.stderr[-2000:]}")
    return out


def to_hf(gguf: Path, *, cache: Path | None = None, dtype: str = "bfloat16") -> Path:
    """A Hugging Face folder (safetensors, config, tokenizer and chat template) with a GGUF's weights, dequantized
    by transformers, for vLLM. Built once per file content into judgegraph's cache; the folder is named after
    the file and the start of its SHA-256, which is how the served model can be traced to its GGUF."""
    from judgegraph.training._sft import load_base

    digest = hashlib.sha256()
    with gguf.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    root = (cache or Path(platformdirs.user_cache_dir("judgegraph"))) / "hf"
    out = root / f"{gguf.stem}-{digest.hexdigest()[:16]}"
    if (out / "config.json").is_file():
        return out
    model, tokenizer = load_base(gguf, dtype)
    partial = root / f".{out.name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    partial.replace(out)
    return out
