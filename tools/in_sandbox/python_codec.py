"""Plain data across the sandbox boundary between the test harness and the candidate's process.

This source is prepended to both sandbox programs (`python_harness.py`, `python_candidate.py`), which run
under the sandbox's python3 (3.9+, standard library only); judgegraph imports it to read back the values a
candidate's calls returned (`code/observe.py`). Decoding builds
only exact builtin types, so nothing the candidate sends can carry behaviour (an object whose `__eq__` always
says yes cannot reach the test's comparison).
"""

import json
import os
import struct
from typing import Any

MAX_DEPTH = 200
MAX_MESSAGE = 256 * 1024 * 1024


def encode(value: Any, depth: int = 0) -> Any:
    """`value` as JSON-able data; TypeError for what is not plain data."""
    if depth > MAX_DEPTH:
        raise ValueError("a value nested too deeply to cross the sandbox boundary")
    t = type(value)
    if value is None or t is bool or t is int or t is float or t is str:
        return value
    if t is list:
        return [encode(v, depth + 1) for v in value]
    if t is tuple or t is set or t is frozenset:
        return {"$" + t.__name__: [encode(v, depth + 1) for v in value]}
    if t is dict:
        return {"$dict": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if t is bytes:
        return {"$bytes": value.hex()}
    if t is complex:
        return {"$complex": [value.real, value.imag]}
    # Subclasses of the builtins (IntEnum, numpy scalars and arrays) travel as their plain values.
    for base in (bool, int, float, str):
        if isinstance(value, base):
            return base(value) if base is not str else str.__str__(value)
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and type(value).__module__.split(".")[0] == "numpy":
        return encode(tolist(), depth + 1)
    raise TypeError(f"a {t.__name__} cannot cross the sandbox boundary (plain data only)")


_CONTAINERS = {"$tuple": tuple, "$set": set, "$frozenset": frozenset}


def decode(data: Any, depth: int = 0) -> Any:
    """The value `encode` made; ValueError for anything else."""
    if depth > MAX_DEPTH:
        raise ValueError("a value nested too deeply")
    t = type(data)
    if data is None or t is bool or t is int or t is float or t is str:
        return data
    if t is list:
        return [decode(v, depth + 1) for v in data]
    if t is dict and len(data) == 1:
        ((tag, body),) = data.items()
        if tag in _CONTAINERS and type(body) is list:
            return _CONTAINERS[tag](decode(v, depth + 1) for v in body)
        if tag == "$dict" and type(body) is list and all(type(p) is list and len(p) == 2 for p in body):
            return {decode(k, depth + 1): decode(v, depth + 1) for k, v in body}
        if tag == "$bytes" and type(body) is str:
            return bytes.fromhex(body)
        if tag == "$complex" and type(body) is list and len(body) == 2:
            return complex(float(body[0]), float(body[1]))
    raise ValueError("malformed data")


def send(fd: int, message: Any) -> None:
    data = json.dumps(message).encode()
    data = struct.pack(">I", len(data)) + data
    while data:
        data = data[os.write(fd, data) :]


def recv(fd: int) -> Any:
    """The next message, or None at end of stream (or a frame too large to be honest)."""
    head = _read(fd, 4)
    if head is None:
        return None
    size = struct.unpack(">I", head)[0]
    if size > MAX_MESSAGE:
        return None
    body = _read(fd, size)
    return None if body is None else json.loads(body)


def _read(fd: int, n: int) -> bytes | None:
    buf = b""
    while len(buf) < n:
        chunk = os.read(fd, min(n - len(buf), 1 << 20))
        if not chunk:
            return None
        buf += chunk
    return buf
