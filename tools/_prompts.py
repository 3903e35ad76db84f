"""The prompts of the tools that ask the judge's model (a derived reference's programs, the oracle programs, the
generated inputs), kept as files beside the code (`tools/prompts/<tool>/<role>.md`) as the judges' own are, and
recorded by content hash in every trajectory of a judge that may use the tool, so a changed prompt shows in the
record like a changed judge prompt."""

from __future__ import annotations

import functools
import hashlib
import importlib.resources

import jinja2

PROMPTS = importlib.resources.files("judgegraph.tools") / "prompts"
_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False)


@functools.cache
def _text(tool: str, role: str) -> str:
    return (PROMPTS / tool / f"{role}.md").read_text().rstrip("\n")


@functools.cache
def _template(tool: str, role: str) -> jinja2.Template:
    return _ENV.from_string(_text(tool, role))  # compiled once: compiling costs milliseconds, rendering microseconds


def tool_prompt(tool: str, role: str, **variables: object) -> str:
    """A tool's prompt, rendered strictly (a missing variable is an error, not an empty string)."""
    return _template(tool, role).render(**variables) if variables else _text(tool, role)


def tool_prompt_hashes(tool_names: list[str]) -> dict[str, str]:
    """`<tool>/<role>` -> content hash, for every prompt of the named tools (those that ask the model)."""
    out = {}
    for tool in sorted(tool_names):
        folder = PROMPTS / tool
        if not folder.is_dir():
            continue
        for item in sorted(folder.iterdir(), key=lambda f: f.name):
            if item.name.endswith(".md"):
                role = item.name.removesuffix(".md")
                out[f"{tool}/{role}"] = hashlib.sha256(_text(tool, role).encode()).hexdigest()[:16]
    return out
