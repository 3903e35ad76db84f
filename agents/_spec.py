"""Judge specs: what a judge is (graph, prompts, tools, budgets), as validated files under `agents/<name>/`."""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import json
import tomllib
from typing import Any

import jinja2
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgegraph.errors import ConfigError
from judgegraph.registry import Registry


class SamplingSpec(BaseModel):
    """Sampling for the judge's model calls."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    temperature: float = Field(default=0.0, ge=0)
    max_tokens: int = Field(default=256, ge=1)
    seed: int | None = 0
    logprobs: bool = True
    """Ask for per-token logprobs (recorded for training the judge; backends that cannot just omit them)."""


class JudgeSpec(BaseModel):
    """A judge's identity: changing any field or prompt changes its version."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    name: str
    description: str
    graph: str
    """The graph builder that turns this spec into a LangGraph graph."""
    tools: list[str] = Field(default_factory=list)
    """Tools this judge may use (deterministic plans and model calls alike)."""
    both_orders: bool = True
    """Pairwise: judge both candidate orders (evidence is gathered once) and report their agreement."""
    max_verdict_attempts: int = Field(default=2, ge=1)
    """Model attempts at a parseable verdict before the verdict is `valid=false`."""
    options: dict[str, Any] = Field(default_factory=dict)
    """The graph's own knobs (the `[options]` table), validated by the options model its graph registers."""
    sampling: SamplingSpec = Field(default_factory=SamplingSpec)
    prompts: dict[str, str] = Field(default_factory=dict)
    """Prompt role -> template text (loaded from the files the TOML names)."""

    @property
    def version(self) -> str:
        """Content hash of the spec and its prompts."""
        blob = json.dumps(self.model_dump(mode="json"), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def prompt_hashes(self) -> dict[str, str]:
        """Prompt role -> content hash (recorded in every trajectory)."""
        return {k: hashlib.sha256(v.encode()).hexdigest()[:16] for k, v in self.prompts.items()}

    def render(self, role: str, **variables: object) -> str:
        """Render a prompt strictly: a missing variable is an error, not an empty string."""
        try:
            text = self.prompts[role]
        except KeyError:
            raise ConfigError(f"judge {self.name!r} has no prompt {role!r}") from None
        return _compiled(text).render(**variables).strip()


_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)


@functools.lru_cache(maxsize=256)
def _compiled(text: str) -> jinja2.Template:
    """Templates compile once: compiling costs milliseconds, rendering microseconds (it is on every judgment)."""
    return _ENV.from_string(text)


judges: Registry[JudgeSpec] = Registry("judge")


def _read_toml(package: str, name: str) -> tuple[dict[str, object], dict[str, str]]:
    """A judge folder's settings and prompt texts; `extends = "other"` starts from another judge's folder."""
    folder = importlib.resources.files(package) / name
    try:
        raw = tomllib.loads((folder / "judge.toml").read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"judge {name!r}: cannot read judge.toml: {e}") from e
    base, prompts = _read_toml(package, str(raw.pop("extends"))) if "extends" in raw else ({}, {})
    if raw.get("graph", base.get("graph")) != base.get("graph"):  # another graph has other options
        base.pop("options", None)
    for role, filename in raw.pop("prompts", {}).items():
        try:
            prompts[role] = (folder / filename).read_text()
        except OSError as e:
            raise ConfigError(f"judge {name!r}: prompt {role!r} file {filename!r}: {e}") from e
    return {**base, **raw}, prompts


def load_spec_dir(package: str, name: str) -> JudgeSpec:
    """Load `<package>/<name>/judge.toml` and the prompt files it names."""
    raw, prompts = _read_toml(package, name)
    try:
        spec = JudgeSpec.model_validate({"name": name, **raw, "prompts": prompts})
    except ValidationError as e:
        raise ConfigError(f"judge {name!r}: invalid judge.toml:\n{e}") from e
    for role, text in prompts.items():
        try:
            _ENV.parse(text)
        except jinja2.TemplateSyntaxError as e:
            raise ConfigError(f"judge {name!r}: prompt {role!r}: {e}") from e
    return spec


def register_builtin_judges() -> None:
    """Register every `agents/<name>/judge.toml` shipped with judgegraph."""
    root = importlib.resources.files("judgegraph.agents")
    for entry in sorted(root.iterdir(), key=lambda p: p.name):
        if entry.is_dir() and (entry / "judge.toml").is_file() and entry.name not in judges:
            judges.register(entry.name, load_spec_dir("judgegraph.agents", entry.name))
