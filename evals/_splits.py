"""Training and evaluation splits of the bundled sets, by request id: deterministic, the same on every machine,
and disjoint, so a judge trained on one split is never measured on what it saw.

A request's split is a function of its id alone (SHA-256), so it does not depend on how many requests a set
was built with, or in which order. `EVAL_SHARE` of the ids are evaluation ids; the rest are for training."""

from __future__ import annotations

import hashlib
from typing import Literal

Split = Literal["train", "eval"]
EVAL_SHARE = 0.4
"""Share of request ids held out for evaluation."""
MAX_BUILD = 8
"""A split of n requests is drawn from a set built with at most this many times n requests."""


def split_of(request_id: str) -> Split:
    """The split a request id belongs to."""
    bucket = int.from_bytes(hashlib.sha256(request_id.encode()).digest()[:8], "big") / 2**64
    return "eval" if bucket < EVAL_SHARE else "train"
