"""The scripted fake OpenAI server in its own process, answering after a fixed latency.

Its own process, so the server's threads do not share the judge's interpreter lock and skew what is measured.
"""

from __future__ import annotations

import dataclasses
import functools
import multiprocessing
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from typing import Any

from benchmarks.fake_openai import FakeOpenAI, Reply, prefers


def _respond(latency_s: float, body: dict[str, Any]) -> Reply:
    return dataclasses.replace(prefers("Hello")(body), delay_s=latency_s)


def _serve(conn: Connection, latency_s: float) -> None:
    server = FakeOpenAI()
    server.responder = functools.partial(_respond, latency_s)
    server.start()
    conn.send(server.url)
    conn.recv()  # until the benchmark is done
    server.stop()


@contextmanager
def fake_model_process(latency_s: float) -> Iterator[str]:
    """Yields the base URL of a fake model (preferring answers that say "Hello") running in a child process."""
    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe()
    process = ctx.Process(target=_serve, args=(theirs, latency_s), daemon=True)
    process.start()
    try:
        yield ours.recv()
    finally:
        ours.send("stop")
        process.join(timeout=10)
