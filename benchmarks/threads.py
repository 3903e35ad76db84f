"""llama.cpp's thread count for the embedded model, idle and with one core busy (what picks the default).

llama.cpp's threads spin-wait on each other: when another process holds one of the cores (the judge's own
process, a sandbox, OCR), a thread that loses its core stalls the rest. Each model (the bundled SmolLM2-135M
and, where fetched, Qwen2.5-Coder-1.5B) reads a 275-token prompt and writes 96 tokens at temperature 0 with 1
and with 2 threads, first on an idle machine, then beside a process that keeps one core busy.
Run: `python -m benchmarks.run threads`.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

from benchmarks._util import table
from judgegraph.backends import local_models, model_file
from judgegraph.errors import PrerequisiteError

PROMPT = (
    "Background: "
    + "The sky is blue because of Rayleigh scattering. " * 25
    + "\nCount from 1 to 100, comma separated: 1, 2, 3,"
)


def _generate(path: str, threads: int) -> float:
    import llama_cpp

    llm = llama_cpp.Llama(model_path=path, n_ctx=2048, n_threads=threads, verbose=False)
    start = time.perf_counter()
    llm(PROMPT, max_tokens=96, temperature=0)
    return time.perf_counter() - start


def _measure() -> str:
    rows: list[list[object]] = []
    for name in local_models:
        try:
            path = str(model_file(name))
        except PrerequisiteError:
            continue  # not fetched here
        for busy in (False, True):
            hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
            try:
                one, two = _generate(path, 1), _generate(path, 2)
            finally:
                if hog is not None:
                    hog.kill()
                    hog.wait()
            rows.append([name, "one core busy" if busy else "idle", one, two, f"{one / two:.2f}x"])
    return table(["model", "machine", "1 thread s", "2 threads s", "1 thread / 2 threads"], rows)


async def bench() -> str:
    return await asyncio.to_thread(_measure)


if __name__ == "__main__":
    print(_measure())
