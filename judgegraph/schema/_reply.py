"""JSON schemas for structured model replies, derived from the pydantic model that also parses the reply, so
the constraint the backend decodes under and the validation of what comes back cannot disagree."""

from __future__ import annotations

import copy
import functools
from typing import Any

from pydantic import BaseModel


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """`node` with every local `$ref` replaced by its definition and titles dropped: the subset of JSON schema
    that llama.cpp's grammar converter and vLLM's guided decoding both take without surprises (descriptions are
    for readers of the code; decoding ignores them)."""
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
