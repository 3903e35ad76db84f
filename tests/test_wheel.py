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
from tests.conftest import ROOT, demo_rows

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
    demo = list(demo_rows().values())
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
        assert server.stderr is not None
        server.stderr.close()


MISSING_EXTRA = {
    # a command run with only the core install -> the extra its one-line message names
    ("mcp",): "mcp",
    ("serve",): "embedded",
    ("eval", "math", "--limit", "1"): "evals",
    ("train", "run"): "train",
    ("model", "embedded"): "embedded",
    ("model", "fetch", "smollm2-135m"): "embedded",
    ("graph", "evidence", "--format", "svg"): "graph",
    ("judge", "in.jsonl", "-o", "ray.jsonl", "--ray"): "ray",
}
RUNS_WITHOUT_AN_EXTRA = [
    # exit 0, or 2 with one line (what the command was given cannot be done here, and it says why)
    ("--version",),
    ("judge", "in.jsonl", "-o", "out.jsonl"),  # decided by the reference: no model needed
    ("runs",),
    ("show", "run_nonexistent"),
    ("replay", "run_nonexistent"),
    ("diff", "run_nonexistent", "run_other"),
    ("export", "--format", "rewards", "-o", "rewards.jsonl"),
    ("eval", "nope"),
    ("viz", "--port", "PORT"),  # a port in use: refused before serving
    ("judges",),
    ("graph", "evidence"),
    ("tools",),
    ("plugins",),
    ("model", "list"),
    ("model", "vllm", "nowhere"),
    ("sandbox", "build"),
    ("sandbox", "doctor"),
]


def test_every_command_with_only_the_core_install_exits_0_or_2_never_a_traceback(venv: Path, tmp_path: Path) -> None:
    """From the wheel with no extra: each command either works, or exits 2 with one line naming the extra to
    install (or what else is wrong); none ends in a traceback. Every command of the CLI is in one of the lists."""
    import socket

    tried = [*MISSING_EXTRA, *RUNS_WITHOUT_AN_EXTRA]
    untried = [c for c in _commands(typer.main.get_group(app)) if not any(t[: len(c)] == c for t in tried)]
    assert not untried, f"commands no list tries: {untried}"
    (tmp_path / "in.jsonl").write_text(
        json.dumps({"id": "a", "prompt": "2 + 2?", "candidates": ["4", "5"], "reference": "4"}) + "\n"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "JUDGEGRAPH_STORE": str(tmp_path / "runs.db"),
        "COLUMNS": "80",
    }
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        for args in [*MISSING_EXTRA, *RUNS_WITHOUT_AN_EXTRA]:
            argv = [str(venv / "bin" / "judgegraph"), *(port if a == "PORT" else a for a in args)]
            done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
            said = done.stdout + done.stderr
            assert "Traceback" not in said and done.returncode in (0, 2), (args, done.returncode, said[-3000:])
            if done.returncode == 2 and not done.stderr.startswith(("Usage:", "error: No such")):
                lines = [line for line in done.stderr.splitlines() if line.strip()]
                assert len(lines) == 1 and lines[0].startswith("error: "), (args, done.stderr)
            if args in MISSING_EXTRA:
                assert done.returncode == 2 and f"pip install 'judgegraph[{MISSING_EXTRA[args]}]'" in done.stderr, (
                    args,
                    done.stderr,
                )
    module = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "judgegraph", "--version"], cwd=tmp_path, capture_output=True, text=True
    )
    assert module.returncode == 0 and module.stdout.startswith("judgegraph ")


def test_judges_langgraph_writes_a_file_langgraph_can_load_outside_a_checkout(venv: Path, tmp_path: Path) -> None:
    """`judges --langgraph FILE` in a folder that is no checkout names each graph by its import path in the
    installed package; each loads as LangGraph's server loads a module spec (import, then the attribute)."""
    _run(venv / "bin" / "judgegraph", "judges", "--langgraph", tmp_path / "langgraph.json", cwd=tmp_path)
    config = json.loads((tmp_path / "langgraph.json").read_text())
    assert config["graphs"]["evidence"] == "judgegraph.graphs.studio:evidence"
    load = (
        "import importlib, json, sys\n"
        "for name, target in json.load(open(sys.argv[1]))['graphs'].items():\n"
        "    module, attr = target.split(':')\n"
        "    graph = getattr(importlib.import_module(module), attr).get_graph()\n"
        "    assert '__start__' in graph.nodes, name\n"
        "print(len(json.load(open(sys.argv[1]))['graphs']))\n"
    )
    done = _run(venv / "bin" / "python", "-c", load, tmp_path / "langgraph.json", cwd=tmp_path)
    assert int(done.stdout) == len(config["graphs"]) >= 7


def test_the_example_plugin_builds_without_a_warning(tmp_path: Path) -> None:
    """A plugin laid out like `examples/plugin` (judge folders as package data) builds as setuptools wants it:
    no 'Package would be ignored' banner, and every judge folder's files in the wheel."""
    tree = tmp_path / "plugin"
    shutil.copytree(ROOT / "examples" / "plugin", tree, ignore=shutil.ignore_patterns("*.egg-info", "build"))
    done = _run(
        sys.executable, "-m", "build", "--wheel", "--outdir", tmp_path / "dist", tree, cwd=tmp_path, timeout=600
    )
    said = done.stdout + done.stderr
    assert "would be ignored" not in said and "absent from the `packages` configuration" not in said, said[-3000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {
        "judgegraph_example_plugin/concise/judge.toml",
        "judgegraph_example_plugin/concise_rules/judge.toml",
    } <= names
