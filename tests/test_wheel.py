"""The wheel as a user gets it: built with the sdist, installed (not editable) into a fresh virtual environment with
its declared dependencies, and every command run from there, outside the repository, so nothing of the checkout
can stand in for a file the wheel forgot."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import typer

from benchmarks.fake_openai import FakeOpenAI
from judgegraph.backends._child import free_port
from judgegraph.cli import app
from tests.conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def _run(*args: str | Path, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args}: {done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


def _source_tree(into: Path) -> Path:
    """The files git would give a clean clone (tracked, and new ones not ignored), copied: a build here never
    races another in the checkout's own build/ folder, and sees nothing a clone would not have."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    return into


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    tree = _source_tree(tmp_path_factory.mktemp("source"))
    _run(sys.executable, "-m", "build", "--wheel", "--sdist", "--outdir", out, tree, cwd=out, timeout=600)
    return out


@pytest.fixture(scope="module")
def venv(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment holding the wheel and the dependencies it declares (no extras), nothing else."""
    env = tmp_path_factory.mktemp("venv")
    _run(sys.executable, "-m", "venv", env, cwd=env)
    (wheel,) = dist.glob("judgegraph-*.whl")
    _run(env / "bin" / "python", "-m", "pip", "install", "-q", wheel, cwd=env, timeout=600)
    return env


def _members(archive: Path) -> set[str]:
    if archive.suffix == ".whl":
        return set(zipfile.ZipFile(archive).namelist())
    with tarfile.open(archive) as tar:
        return {m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile() and "/" in m.name}


def _installed_paths() -> set[str]:
    """Every file of the package as the folder map installs it (`agents/x` -> `judgegraph/agents/x`)."""
    folders = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    out = set()
    for name, folder in folders.items():
        prefix = name.replace(".", "/")
        for line in tracked.splitlines():
            if line.startswith(f"{folder}/"):
                out.add(f"{prefix}/{line.removeprefix(folder + '/')}")
    return out


def test_the_wheel_holds_every_file_of_the_package_and_nothing_generic(dist: Path) -> None:
    (wheel,) = dist.glob("judgegraph-*.whl")
    names = _members(wheel)
    meta = f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info"
    assert {n.split("/")[0] for n in names} == {"judgegraph", meta}
    missing = _installed_paths() - names
    assert not missing, f"tracked files the wheel lacks: {sorted(missing)}"
    assert f"{meta}/licenses/LICENSE" in names
    metadata = zipfile.ZipFile(wheel).read(f"{meta}/METADATA").decode()
    assert "License-Expression: Apache-2.0" in metadata


def test_the_sdist_builds_the_same_wheel(dist: Path, tmp_path: Path) -> None:
    (sdist,) = dist.glob("judgegraph-*.tar.gz")
    assert {"setup.py", "pyproject.toml", "LICENSE", "README.md"} <= _members(sdist)
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp_path, sdist, cwd=tmp_path, timeout=600)
    (rebuilt,) = tmp_path.glob("judgegraph-*.whl")
    (wheel,) = dist.glob("judgegraph-*.whl")
    assert _members(rebuilt) == _members(wheel)


def _commands(group: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every command and command group's path (typer's groups are its own click's)."""
    for name, command in group.commands.items():
        yield (*prefix, name)
        if hasattr(command, "commands"):
            yield from _commands(command, (*prefix, name))


def test_every_command_helps_from_the_installed_wheel(venv: Path, tmp_path: Path) -> None:
    commands = list(_commands(typer.main.get_group(app)))
    assert ("train", "run") in commands and ("judge",) in commands
    for command in commands:
        done = _run(venv / "bin" / "judgegraph", *command, "--help", cwd=tmp_path, timeout=120)
        assert "Usage: judgegraph" in done.stdout, command


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    yield server
    server.stop()


def test_judge_export_and_serve_from_the_installed_wheel(venv: Path, tmp_path: Path, fake: FakeOpenAI) -> None:
    bin_ = venv / "bin" / "judgegraph"
    # Nothing of the checkout is importable there: the package is the installed one.
    where = _run(venv / "bin" / "python", "-c", "import judgegraph; print(judgegraph.__file__)", cwd=tmp_path)
    assert where.stdout.startswith(str(venv))
    demo = [json.loads(line) for line in (ROOT / "examples" / "demo.jsonl").read_text().splitlines() if line]
    requests = tmp_path / "in.jsonl"
    requests.write_text("".join(json.dumps(r) + "\n" for r in demo if r["id"].startswith("math-mult")))
    store = tmp_path / "runs.db"
    _run(bin_, "judge", requests, "-o", tmp_path / "out.jsonl", "--model-url", fake.url, "--store", store, cwd=tmp_path)
    results = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert {r["id"]: r["winner"] for r in results} == {"math-mult": 0, "math-mult-swapped": 1}
    _run(bin_, "export", "--store", store, "--format", "rewards", "-o", tmp_path / "rewards.jsonl", cwd=tmp_path)
    assert len((tmp_path / "rewards.jsonl").read_text().splitlines()) >= 2

    port = free_port()
    server = subprocess.Popen(
        [bin_, "serve", "--port", str(port), "--model-url", fake.url, "--store", str(store)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the installed server did not start"
            time.sleep(0.2)
        reply = httpx.post(f"http://127.0.0.1:{port}/v1/judge", json=demo[0], timeout=60)
        assert reply.status_code == 200 and reply.json()["verdict"]["winner"] == 0
    finally:
        server.terminate()
        assert server.wait(timeout=30) == 0
