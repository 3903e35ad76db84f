"""JSON schemas for structured model replies, derived from the pydantic model that also parses the reply, so
the constraint the backend decodes under and the validation of what comes back cannot disagree."""

from __future__ import annotations

import copy
import functools
from typing import Any

from pydantic import BaseModel

ENUMERATED_UP_TO = 64
"""Integer ranges of at most this many values are also written as an enum: llama.cpp's grammar converter (as
llama-cpp-python 0.3 ships it) ignores `minimum` and `maximum`, so there a bound alone constrains nothing and a
constrained model can still say `"k": 0` to a tool that takes 1 to 10 (measured: a trained agentic judge did)."""


def integer_range(lo: int, hi: int) -> dict[str, Any]:
    """An integer from `lo` to `hi` as every backend's constrained decoding enforces it."""
    bounds: dict[str, Any] = {"type": "integer", "minimum": lo, "maximum": hi}
    return {**bounds, "enum": list(range(lo, hi + 1))} if hi - lo < ENUMERATED_UP_TO else bounds


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """`node` with every local `$ref` replaced by its definition, titles dropped and small integer ranges
    enumerated: the subset of JSON schema that llama.cpp's grammar converter and vLLM's guided decoding both
    enforce alike (descriptions are for readers of the code; decoding ignores them)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            merged = {**defs[ref.removeprefix("#/$defs/")], **{k: v for k, v in node.items() if k != "$ref"}}
            return _inline(merged, defs)
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k == "properties":  # a map of field names (a field may be called "title"): keep every name
                out[k] = {name: _inline(field, defs) for name, field in v.items()}
            elif k not in ("title", "description", "$defs"):
                out[k] = _inline(v, defs)
        lo, hi = out.get("minimum"), out.get("maximum")
        if out.get("type") == "integer" and "enum" not in out and isinstance(lo, int) and isinstance(hi, int):
            out.update(integer_range(lo, hi))
        return out
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


@functools.cache
def _reply_schema(model: type[BaseModel]) -> dict[str, Any]:
    raw = model.model_json_schema()
    return _inline(raw, raw.get("$defs", {}))  # type: ignore[no-any-return]


def reply_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema a backend should constrain a reply to, for a reply that `model` parses (a fresh copy:
    callers may embed it in a larger schema)."""
    return copy.deepcopy(_reply_schema(model))
