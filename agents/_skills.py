"""Skills (after Skill-RM): a reusable way to evaluate one kind of task. A skill is a folder under
`agents/skills/`: `SKILL.md` (guidance the model reads) and `skill.toml` (when it applies, which evidence
sources exist, what they cost, whether they decide, and how their results are aggregated)."""

from __future__ import annotations

import importlib.resources
import tomllib
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgegraph.errors import ConfigError
from judgegraph.registry import Registry
from judgegraph.schema import JudgeRequest
from judgegraph.tools import tools

EvidenceField = Literal["reference", "tests", "constraints", "documents", "images", "rubric"]
COST_ORDER = {"low": 0, "medium": 1, "high": 2}


class Resource(BaseModel):
    """One evidence source a skill may use."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    tool: str
    cost: Literal["low", "medium", "high"] = "low"
    """Cheaper sources run first."""
    decides: bool = True
    """Whether its result can settle the verdict without the model."""
    weight: float = Field(default=1.0, ge=0)
    essential: bool = False
    gate: bool = False
    reliability: float = Field(default=1.0, ge=0, le=1)


class Skill(BaseModel):
    """A reusable evaluation procedure."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    name: str
    description: str
    applies_when: list[EvidenceField] = Field(default_factory=list)
    """Evidence the request must carry, all of it."""
    applies_when_any: list[EvidenceField] = Field(default_factory=list)
    """Evidence of which the request must carry at least one. With no condition set, the skill is a fallback."""
    applies_when_planned: list[str] = Field(default_factory=list)
    """Tools of which at least one must be of use on the request (its plan schedules a call, or, for a tool no
    plan schedules, it applies): evidence the judge makes itself, such as the statement's examples."""
    priority: int = 0
    """Among skills that apply, the highest priority is chosen."""
    aggregation: str = "all_pass"
    """The aggregation strategy (see `judgegraph.graphs` aggregations)."""
    resources: list[Resource] = Field(default_factory=list)
    guidance: str = ""
    """SKILL.md: what the model reads when the evidence does not decide."""

    def applies(self, request: JudgeRequest) -> bool:
        if self.applies_when_any and not any(request.has_evidence(f) for f in self.applies_when_any):
            return False
        if self.applies_when_planned and not any(tools.get(t).of_use(request) for t in self.applies_when_planned):
            return False
        return all(request.has_evidence(f) for f in self.applies_when)

    def ordered_resources(self) -> list[Resource]:
        return sorted(self.resources, key=lambda r: COST_ORDER[r.cost])


skills: Registry[Skill] = Registry("skill")


def load_skill(name: str) -> Skill:
    folder = importlib.resources.files("judgegraph.agents") / "skills" / name
    try:
        raw = tomllib.loads((folder / "skill.toml").read_text())
        guidance = (folder / "SKILL.md").read_text()
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"skill {name!r}: {e}") from e
    try:
        return Skill.model_validate({"name": name, **raw, "guidance": guidance})
    except ValidationError as e:
        raise ConfigError(f"skill {name!r}: invalid skill.toml:\n{e}") from e


def register_builtin_skills() -> None:
    root = importlib.resources.files("judgegraph.agents") / "skills"
    for entry in sorted(root.iterdir(), key=lambda p: p.name):
        if entry.is_dir() and (entry / "skill.toml").is_file() and entry.name not in skills:
            skills.register(entry.name, load_skill(entry.name))


def select_skill(request: JudgeRequest) -> Skill:
    """The applicable skill of highest priority (the fallback skill applies to everything)."""
    found = [skills.get(n) for n in skills if skills.get(n).applies(request)]
    if not found:
        raise ConfigError("no skill applies to this request and no fallback skill is registered")
    return max(found, key=lambda s: (s.priority, len(s.applies_when)))
