"""The documentation names what exists: every path the architecture page (every page under docs/, the README and
CONTRIBUTING.md) names in backticks is a file or folder of the repository, every page the README links to exists, and the architecture
page names every room of graphs/ and tools/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "CONTRIBUTING.md", ROOT / "README.md"]
_PATH = re.compile(r"`([A-Za-z_][\w./-]*/(?:[\w.-]+)?|[\w./-]+\.(?:py|md|toml|json))`")
"""A path in backticks: with a slash (`graphs/evidence/`), or a file name with its suffix."""


TOP = {p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")}
"""A path is the repository's where it starts at one of its top folders (`graphs/`, `tools/`, `judgegraph/`...);
a name inside another context (`code/` in a table of `tools/`, a run's `report.md`) is not checked."""


def _named_paths(text: str) -> set[str]:
    named = {m.group(1) for m in _PATH.finditer(text) if m.group(1).split("/")[0] in TOP}
    return {p for p in named if "my_" not in p}  # `tools/my_tool.py`: a placeholder for the reader's own


def test_the_architecture_page_exists_and_the_readme_links_it() -> None:
    assert (ROOT / "docs" / "architecture.md").exists()
    assert "docs/architecture.md" in (ROOT / "README.md").read_text()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_path_a_page_names_exists(page: Path) -> None:
    named = _named_paths(page.read_text())
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing, f"{page.name} names paths that do not exist: {missing}"


def test_the_architecture_page_names_every_room() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    rooms = [p for base in ("graphs", "tools") for p in (ROOT / base).iterdir() if p.is_dir() and "__" not in p.name]
    missing = [f"{r.parent.name}/{r.name}/" for r in rooms if f"{r.parent.name}/{r.name}/" not in text]
    assert not missing, missing


def test_every_page_the_readme_links_exists() -> None:
    links = re.findall(r"\]\((docs/[^)#]+)", (ROOT / "README.md").read_text())
    assert [link for link in links if not (ROOT / link).exists()] == []


def test_the_checks_see_a_missing_path() -> None:
    assert _named_paths("the room `graphs/nowhere/` and `tools/gone.py`, not `code/` or `report.md`") == {
        "graphs/nowhere/",
        "tools/gone.py",
    }
