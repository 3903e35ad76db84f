"""Test inputs from a generator the judge's model writes (differential testing's last source, issue #21).

Varied examples and typed values can break a statement's constraints (a sorted array unsorted, a size out of
range), and where they do, candidates that differ are not wrong. A generator written from the statement knows
them: the model writes a program that prints small valid inputs as one JSON list; it runs in the sandbox under
the `python` tool's limits (the model's code is as untrusted as a candidate's), and what it printed is read as
data, bounded in count and size. Written and run once per statement (the evidence cache), for every candidate
and both orders; the model's turn is recorded for the call, so a replay reads it back.
"""

from __future__ import annotations

import ast
import hashlib
import json
from typing import Literal

from judgegraph.tools._base import ToolContext
from judgegraph.tools._prompts import tool_prompt
from judgegraph.tools.code.language import languages
from judgegraph.tools.code.python_runs import LIMITS

MAX_INPUTS = 10
MAX_INPUT_CHARS = 2000
"""An input's size as Python writes it: generated inputs are small, so a failure is easy to read."""


def _plain(value: object, depth: int = 0) -> bool:
    """Data a call can take across the sandbox: numbers, strings, truth values, None, and lists or dicts of them."""
    if depth > 20:
        return False
    if value is None or isinstance(value, bool | int | float | str):
        return True
    if isinstance(value, list | tuple):
        return all(_plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v, depth + 1) for k, v in value.items())
    return False


def _printed_list(stdout: str) -> list[object] | None:
    """The JSON (or Python-literal) list the generator printed: the whole output, else its last such line."""
    for text in [stdout.strip(), *reversed(stdout.strip().splitlines())]:
        for read in (json.loads, ast.literal_eval):
            try:
                value = read(text)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
            if isinstance(value, list):
                return value
    return None


def read_inputs(stdout: str, style: Literal["call", "stdin"], arity: int | None) -> list[object]:
    """The valid inputs in a generator's output: argument tuples (of `arity` where known) for calls, strings for
    stdin; at most `MAX_INPUTS`, each at most `MAX_INPUT_CHARS` as written, duplicates dropped."""
    items = _printed_list(stdout) or []
    out: list[object] = []
    seen: set[str] = set()
    for item in items:
        if style == "stdin":
            if not isinstance(item, str) or not item.strip():
                continue
            value: object = item if item.endswith("\n") else item + "\n"
        else:
            if not isinstance(item, list | tuple) or not _plain(item) or (arity is not None and len(item) != arity):
                continue
            value = tuple(item)
        key = repr(value)
        if len(key) > MAX_INPUT_CHARS or key in seen:
            continue
        seen.add(key)
        out.append(value)
        if len(out) == MAX_INPUTS:
            break
    return out


async def model_inputs(
    ctx: ToolContext, style: Literal["call", "stdin"], name: str | None, arity: int | None
) -> list[object]:
    """Inputs from a generator the judge's model writes for the statement; none where the judge has no model,
    or the model's program prints nothing usable (never an error: the other inputs still run)."""
    if ctx.model is None or ctx.services is None or (style == "call" and name is None):
        return []
    services = ctx.services
    key = (
        "inputs:" + hashlib.sha256(f"{MAX_INPUTS}\0{style}\0{name}\0{arity}\0{ctx.request.prompt}".encode()).hexdigest()
    )

    async def generate() -> list[object]:
        from judgegraph.backends import Sampling

        assert ctx.model is not None
        await ctx.model.connect()
        role = "inputs_stdin_task" if style == "stdin" else "inputs_call_task"
        task = tool_prompt("differential_test", role, prompt=ctx.request.prompt, name=name, n=MAX_INPUTS)
        system = tool_prompt("differential_test", "inputs_system")
        messages = [{"role": "system", "content": system}, {"role": "user", "content": task}]
        turn = await ctx.model.chat(messages, sampling=Sampling(temperature=0.0, max_tokens=700))
        if ctx.on_model_turn is not None:
            ctx.on_model_turn(turn)
        if turn.error is not None:  # not kept: a later judgment of the statement asks again
            raise _NoGenerator(turn.error)
        if not turn.text:
            return []
        code = languages.get("python").extract(turn.text, None) or turn.text
        pool = await services.sandbox()
        run = await pool.run(["python3", "-I", "main.py"], files={"main.py": code}, limits=LIMITS)
        return read_inputs(run.stdout, style, arity) if not run.stdout_truncated else []

    try:
        return list(await services.once(key, generate))
    except _NoGenerator:
        return []


class _NoGenerator(Exception):
    """The model could not be asked (unreachable, failed): nothing to run, and nothing cached."""
