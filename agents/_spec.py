"""Judge specs: what a judge is (graph, prompts, tools, budgets), as validated files under `agents/<name>/`."""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import json
import tomllib
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, cast

import jinja2
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgegraph.errors import ConfigError
from judgegraph.registry import Registry
from judgegraph.settings import MCPSource
from judgegraph.tools import tools


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
    mcp_servers: list[MCPSource] = Field(default_factory=list)
    """MCP servers whose tools this judge may use (`[[mcp_servers]]` tables); they join `tools` when the judge
    loads, as `<server>__<tool>`."""
    prompts: dict[str, str] = Field(default_factory=dict)
    """Prompt role -> template text (loaded from the files the TOML names)."""

    @property
    def version(self) -> str:
        """Content hash of the spec and its prompts."""
        # A judge that names no MCP server keeps the version it had before specs could name one.
        blob = json.dumps(
            self.model_dump(mode="json", exclude=set() if self.mcp_servers else {"mcp_servers"}), sort_keys=True
        ).encode()
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


BUILTIN = importlib.resources.files("judgegraph.agents")
"""Where the built-in judges' folders are (and where `extends` looks when a judge's own folder has no sibling)."""


def _read_toml(
    folder: Traversable, name: str, siblings: Traversable | None
) -> tuple[dict[str, object], dict[str, str]]:
    """A judge folder's settings and prompt texts; `extends = "other"` starts from another judge's folder (in
    `siblings` when it is there, else a built-in judge)."""
    try:
        raw = tomllib.loads((folder / "judge.toml").read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"judge {name!r}: cannot read judge.toml: {e}") from e
    base: dict[str, object] = {}
    prompts: dict[str, str] = {}
    if "extends" in raw:
        other = str(raw.pop("extends"))
        near = siblings / other if siblings is not None else None
        base, prompts = _read_toml(
            near if near and (near / "judge.toml").is_file() else BUILTIN / other, other, siblings
        )
    if raw.get("graph", base.get("graph")) != base.get("graph"):  # another graph has other options
        base.pop("options", None)
    for role, filename in raw.pop("prompts", {}).items():
        try:
            prompts[role] = (folder / filename).read_text()
        except OSError as e:
            raise ConfigError(f"judge {name!r}: prompt {role!r} file {filename!r}: {e}") from e
    return {**base, **raw}, prompts


def _load(folder: Traversable, name: str, siblings: Traversable | None) -> JudgeSpec:
    raw, prompts = _read_toml(folder, name, siblings)
    try:
        spec = JudgeSpec.model_validate({"name": name, **raw, "prompts": prompts})
    except ValidationError as e:
        raise ConfigError(f"judge {name!r}: invalid judge.toml:\n{e}") from e
    for role, text in prompts.items():
        try:
            _ENV.parse(text)
        except jinja2.TemplateSyntaxError as e:
            raise ConfigError(f"judge {name!r}: prompt {role!r}: {e}") from e
    return checked_tools(spec)


def checked_tools(spec: JudgeSpec) -> JudgeSpec:
    """`spec`, once every tool it names is registered: a judge naming an unknown tool fails when it loads (and is
    never listed as loaded), saying which tools there are. MCP servers' tools join at load, so are not named."""
    unknown = [name for name in spec.tools if name not in tools]
    if unknown:
        raise ConfigError(
            f"judge {spec.name!r} names unknown tool{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
            f"known: {', '.join(tools.names())}"
        )
    return spec


def load_spec_dir(package: str, name: str) -> JudgeSpec:
    """Load `<package>/<name>/judge.toml` and the prompt files it names."""
    root = importlib.resources.files(package)
    return _load(root / name, name, root)


def load_judge_folder(folder: str | Path | Traversable) -> JudgeSpec:
    """A judge from its folder (`judge.toml` and the prompts it names), named after the folder; `extends` finds
    a sibling folder first, then a built-in judge."""
    if isinstance(folder, str | Path):
        path = Path(folder).resolve()
        if not (path / "judge.toml").is_file():
            raise ConfigError(f"{folder}: not a judge folder (no judge.toml in it)")
        return _load(path, path.name, path.parent)
    return _load(folder, folder.name, None)


def _adapt(name: str, found: object) -> JudgeSpec:
    """What a `judgegraph.judges` entry point names: a JudgeSpec, or a judge folder (a path or a package
    resource, e.g. `importlib.resources.files("mypkg") / "myjudge"`)."""
    if isinstance(found, JudgeSpec):
        spec = found
    elif isinstance(found, str | Path) or hasattr(found, "joinpath"):
        spec = load_judge_folder(cast("str | Path | Traversable", found))
    else:
        raise TypeError(f"a judges entry point names a JudgeSpec or a judge folder, not {type(found).__name__}")
    return checked_tools(spec if spec.name == name else spec.model_copy(update={"name": name}))


judges: Registry[JudgeSpec] = Registry("judge", plugins="judgegraph.judges", adapt=_adapt)


def resolve_judge(judge: str | Path) -> JudgeSpec:
    """A registered judge by name, or the judge in a folder (a path holding `judge.toml`)."""
    if isinstance(judge, str) and judge in judges:
        return judges.get(judge)
    path = Path(judge)
    if (path / "judge.toml").is_file():
        return load_judge_folder(path)
    return judges.get(str(judge))  # the error lists the known names


def builtin_judge_names() -> list[str]:
    """The judges judgegraph ships: every `agents/<name>/` holding a judge.toml (not plugins' or tests')."""
    return sorted(p.name for p in BUILTIN.iterdir() if p.is_dir() and (p / "judge.toml").is_file())


def register_builtin_judges() -> None:
    """Register every `agents/<name>/judge.toml` shipped with judgegraph."""
    for name in builtin_judge_names():
        # Registered before any plugin loads (a plugin judge of a built-in's name is refused then).
        judges.register(name, load_spec_dir("judgegraph.agents", name), replace=True)
