"""judgegraph: agentic, tool-using LLM judges as LangGraph state machines.

The user story in four names: `Judge.load(name)` a judge, give it a `JudgeRequest`, get a `Verdict`, and
find every step in its `Trajectory`.
"""

from typing import TYPE_CHECKING, Any

from judgegraph._gc import tune_gc
from judgegraph._version import __version__
from judgegraph.schema._request import JudgeRequest
from judgegraph.schema._trajectory import Trajectory
from judgegraph.schema._verdict import Verdict

__all__ = ("Judge", "JudgeRequest", "Trajectory", "Verdict", "__version__", "tune_gc")

if TYPE_CHECKING:
    from judgegraph.runtime._judge import Judge


def __getattr__(name: str) -> Any:
    # `Judge` pulls in the model client and LangGraph; load them on first use so `import judgegraph` stays light.
    if name == "Judge":
        from judgegraph.runtime._judge import Judge

        return Judge
    raise AttributeError(f"module 'judgegraph' has no attribute {name!r}")
