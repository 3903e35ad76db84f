"""Who judges: judge specs (prompts, verdict formats, tools, budgets) kept as files, one folder per judge."""

from judgegraph.agents._spec import JudgeSpec, SamplingSpec, judges, load_spec_dir, register_builtin_judges

register_builtin_judges()

__all__ = ("JudgeSpec", "SamplingSpec", "judges", "load_spec_dir", "register_builtin_judges")
