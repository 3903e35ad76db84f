"""`run_code` in every language: the sandbox image that carries the toolchains (size, build time) and the time
of one program run (build plus three stdin/stdout cases) per language on both backends."""

from __future__ import annotations

import asyncio
import time

import docker

from benchmarks._util import Stats, table
from benchmarks.hostile_programs import TESTS, correct
from judgegraph.sandboxes import ImageRecipe, SandboxPool, build_image
from judgegraph.schema import IOTest
from judgegraph.settings import CASE_TIMEOUT_S
from judgegraph.tools import language_named, read_report

PYTHON_SUM = "a, b = map(int, input().split())\nprint(a + b)\n"


async def _runs(backend: str, n: int) -> list[list[object]]:
    cases: list[str | IOTest] = [*(IOTest(**t) for t in TESTS), IOTest(input="40 2\n", output="42\n")]
    rows: list[list[object]] = []
    async with await SandboxPool.open(backend, size=1) as pool:
        for name in ("python", "c", "cpp", "java", "javascript", "go", "rust"):
            language = language_named(name)
            program = language.program(PYTHON_SUM if name == "python" else correct(name), cases, None, CASE_TIMEOUT_S)
            times, passed = [], 0
            for _ in range(n + 1):  # the first run warms the pool's sandbox and the page cache
                t = time.perf_counter()
                run = await pool.run(program.command, files=program.files, limits=program.limits)
                times.append(time.perf_counter() - t)
                results, load_error = read_report(program, run)
                passed += load_error is None and all(c.status == "passed" for c in results)
            stats = Stats.of(times[1:])
            rows.append([backend, name, f"{passed}/{n + 1}", stats.p50_ms, stats.p95_ms])
    return rows


async def bench(n: int = 10) -> str:
    client = docker.from_env()
    recipe = ImageRecipe().resolved()
    start = time.perf_counter()
    tag = await asyncio.to_thread(build_image, client, recipe, force=True)
    built_s = time.perf_counter() - start
    size_mb = client.images.get(tag).attrs["Size"] / 1e6
    rows = await _runs("process", n) + await _runs("docker", n)
    return "\n\n".join(
        [
            f"The sandbox image (`judgegraph sandbox build`, debootstrap of Debian {recipe.suite} with "
            f"{', '.join(recipe.packages)}): {size_mb:.0f} MB, built in {built_s:.0f} s on this machine "
            "(packages fetched from the Debian mirror).",
            f"One `run_code` program per language (build, then 3 stdin/stdout cases, each a fresh process), "
            f"{n} runs after a warm-up, one sandbox:",
            table(["backend", "language", "all cases passed", "p50 ms", "p95 ms"], rows),
            "Python and JavaScript have no build; Go's time is mostly `go build` (compiling and linking even a small "
            "program), Java's javac plus the JVM starting once per case.",
        ]
    )


if __name__ == "__main__":
    print(asyncio.run(bench()))
