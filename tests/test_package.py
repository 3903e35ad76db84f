"""The install story: one import name, public faces, a light `import judgegraph`, a wheel with nothing generic."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

FACES = {
    "judgegraph": {"Judge", "JudgeRequest", "Verdict", "Trajectory"},
    "judgegraph.schema": {
        "JudgeRequest",
        "Candidate",
        "Verdict",
        "ToolCall",
        "ToolResult",
        "ModelTurn",
        "Trajectory",
        "Event",
    },
    "judgegraph.backends": {"ModelClient", "EmbeddedServer", "ModelEndpoint", "backend_profiles", "vllm_command"},
    "judgegraph.store": {"TrajectoryStore"},
    "judgegraph.tools": {"tool", "tools", "call_tool", "ToolContext"},
    "judgegraph.agents": {"JudgeSpec", "judges"},
    "judgegraph.graphs": {"EvidenceFirstGraph", "Recorder", "JudgeState", "register_graph", "build_graph"},
    "judgegraph.sandboxes": {"Sandbox", "SandboxBackend", "SandboxPool", "sandbox_backends", "Limits", "doctor"},
    "judgegraph.runtime": {"Judge", "BatchItem", "ReplayReport", "replay", "replay_many", "judge_file"},
    "judgegraph.serving": {"ServerConfig", "create_app", "RayJudge"},
    "judgegraph.output": {"exporters", "export", "draw", "DRAW_FORMATS"},
    "judgegraph.evals": {"run_eval", "build_set", "benchmarks", "suites"},
    "judgegraph.adapters": {"JudgeReward", "AsyncJudgeReward", "compute_score", "compute_score_async"},
}


@pytest.mark.parametrize("module", sorted(FACES))
def test_public_faces(module: str) -> None:
    mod = importlib.import_module(module)
    exported = set(mod.__all__)
    assert FACES[module] <= exported
    for name in exported:
        assert getattr(mod, name) is not None


def _python(code: str) -> str:
    # Run outside the checkout, so only the installed package (not the repository root) is importable.
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/"
    ).stdout.strip()


def test_import_judgegraph_is_light() -> None:
    loaded = _python("import sys, judgegraph; print(' '.join(sorted(sys.modules)))").split()
    for heavy in ("langgraph", "openai", "sympy", "langchain_core"):
        assert heavy not in loaded


def test_no_generic_top_level_names_are_importable() -> None:
    names = "('tools', 'agents', 'graphs', 'evals', 'sandboxes')"
    found = _python(f"import importlib.util as u; print([n for n in {names} if u.find_spec(n)])")
    assert found == "[]"
    assert _python("import judgegraph.tools as t; print(t.__name__)") == "judgegraph.tools"
