"""The packages and their data, found from the folders: pyproject.toml's `package-dir` is the one map of folder to
import name (the design card's folders sit at the repository root and install under `judgegraph.*`). Every folder
below is a package (a data folder such as a judge's prompts a namespace one, as setuptools asks), and every file in
it that is not Python source is its data; nothing lists them by hand, so nothing can drift."""

from __future__ import annotations

import tomllib
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
SKIP = {"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"}


def folders() -> dict[str, str]:
    """import name -> folder, as pyproject.toml's [tool.setuptools] package-dir says."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return dict(config["tool"]["setuptools"]["package-dir"])


def discover() -> tuple[list[str], dict[str, list[str]]]:
    packages: list[str] = []
    data: dict[str, list[str]] = {}
    for name, folder in folders().items():
        top = ROOT / folder
        for here in sorted([top, *(p for p in top.rglob("*") if p.is_dir())]):
            relative = here.relative_to(top).parts
            if SKIP & set(relative) or any(part.startswith(".") for part in relative):
                continue
            package = ".".join([name, *relative])
            packages.append(package)
            files = sorted(p.name for p in here.iterdir() if p.is_file() and p.suffix not in {".py", ".pyc"})
            if files:
                data[package] = files
    return packages, data


PACKAGES, PACKAGE_DATA = discover()
setup(packages=PACKAGES, package_data=PACKAGE_DATA)
