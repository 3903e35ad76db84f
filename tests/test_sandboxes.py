"""The sandbox conformance and hostile-code suite, run against every backend (Docker and bubblewrap).

Both backends must be available where this runs: `make test` installs and starts them. Nothing is skipped.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import docker
import pytest
import pytest_asyncio

from judgegraph.sandboxes import ExecResult, Limits, SandboxPool, doctor
from judgegraph.sandboxes._docker import LABEL, OWNER_LABEL, DockerBackend
from tests.owners import owner_process, wait_until

BACKENDS = ["docker", "process"]
LIMITS = Limits(wall_s=4, cpu_s=3, memory_mb=256, pids=48, output_bytes=100_000, file_size_mb=8)


@pytest_asyncio.fixture(scope="module", params=BACKENDS)
async def pool(request: pytest.FixtureRequest) -> AsyncIterator[SandboxPool]:
    p = await SandboxPool.open(request.param, limits=LIMITS, size=2)
    yield p
    await p.close()


async def py(pool: SandboxPool, code: str, **files: str) -> ExecResult:
    return await pool.run(["python3", "main.py"], files={"main.py": code, **files})


@pytest.fixture
def docker_client() -> Iterator[Any]:
    """A Docker client of the tests' own, its connections closed when the test ends."""
    client = docker.from_env()
    yield client
    client.close()


@pytest.fixture
def canary(tmp_path: Path) -> Iterator[Path]:
    d = tmp_path / "canary"
    d.mkdir()
    (d / "keep.txt").write_text("untouched")
    os.chmod(tmp_path, 0o777)
    os.chmod(d, 0o777)
    os.chmod(d / "keep.txt", 0o666)  # even world-writable host files must be out of reach
    yield d
    assert (d / "keep.txt").read_text() == "untouched"


class Listener:
    """A TCP listener on the host's 127.0.0.1 that counts connections."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop = True
        self._thread.join()
        self.sock.close()


async def healthy(pool: SandboxPool) -> None:
    r = await pool.run(["python3", "-c", "print(6 * 7)"])
    assert r.ok and r.stdout.strip() == "42", r


# ---------------------------------------------------------------- conformance


async def test_runs_with_files_stdin_and_exit_code(pool: SandboxPool) -> None:
    r = await pool.run(
        ["python3", "main.py", "arg"],
        files={
            "main.py": "import sys\nprint(open('d/x.txt').read(), sys.argv[1], sys.stdin.read())\nsys.exit(3)",
            "d/x.txt": "data",
        },
        stdin=b"from stdin",
    )
    assert r.stdout.strip() == "data arg from stdin" and r.exit_code == 3 and not r.timed_out
    assert r.backend == pool.backend_name and r.duration_s > 0


async def test_stderr_is_separate(pool: SandboxPool) -> None:
    r = await py(pool, "import sys; print('out'); print('err', file=sys.stderr)")
    assert r.stdout.strip() == "out" and r.stderr.strip() == "err"


async def test_each_run_has_a_fresh_scratch_dir(pool: SandboxPool) -> None:
    await py(pool, "open('left.txt', 'w').write('x'); open('/tmp/left.txt', 'w').write('x')")
    for _ in range(pool.size + 1):  # whichever sandbox serves the next runs
        r = await py(pool, "import os; print(sorted(os.listdir('.')), os.path.exists('/tmp/left.txt'))")
        assert r.stdout.strip() == "['main.py'] False"


async def test_runs_as_an_unprivileged_user_without_capabilities(pool: SandboxPool) -> None:
    r = await py(
        pool, "import os; print(os.getuid() != 0, open('/proc/self/status').read().split('CapEff:')[1].split()[0])"
    )
    assert r.stdout.split() == ["True", "0000000000000000"]


async def test_file_names_cannot_escape_the_scratch_dir(pool: SandboxPool) -> None:
    from judgegraph.sandboxes import SandboxError

    for bad in ("../evil.py", "/etc/evil.py"):
        with pytest.raises(SandboxError, match="relative path"):
            await pool.run(["true"], files={bad: "x"})
    await healthy(pool)


async def test_concurrent_callers_share_the_pool(pool: SandboxPool) -> None:
    results = await asyncio.gather(*(pool.run(["python3", "-c", f"print({i})"]) for i in range(6)))
    assert sorted(int(r.stdout) for r in results) == list(range(6))


# ---------------------------------------------------------------- hostile code


async def test_infinite_loop_is_stopped(pool: SandboxPool) -> None:
    r = await py(pool, "while True: pass")
    assert r.timed_out and not r.ok and r.duration_s < LIMITS.wall_s + 3
    await healthy(pool)


async def test_long_sleep_is_stopped_by_the_wall_clock(pool: SandboxPool) -> None:
    r = await py(pool, "import time; time.sleep(600)")
    assert r.timed_out and r.exit_code is None and r.duration_s < LIMITS.wall_s + 3
    await healthy(pool)


async def test_six_gigabytes_is_refused(pool: SandboxPool) -> None:
    r = await py(pool, "x = bytearray(6 * 1024**3); print('allocated')")
    assert r.oom_killed and not r.ok and "allocated" not in r.stdout
    await healthy(pool)


async def test_a_run_may_ask_for_its_own_memory_and_process_limits(pool: SandboxPool) -> None:
    """Per-run limits that differ from the pool's (Docker updates the container, then retires it)."""
    tight = LIMITS.model_copy(update={"memory_mb": 128, "pids": 16})
    r = await pool.run(["python3", "-c", "x = bytearray(256 * 1024**2); print('allocated')"], limits=tight)
    assert not r.ok and "allocated" not in r.stdout, r
    r = await pool.run(["python3", "-c", "x = bytearray(64 * 1024**2); print('allocated')"], limits=tight)
    assert r.ok and "allocated" in r.stdout, r
    await healthy(pool)


async def test_hundreds_of_processes_are_refused(pool: SandboxPool) -> None:
    code = (
        "import os, time\nn = 0\ntry:\n    for _ in range(400):\n        if os.fork() == 0:\n"
        "            time.sleep(3); os._exit(0)\n        n += 1\nexcept OSError as e:\n    print('refused after', n)\n"
    )
    r = await py(pool, code)
    assert "refused after" in r.stdout and int(r.stdout.split()[-1]) < LIMITS.pids
    await healthy(pool)


async def test_host_paths_cannot_be_written_or_removed(pool: SandboxPool, canary: Path) -> None:
    code = (
        "import shutil, sys\nfor act in (lambda: open(sys.argv[1] + '/keep.txt', 'w').write('pwned'),"
        " lambda: shutil.rmtree(sys.argv[1]), lambda: open('/etc/judgegraph-pwned', 'w').write('x')):\n"
        "    try:\n        act(); print('DID IT')\n    except OSError as e:\n        print('refused', type(e).__name__)\n"
    )
    r = await pool.run(["python3", "main.py", str(canary)], files={"main.py": code})
    assert "DID IT" not in r.stdout and r.stdout.count("refused") == 3
    assert not Path("/etc/judgegraph-pwned").exists()


async def test_secrets_are_unreadable(pool: SandboxPool) -> None:
    os.environ["JUDGEGRAPH_TEST_SECRET"] = "hunter2"
    try:
        r = await py(
            pool,
            "import os\ntry:\n    print(open('/etc/shadow').read())\nexcept OSError as e:\n    print('no', e.errno)\nprint(dict(os.environ))",
        )
    finally:
        del os.environ["JUDGEGRAPH_TEST_SECRET"]
    assert "hunter2" not in r.stdout and "JUDGEGRAPH_TEST_SECRET" not in r.stdout
    assert "root:" not in r.stdout and r.stdout.startswith("no ")


async def test_no_network_reaches_the_host(pool: SandboxPool) -> None:
    listener = Listener()
    try:
        code = f"import socket\ns = socket.socket(); s.settimeout(2)\ntry:\n    s.connect(('127.0.0.1', {listener.port})); print('CONNECTED')\nexcept OSError as e:\n    print('blocked', e.errno)"
        r = await py(pool, code)
        await asyncio.sleep(0.3)
    finally:
        listener.close()
    assert "CONNECTED" not in r.stdout and "blocked" in r.stdout
    assert listener.connections == 0


async def test_flood_of_output_is_capped(pool: SandboxPool) -> None:
    r = await py(pool, "import sys\nchunk = 'x' * (1 << 20)\nfor _ in range(200):\n    sys.stdout.write(chunk)")
    assert r.stdout_truncated and len(r.stdout) == LIMITS.output_bytes and r.duration_s < LIMITS.wall_s + 3
    await healthy(pool)


async def test_big_files_are_refused(pool: SandboxPool) -> None:
    r = await py(pool, "open('big', 'wb').write(b'x' * (LIMIT := 64 * 1024 * 1024)); print('wrote')")
    assert "wrote" not in r.stdout and not r.ok
    await healthy(pool)


async def test_background_processes_do_not_outlive_their_run(pool: SandboxPool) -> None:
    ghost = "import os, time\nif os.fork() == 0:\n    time.sleep(1)\n    open('/work/ghost', 'w').write('boo')\n    open('/tmp/ghost', 'w').write('boo')\n    os._exit(0)\nprint('parent left')"
    r = await py(pool, ghost)
    assert r.stdout.strip() == "parent left"
    await asyncio.sleep(1.5)
    for _ in range(pool.size + 1):
        r = await py(pool, "import os; print(os.path.exists('/work/ghost'), os.path.exists('/tmp/ghost'))")
        assert r.stdout.strip() == "False False"


# ---------------------------------------------------------------- lifecycle


async def test_docker_containers_do_not_leak_and_stale_ones_are_reaped(docker_client: Any) -> None:
    client = docker_client
    stale = client.containers.run(
        DockerBackend().image,
        ["python3", "-c", "import time; time.sleep(600)"],
        detach=True,
        network_mode="none",
        labels={LABEL: "1", OWNER_LABEL: f"{socket.gethostname()}:999999999"},
    )
    pool = await SandboxPool.open("docker", limits=LIMITS, size=2)
    try:
        all_ids = {c.id for c in client.containers.list(all=True, filters={"label": LABEL})}
        mine = client.containers.list(all=True, filters={"label": f"{OWNER_LABEL}={DockerBackend().owner}"})
        assert stale.id not in all_ids and len(mine) == 2  # other live processes' pools are left alone
        for c in mine:
            attrs = c.attrs["HostConfig"]
            assert attrs["NetworkMode"] == "none" and attrs["ReadonlyRootfs"] and attrs["CapDrop"] == ["ALL"]
            assert attrs["Memory"] == attrs["MemorySwap"] == 256 * 1024 * 1024 and attrs["PidsLimit"] == LIMITS.pids
            assert "no-new-privileges" in attrs["SecurityOpt"] and c.attrs["Config"]["User"] == "65534:65534"
    finally:
        await pool.close()
    assert client.containers.list(all=True, filters={"label": f"{OWNER_LABEL}={DockerBackend().owner}"}) == []


async def test_sandboxes_are_recycled_after_max_uses() -> None:
    pool = await SandboxPool.open("process", limits=LIMITS, size=1, max_uses=2)
    served: list[object] = []
    try:
        for _ in range(5):
            async with pool.acquire() as sb:
                r = await sb.run(["python3", "-c", "print(6 * 7)"])
                assert r.ok and r.stdout.strip() == "42", r
                served.append(sb)
    finally:
        await pool.close()
    # One sandbox slot, two uses each: the first two runs share one, the next two a fresh one, the fifth a third.
    assert [served.index(sb) for sb in served] == [0, 0, 2, 2, 4]
    assert all(sb.uses <= 2 for sb in served)  # type: ignore[attr-defined]


@pytest.mark.docker
async def test_doctor_reports_both_backends() -> None:
    report = await doctor()
    assert report.active == "docker"
    assert {b.name: b.available for b in report.backends} == {"docker": True, "process": True}


async def test_auto_falls_back_to_bubblewrap_when_docker_is_missing(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    pool = await SandboxPool.open("auto", limits=LIMITS, size=1)
    try:
        assert pool.backend_name == "process" and "docker is unavailable" in pool.reason
        assert "falling back" in caplog.text
        await healthy(pool)
    finally:
        await pool.close()


async def test_a_fork_bomb_is_stopped_and_the_pool_recovers(pool: SandboxPool) -> None:
    bomb = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"
    r = await py(pool, bomb)
    assert not r.ok and r.duration_s < LIMITS.wall_s + 6
    await healthy(pool)


async def test_output_held_open_by_a_leftover_is_cut_and_the_sandbox_retired() -> None:
    """The host's side of the process backend against a scripted zygote that reports the run's exit but keeps
    its stdout open (what a leftover the zygote could not kill would do): the result keeps the exit, says the
    output was cut, and the sandbox is retired rather than reused."""
    import json
    import struct

    from judgegraph.sandboxes._process import ProcessBackend, ProcessSandbox

    ours, zygote = socket.socketpair()
    sandbox = ProcessSandbox(ProcessBackend(LIMITS), uid=None)
    sandbox.OUTPUT_GRACE_S = 0.3
    sandbox._sock = ours
    ours.setblocking(False)

    def script() -> None:
        head, fds, _, _ = socket.recv_fds(zygote, 4, 8)
        size = struct.unpack(">I", head)[0]
        request = json.loads(zygote.recv(size))
        os.write(fds[0], b"partial output")
        reply = json.dumps({"id": request["id"], "exit": 1, "leftovers": 1}).encode()
        zygote.sendall(struct.pack(">I", len(reply)) + reply)
        threading.Event().wait(1.0)  # stdout stays open past the grace period
        for fd in fds:
            os.close(fd)

    peer = threading.Thread(target=script)
    peer.start()
    try:
        r = await sandbox.run(["python3", "main.py"], files={"main.py": "pass"})
    finally:
        peer.join()
        ours.close()
        zygote.close()
    assert r.exit_code == 1 and not r.ok and r.stdout == "partial output"
    assert "kept its output open" in r.stderr and not sandbox.healthy


async def test_a_kill_that_arrives_after_its_run_ended_does_not_touch_the_next_run() -> None:
    """The race behind a fork bomb's tie: the wall clock fires as the run ends, the host's kill reaches the
    zygote after the run's report. The zygote must ignore it, not answer it as the next run."""
    from judgegraph.sandboxes._process import ProcessBackend

    backend = ProcessBackend(LIMITS)
    sandbox = await backend.create(0)
    try:
        first = await sandbox.run(["python3", "-c", "print('one')"])
        await sandbox._send({"kill": sandbox._runs})  # a late kill for the run that just ended
        second = await sandbox.run(["python3", "-c", "import time; time.sleep(0.2); print('two')"])
        third = await sandbox.run(["python3", "-c", "print('three')"])
    finally:
        await sandbox.destroy()
    assert (first.stdout, second.stdout, third.stdout) == ("one\n", "two\n", "three\n")
    assert second.ok and not second.timed_out and sandbox.uses == 3


async def test_a_run_that_kills_everything_it_can_leaves_nothing_for_the_next(pool: SandboxPool) -> None:
    """kill(-1) reaches every process of the run's uid, the Docker wrapper too, whose clean-up then never
    runs: the container must be retired, not reused with the run's files still in it."""
    code = "open('/tmp/left', 'w').write('x')\nimport os, signal\nos.kill(-1, signal.SIGKILL)\nprint('still here')"
    r = await py(pool, code)
    assert not r.ok
    for _ in range(pool.size + 1):
        r = await py(pool, "import os; print(os.path.exists('/tmp/left'))")
        assert r.stdout.strip() == "False"


@pytest.mark.docker
async def test_closing_while_a_replacement_is_being_made_leaves_no_container(docker_client: Any) -> None:
    client = docker_client

    def ours() -> set[str]:
        return {c.id for c in client.containers.list(all=True, filters={"label": LABEL})}

    before = ours()
    pool = await SandboxPool.open("docker", limits=LIMITS, size=1)
    await py(pool, "import os, signal\nos.kill(-1, signal.SIGKILL)")  # retires its container: a replacement starts
    await asyncio.sleep(0.1)  # the replacement is being made now
    await pool.close()
    await asyncio.sleep(0.5)
    assert ours() - before == set()


@pytest.mark.docker
def test_containers_go_when_their_owner_is_killed(docker_client: Any) -> None:
    """kill -9 leaves no clean-up to the owner: the containers hold their owner's attached stdin and end
    themselves when it closes, without waiting for the next pool's stale reaping."""

    code = (
        "import asyncio\nfrom judgegraph.sandboxes import SandboxPool\n"
        "async def main():\n    pool = await SandboxPool.open('docker', size=1)\n"
        "    print([sb.container.id for sb in pool._idle][0], flush=True)\n    await asyncio.sleep(120)\n"
        "asyncio.run(main())"
    )
    client = docker_client
    with owner_process(code) as line:
        container_id = line.strip()
        assert client.containers.get(container_id).status == "running"
    gone = wait_until(lambda: not client.containers.list(all=True, filters={"id": container_id}), 15)
    assert gone, f"container {container_id} outlived its killed owner"
