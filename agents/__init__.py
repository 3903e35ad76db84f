"""Who judges: judge specs (prompts, verdict formats, tools, budgets) kept as files, one folder per judge."""

from judgegraph.agents._skills import Resource, Skill, register_builtin_skills, select_skill, skills
from judgegraph.agents._spec import (
    JudgeSpec,
    SamplingSpec,
    builtin_judge_names,
    checked_tools,
    judges,
    load_judge_folder,
    load_spec_dir,
    register_builtin_judges,
    resolve_judge,
)

register_builtin_judges()
register_builtin_skills()

__all__ = (
    "JudgeSpec",
    "Resource",
    "SamplingSpec",
    "Skill",
    "builtin_judge_names",
    "checked_tools",
    "judges",
    "load_judge_folder",
    "load_spec_dir",
    "register_builtin_judges",
    "register_builtin_skills",
    "resolve_judge",
    "select_skill",
    "skills",
)
