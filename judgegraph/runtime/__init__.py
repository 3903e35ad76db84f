"""Running judges: `Judge` (load, judge, replay), batches of JSONL files, the judge reward, replay across
processes."""

from judgegraph.runtime._batch import JudgeFileResult, JudgeRunner, OutputLine, judge_file, resolve_paths
from judgegraph.runtime._judge import BatchItem, Judge, open_checkpointer
from judgegraph.runtime._replay import ReplayReport, first_divergence, replay
from judgegraph.runtime._replay_many import replay_many
from judgegraph.runtime._reward import RewardConfig, judge_reward

__all__ = (
    "BatchItem",
    "Judge",
    "JudgeFileResult",
    "JudgeRunner",
    "OutputLine",
    "ReplayReport",
    "RewardConfig",
    "first_divergence",
    "judge_file",
    "judge_reward",
    "open_checkpointer",
    "replay",
    "replay_many",
    "resolve_paths",
)
